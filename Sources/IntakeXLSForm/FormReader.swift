import Foundation
import IntakeCore

/// One import: reads the settings, languages, choices and survey of a workbook and writes the
/// Intake files, remembering for every line written the row and columns it came from, so that
/// what Intake's own loader finds wrong is reported at the spreadsheet's cell.
struct FormReader {
    let workbook: Workbook
    let fallbackId: String
    var problems: [XLSFormProblem] = []
    var leftOut: [XLSFormProblem] = []

    var survey = Columns(nil, sheet: "survey")
    var choiceColumns = Columns(nil, sheet: "choices")
    /// Header language (nil: a column without one) → Intake code.
    var codes: [String?: String] = [:]
    var languages: [String] = []
    var base: String { languages.first ?? "en" }
    var lists: [String: [ChoiceRow]] = [:]
    var names = XPath.Names()
    /// Intake types by question name, as far as reading expressions needs them.
    var kinds: [String: String] = [:]
    var files: [String: OutFile] = [:]
    var usedLists: [String: ListUse] = [:]
    /// Labels (and choice labels) a translation lacks, counted to say so once.
    var missingTranslations: [String: Int] = [:]
    var missingChoiceTranslations = 0

    struct ChoiceRow {
        var row: Int
        var code: String
        var labels: [String: String]
        var extra: [String: String]
    }

    /// How the questions use a list: how often, and which choices column filters it.
    struct ListUse {
        var questions: [String] = []
        var filterColumn: String?
        var shared = false
    }

    init(workbook: Workbook, fallbackId: String) {
        self.workbook = workbook
        self.fallbackId = fallbackId
    }

    mutating func problem(_ kind: XLSFormProblem.Kind, _ sheet: String?, _ row: Int?, _ column: String?, _ message: String, _ hint: String? = nil) {
        let found = XLSFormProblem(kind, sheet: sheet, row: row, column: column, message: message, hint: hint)
        if kind == .leftOut { leftOut.append(found) } else { problems.append(found) }
    }

    mutating func run() -> XLSFormImport {
        guard let surveySheet = workbook.sheet("survey") else {
            problem(.error, nil, nil, nil, "the workbook has no 'survey' sheet", "an XLSForm's questions are on a sheet named 'survey'; the sheets here are: \(workbook.sheets.map(\.name).joined(separator: ", "))")
            return XLSFormImport(id: fallbackId, files: [:], problems: problems, leftOut: leftOut, questionnaire: nil)
        }
        for sheet in workbook.sheets where !["survey", "choices", "settings"].contains(sheet.name.lowercased()) {
            let unsupported = ["external_choices", "entities", "osm"].contains(sheet.name.lowercased())
            problem(
                unsupported ? .unsupported : .leftOut, sheet.name, nil, nil,
                unsupported ? "the '\(sheet.name)' sheet has no Intake equivalent" : "the sheet '\(sheet.name)' is not part of an XLSForm and is not read")
        }
        let surveyRows = surveySheet.rows.drop { $0.isEmpty }
        survey = Columns(surveyRows.first, sheet: "survey")
        for column in ["type", "name"] where survey.first(column) == nil {
            problem(.error, "survey", surveyRows.first?.number, nil, "the survey sheet has no '\(column)' column", "the first row of the survey sheet names its columns: type, name, label, …")
        }
        if survey.first("type") == nil || survey.first("name") == nil {
            return XLSFormImport(id: fallbackId, files: [:], problems: problems, leftOut: leftOut, questionnaire: nil)
        }
        let choiceRows = workbook.sheet("choices")?.rows.drop { $0.isEmpty } ?? []
        choiceColumns = Columns(choiceRows.first, sheet: workbook.sheet("choices")?.name ?? "choices")
        let settings = readSettings()
        readLanguages(settings: settings)
        readChoices(Array(choiceRows.dropFirst()))
        let rows = Array(surveyRows.dropFirst())
        let tree = buildTree(rows)
        scanNames(tree)
        writeSections(tree, title: settings.title)
        let id = settings.id
        writeManifest(id: id, settings: settings)
        writeLists()
        let texts = files.mapValues(\.text)
        var questionnaire: Questionnaire?
        do {
            let sections = texts.filter { $0.key == "manifest.txt" || $0.key.first?.isNumber == true }
            let lists = texts.filter { sections[$0.key] == nil }
            questionnaire = try QuestionnaireLoader.load(QuestionnaireFiles(directory: "import", texts: sections, lists: lists))
        } catch {
            for diagnostic in error.diagnostics { report(diagnostic) }
        }
        return XLSFormImport(id: id, files: texts, problems: problems, leftOut: leftOut, questionnaire: questionnaire)
    }

    // MARK: Settings

    struct Settings {
        var id: String
        var title: String?
        var version: String?
        var defaultLanguage: String?
        var intake: [String] = []
    }

    mutating func readSettings() -> Settings {
        var settings = Settings(id: fallbackId)
        guard let sheet = workbook.sheet("settings") else { return settings }
        let rows = sheet.rows.drop { $0.isEmpty }
        let columns = Columns(rows.first, sheet: sheet.name)
        guard let values = rows.dropFirst().first else { return settings }
        for column in columns.columns {
            let value = values[column.index].trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { continue }
            switch column.field {
            case "form_id":
                if value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }) {
                    settings.id = value
                } else {
                    problem(.error, sheet.name, values.number, column.shown, "the form_id '\(value)' is not an Intake id", "an id is letters, digits, '-' and '_': rename it, e.g. '\(value.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined())'")
                }
            case "form_title" where column.language == nil: settings.title = value
            case "version": settings.version = value
            case "default_language": settings.defaultLanguage = value
            case "intake": settings.intake = value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            case "public_key":
                problem(.leftOut, sheet.name, values.number, column.shown, "records are not encrypted with the form's public key", "Intake seals records on the device and stores them on your own server; ODK's per-form key has no equivalent")
            case "name", "style", "instance_name", "submission_url", "allow_choice_duplicates", "clean_text_values", "namespaces", "auto_send", "auto_delete", "form_title":
                problem(.leftOut, sheet.name, values.number, column.shown, "the setting '\(column.header)' has no effect in Intake")
            default:
                problem(.leftOut, sheet.name, values.number, column.shown, "the setting '\(column.header)' is not one Intake reads")
            }
        }
        return settings
    }

    // MARK: Languages

    mutating func readLanguages(settings: Settings) {
        var keys: [String?] = []
        for column in survey.columns + choiceColumns.columns where ["label", "hint", "constraint_message", "required_message", "intake"].contains(column.field) {
            if column.field == "intake" && column.language == nil { continue }
            if !keys.contains(column.language) { keys.append(column.language) }
        }
        for (columns, sheet) in [(survey, "survey"), (choiceColumns, choiceColumns.sheet)] {
            for column in columns.duplicates() {
                problem(.error, sheet, 1, column.shown, "the column '\(column.header)' appears twice", "delete one of them: pyxform refuses the form too")
            }
        }
        var defaultCode: String?
        if let named = settings.defaultLanguage {
            defaultCode = Languages.code(of: named)
            if defaultCode == nil {
                problem(.error, "settings", 2, "default_language", "the default language '\(named)' has no language code", "write it as 'English (en)'")
            }
        }
        for key in keys {
            guard let key else {
                codes[nil] = defaultCode ?? "en"
                continue
            }
            guard let code = Languages.code(of: key) else {
                problem(.error, "survey", 1, nil, "the language '\(key)' has no code Intake can use", "name it with its code in brackets, as ODK does: 'label::\(key) (xx)', e.g. 'label::Arabic (ar)'")
                continue
            }
            codes[key] = code
        }
        var ordered: [String] = []
        for key in keys {
            if let code = codes[key], !ordered.contains(code) { ordered.append(code) }
        }
        let distinctKeys = Set(keys.compactMap { codes[$0] })
        if keys.count > distinctKeys.count, keys.contains(where: { $0 == nil }), distinctKeys.count > 0 {
            // `label` and `label::English (en)` both say English.
            let clash = keys.filter { $0 != nil && codes[$0] == codes[nil] }.compactMap { $0 }
            if !clash.isEmpty {
                problem(.error, "survey", 1, nil, "the columns without a language and those for '\(clash[0])' are both \(codes[nil]!)", "give every label column its language, 'label::English (en)', or set default_language to another language")
            }
        }
        let baseCode = defaultCode.flatMap { code in ordered.contains(code) ? code : nil } ?? (keys.contains(where: { $0 == nil }) ? codes[nil] : nil) ?? ordered.first ?? "en"
        languages = [baseCode] + ordered.filter { $0 != baseCode }
    }

    /// A field's texts by language code, one row.
    mutating func texts(_ field: String, _ columns: Columns, _ row: Sheet.Row) -> [String: String] {
        var result: [String: String] = [:]
        for column in columns.all(field) {
            let value = row[column.index].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, let code = codes[column.language] else { continue }
            if value.contains(where: \.isNewline) {
                problem(.unsupported, columns.sheet, row.number, column.shown, "the text spans several lines; Intake's texts are one line each", "join the lines (a sentence or two fits on one)")
                result[code] = value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                continue
            }
            result[code] = value
        }
        return result
    }

    // MARK: Choices

    mutating func readChoices(_ rows: [Sheet.Row]) {
        guard !rows.isEmpty else { return }
        let sheet = choiceColumns.sheet
        guard let listColumn = choiceColumns.first("list_name"), let nameColumn = choiceColumns.first("name") else {
            problem(.error, sheet, 1, nil, "the choices sheet needs 'list_name' and 'name' columns", "its first row names its columns: list_name, name, label")
            return
        }
        let known: Set<String> = ["list_name", "name", "label", "intake"]
        for column in choiceColumns.columns where !known.contains(column.field) && ["image", "audio", "video", "big-image", "media"].contains(column.field) {
            problem(.unsupported, sheet, 1, column.shown, "choices with pictures or sounds have no Intake equivalent", "Intake shows choices as text; delete the column, or import with --partial to leave it out")
        }
        var seen: [String: Set<String>] = [:]
        for row in rows where !row.isEmpty {
            let list = row[listColumn.index].trimmingCharacters(in: .whitespaces)
            let code = row[nameColumn.index].trimmingCharacters(in: .whitespaces)
            guard !list.isEmpty, !code.isEmpty else {
                problem(.error, sheet, row.number, (list.isEmpty ? listColumn : nameColumn).shown, "the choice has no \(list.isEmpty ? "list_name" : "name")", "every choice names its list and its code")
                continue
            }
            guard seen[list, default: []].insert(code).inserted else {
                problem(.error, sheet, row.number, nameColumn.shown, "the list '\(list)' has the choice '\(code)' twice", "give each choice of a list its own name")
                continue
            }
            var extra: [String: String] = [:]
            for column in choiceColumns.columns where !known.contains(column.field) && column.language == nil {
                extra[column.header] = row[column.index].trimmingCharacters(in: .whitespaces)
            }
            var labels = texts("label", choiceColumns, row)
            if labels[base] == nil {
                problem(.leftOut, sheet, row.number, nil, "the choice '\(code)' has no label; its name is shown")
                labels[base] = code
            }
            lists[list, default: []].append(ChoiceRow(row: row.number, code: code, labels: labels, extra: extra))
        }
    }
}

/// A file written by an import, line by line, each line knowing where in the form it came from.
struct OutFile {
    struct Line {
        var text: String
        var sheet: String?
        var row: Int?
        /// Where each part of the line starts (1-based character column) and the sheet column it
        /// came from.
        var spans: [(start: Int, column: String?)] = []
    }

    var lines: [Line] = []

    var text: String { lines.map(\.text).joined(separator: "\n") + "\n" }
}

extension FormReader {
    /// A loader diagnostic, reported at the cell its line came from.
    mutating func report(_ diagnostic: QuestionnaireDiagnostic) {
        let fileName = (diagnostic.path as NSString).lastPathComponent
        guard let file = files[fileName], let number = diagnostic.line, number >= 1, number <= file.lines.count else {
            problem(.error, nil, nil, nil, "\(fileName): \(diagnostic.message)", diagnostic.hint)
            return
        }
        let line = file.lines[number - 1]
        var column: String?
        if let at = diagnostic.column {
            column = line.spans.last { $0.start <= at }?.column
        }
        problem(.error, line.sheet, line.row, column, diagnostic.message, diagnostic.hint)
    }
}
