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
    var externalColumns = Columns(nil, sheet: "external_choices")
    /// A file beside the form, by name (`towns.csv` of `select_one_from_file towns.csv`).
    var formFile: (String) -> Data? = { _ in nil }
    /// Files of choices read, by file name: the list each became.
    var filesLoaded: [String: String] = [:]
    /// Rows whose problem is said already (a choices file missing): not said twice.
    var saidRows: Set<Int> = []
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
    /// The settings' `allow_choice_duplicates`: pyxform then takes a list's repeated choice names.
    var allowChoiceDuplicates = false
    /// The form's names of its languages where they are not Intake's usual ones (`Français`).
    var languageNames: [String: String] = [:]
    /// The form's root element (`name` in the settings; pyxform's default `data`): no repeat may take it.
    var rootName = "data"
    /// Rows Intake does not ask (metadata, names it cannot take), by name: an expression that
    /// reads one is unsupported, not a mistake.
    var leftOutNames: [String: Int] = [:]
    /// Choice names Intake codes otherwise, by list: `24/7` → `24_7`.
    var codeRenames: [String: [String: String]] = [:]
    /// The entities sheet's rows and columns (``readEntities()``).
    var entities: [EntityDeclaration] = []
    var entityColumns = Columns(nil, sheet: "entities")
    /// The questions an `entity_id` names (`${case}`), by name: the list each picks from.
    var entityPicker: [String: String] = [:]
    /// Those seen on the survey sheet (not asked: Intake names the case outside the form), by name: their row.
    var pickerRows: [String: Int] = [:]
    /// The survey's `save_to` cells: the row, the question's Intake id, and `property` or `list#property`.
    var savedTo: [(row: Int, question: String, target: String)] = []
    /// The properties of the followed case the expressions read (ODK's `instance('list')/root/item[…]/p`).
    var caseReads: Set<String> = []
    /// `cases.txt` whole, as Intake's export writes it in the settings' `intake` cell (`case: …` lines).
    var settingsCaseLines: [String] = []

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

    mutating func problem(
        _ kind: XLSFormProblem.Kind, _ sheet: String?, _ row: Int?, _ column: String?, _ message: String, _ hint: String? = nil
    ) {
        let found = XLSFormProblem(kind, sheet: sheet, row: row, column: column, message: message, hint: hint)
        if kind == .leftOut { leftOut.append(found) } else { problems.append(found) }
    }

    mutating func run() -> XLSFormImport {
        guard let surveySheet = workbook.sheet("survey") else {
            problem(
                .error, nil, nil, nil, "the workbook has no 'survey' sheet",
                "an XLSForm's questions are on a sheet named 'survey'; the sheets here are: \(workbook.sheets.map(\.name).joined(separator: ", "))"
            )
            return XLSFormImport(id: fallbackId, files: [:], problems: problems, leftOut: leftOut, questionnaire: nil)
        }
        for sheet in workbook.sheets where !Workbook.formSheets.contains(sheet.name.lowercased()) {
            let unsupported = sheet.name.lowercased() == "osm"
            problem(
                unsupported ? .unsupported : .leftOut, sheet.name, nil, nil,
                unsupported
                    ? "the '\(sheet.name)' sheet has no Intake equivalent"
                    : "the sheet '\(sheet.name)' is not part of an XLSForm and is not read")
        }
        for sheet in workbook.sheets where !sheet.formulas.isEmpty {
            let shown = sheet.formulas.prefix(5).joined(separator: ", ") + (sheet.formulas.count > 5 ? ", …" : "")
            problem(
                .leftOut, sheet.name, nil, nil,
                "\(sheet.formulas.count) cell\(sheet.formulas.count == 1 ? " holds a formula" : "s hold formulas") (\(shown)); the value\(sheet.formulas.count == 1 ? "" : "s") Excel saved with \(sheet.formulas.count == 1 ? "it is" : "them are") read, as pyxform reads them",
                "check those cells say what you mean; a formula Excel never calculated reads as empty")
        }
        let surveyRows = readable(surveySheet)
        survey = Columns(surveyRows.first, sheet: "survey")
        for column in ["type", "name"] where survey.first(column) == nil {
            problem(
                .error, "survey", surveyRows.first?.number, nil, "the survey sheet has no '\(column)' column",
                "the first row of the survey sheet names its columns: type, name, label, …")
        }
        if survey.first("type") == nil || survey.first("name") == nil {
            return XLSFormImport(id: fallbackId, files: [:], problems: problems, leftOut: leftOut, questionnaire: nil)
        }
        var choiceRows: [Sheet.Row] = []
        if let sheet = workbook.sheet("choices") { choiceRows = readable(sheet) }
        choiceColumns = Columns(choiceRows.first, sheet: workbook.sheet("choices")?.name ?? "choices")
        let settings = readSettings()
        settingsCaseLines = settings.intake.filter { $0.hasPrefix("case:") }.map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }
        // The followed case's yes/no and multiple-choice properties read as questions of those kinds do.
        for line in settingsCaseLines {
            // As cases.txt is read: `Property : flag YesNo|identifying` too.
            guard let colon = line.firstIndex(of: ":"), line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "property"
            else { continue }
            let value = line[line.index(after: colon)...].prefix { $0 != "|" }
            let words = value.split(whereSeparator: \.isWhitespace)
            guard words.count >= 2 else { continue }
            let type = String(words[1].lowercased().prefix { $0.isLetter })
            if type == "yesno" { names.yesNo.insert("case.\(words[0])") }
            if type == "multiple" { names.multiple.insert("case.\(words[0])") }
        }
        readLanguages(settings: settings)
        readChoices(Array(choiceRows.dropFirst()))
        readEntities()
        if let external = workbook.sheet("external_choices") {
            // ODK's external choices (`select_one_external`, searched on the phone) are a list like
            // any other to Intake, filtered by the same columns.
            let rows = readable(external)
            externalColumns = Columns(rows.first, sheet: external.name)
            readChoices(Array(rows.dropFirst()), columns: externalColumns, external: true)
        }
        let rows = Array(surveyRows.dropFirst())
        let tree = buildTree(rows)
        scanNames(tree)
        writeSections(tree, title: settings.title)
        let id = settings.id
        writeManifest(id: id, settings: settings)
        writeLists()
        writeCases()
        let questionnaire = load()
        return XLSFormImport(id: id, files: files.mapValues(\.text), problems: problems, leftOut: leftOut, questionnaire: questionnaire)
    }

    /// Loads the files with Intake's own loader. What it refuses in a form pyxform took is what
    /// Intake's form language cannot hold (a question shown before the one it reads, a third
    /// level of repeats, a comparison with a choice the list lacks): each is reported, as
    /// unsupported, at the cell its line came from, and the line is left out for a partial
    /// import, until the rest loads.
    mutating func load() -> Questionnaire? {
        guard files.keys.contains(where: { $0.first?.isNumber == true }) else { return nil }  // said already
        var reported: Set<String> = []
        for _ in 0..<12 {
            dropEmptySections()
            guard files.keys.contains(where: { $0.first?.isNumber == true }) else { return nil }
            let texts = files.mapValues(\.text)
            do {
                let sections = texts.filter {
                    $0.key == "manifest.txt" || $0.key == CaseRules.fileName || $0.key.first?.isNumber == true
                }
                let lists = texts.filter { sections[$0.key] == nil }
                return try QuestionnaireLoader.load(QuestionnaireFiles(directory: "import", texts: sections, lists: lists))
            } catch {
                var drops: [String: Set<Int>] = [:]
                for diagnostic in error.diagnostics {
                    let fileName = (diagnostic.path as NSString).lastPathComponent
                    let key =
                        "\(fileName):\(files[fileName].flatMap { file in diagnostic.line.flatMap { $0 >= 1 && $0 <= file.lines.count ? file.lines[$0 - 1].row : nil } } ?? 0):\(diagnostic.message)"
                    if reported.insert(key).inserted { report(diagnostic) }
                    guard let number = diagnostic.line, let file = files[fileName], number >= 1, number <= file.lines.count,
                        !file.lines[number - 1].text.hasPrefix("@title")
                    else {
                        continue
                    }
                    // A translation's line is left out with its base line (drop takes both).
                    let parts = fileName.split(separator: ".")
                    if parts.count == 3, let base = files["\(parts[0]).txt"] {
                        let line = file.lines[number - 1]
                        if let index = base.lines.firstIndex(where: line.isCounterpart) {
                            drops["\(parts[0]).txt", default: []].insert(index)
                        }
                        continue
                    }
                    drops[fileName, default: []].insert(number - 1)
                }
                guard !drops.isEmpty else { return nil }
                for (fileName, indexes) in drops {
                    drop(indexes, of: fileName)
                }
            }
        }
        return nil
    }

    /// Leaves out the sections that lines left out have emptied, numbering the rest again.
    private mutating func dropEmptySections() {
        let sections = files.keys.filter { $0.first?.isNumber == true && $0.split(separator: ".").count == 2 }
        let empty = sections.filter { name in files[name]!.lines.allSatisfy { $0.text.hasPrefix("@title") } }
        guard !empty.isEmpty else { return }
        for name in empty {
            let stem = (name as NSString).deletingPathExtension
            for key in files.keys where key == name || key.hasPrefix(stem + ".") { files[key] = nil }
        }
        let kept = sections.filter { !empty.contains($0) }.sorted { Int($0.prefix { $0.isNumber })! < Int($1.prefix { $0.isNumber })! }
        for (number, name) in zip(1..., kept) {
            let old = Int(name.prefix { $0.isNumber })!
            guard old != number else { continue }
            let rest = name.drop { $0.isNumber }
            for key in files.keys where key.hasPrefix("\(old)\(rest.dropLast(4)).") {
                files["\(number)" + key.drop { $0.isNumber }] = files.removeValue(forKey: key)
            }
        }
    }

    /// Leaves lines out of a file, and the same rows' lines out of its translations.
    private mutating func drop(_ indexes: Set<Int>, of fileName: String) {
        guard var file = files[fileName] else { return }
        let indexes = indexes.filter { file.lines.indices.contains($0) }
        let rows = indexes.map { file.lines[$0] }
        for index in indexes.sorted(by: >) { file.lines.remove(at: index) }
        files[fileName] = file
        let stem = (fileName as NSString).deletingPathExtension
        for (name, var translation) in files
        where name != fileName && name.hasPrefix(stem + ".") && name.hasSuffix(".txt") && name.split(separator: ".").count == 3 {
            for line in rows {
                if let index = translation.lines.firstIndex(where: line.isCounterpart) {
                    translation.lines.remove(at: index)
                }
            }
            files[name] = translation
        }
    }

    /// A sheet's rows from its first that holds something, as pyxform reads them: after more
    /// than 60 empty rows in a row it reads no further, and neither does Intake (saying so).
    mutating func readable(_ sheet: Sheet) -> [Sheet.Row] {
        let rows = sheet.rows.drop { $0.isEmpty }
        var result: [Sheet.Row] = []
        var last: Int?
        for row in rows where !row.isEmpty {
            if let last, row.number - last - 1 > 60 {
                problem(
                    .leftOut, sheet.name, row.number, nil,
                    "the rows from here on follow more than 60 empty rows and are not read, as pyxform does not read them",
                    "delete the empty rows if these belong to the form")
                break
            }
            result.append(row)
            last = row.number
        }
        return result
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
        let rows = readable(sheet)
        let columns = Columns(rows.first, sheet: sheet.name)
        guard let values = rows.dropFirst().first else { return settings }
        for column in columns.columns {
            let value = values[column.index].trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { continue }
            switch column.field {
            case "form_id":
                if value.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
                }) {
                    settings.id = value
                } else {
                    // pyxform takes dots and more; Intake's id is a folder's and a URL's name.
                    var clean = String(
                        value.unicodeScalars.map {
                            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") ? Character($0) : "_"
                        })
                    if clean.allSatisfy({ $0 == "_" }) { clean = fallbackId }
                    problem(
                        .leftOut, sheet.name, values.number, column.shown,
                        "the form_id '\(value)' is not an Intake id (letters, digits, '-' and '_'); the questionnaire's id is '\(clean)'",
                        "rename it in the settings if you want another")
                    settings.id = clean
                }
            case "form_title" where column.language == nil: settings.title = value
            case "version": settings.version = value
            case "default_language": settings.defaultLanguage = value
            case "intake": settings.intake = value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            case "public_key":
                problem(
                    .leftOut, sheet.name, values.number, column.shown, "records are not encrypted with the form's public key",
                    "Intake seals records on the device and stores them on your own server; ODK's per-form key has no equivalent")
            case "name":
                rootName = value
                problem(.leftOut, sheet.name, values.number, column.shown, "the setting 'name' has no effect in Intake")
            case "allow_choice_duplicates" where ["yes", "true", "true()", "1"].contains(value.lowercased()):
                allowChoiceDuplicates = true
            case "name", "style", "instance_name", "submission_url", "allow_choice_duplicates", "clean_text_values", "namespaces",
                "auto_send", "auto_delete", "form_title":
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
        for column in survey.columns + choiceColumns.columns
        where ["label", "hint", "constraint_message", "required_message", "intake"].contains(column.field) {
            if column.field == "intake" && column.language == nil { continue }
            if !keys.contains(column.language) { keys.append(column.language) }
        }
        for (columns, sheet) in [(survey, "survey"), (choiceColumns, choiceColumns.sheet)] {
            for column in columns.duplicates() {
                problem(
                    .error, sheet, 1, column.shown, "the column '\(column.header)' appears twice",
                    "delete one of them: pyxform refuses the form too")
            }
        }
        var defaultCode: String?
        if let named = settings.defaultLanguage {
            defaultCode = Languages.code(of: named)
            if defaultCode == nil {
                problem(
                    .unsupported, "settings", 2, "default_language", "the default language '\(named)' has no language code Intake can use",
                    "write it with its code, as 'English (en)'")
            }
        }
        for key in keys {
            guard let key else {
                codes[nil] = defaultCode ?? "en"
                continue
            }
            if let code = Languages.code(of: key) {
                // The form's own name for the language, kept where it is not Intake's usual one.
                let name = key.lastIndex(of: "(").map { String(key[..<$0]).trimmingCharacters(in: .whitespaces) } ?? key
                if !name.isEmpty, name != code, name != Languages.names[code], languageNames[code] == nil { languageNames[code] = name }
            }
            guard let code = Languages.code(of: key) else {
                problem(
                    .unsupported, "survey", 1, nil, "the language '\(key)' has no code Intake can use; its columns are not read",
                    "name it with its code in brackets, as ODK does: 'label::\(key) (xx)', e.g. 'label::Arabic (ar)'")
                continue
            }
            codes[key] = code
        }
        var ordered: [String] = []
        for key in keys {
            if let code = codes[key], !ordered.contains(code) { ordered.append(code) }
        }
        if keys.contains(where: { $0 == nil }) {
            // `label` beside `label::English (en)`: pyxform reads the first as a language of its
            // own ("default"); Intake reads both as English, the named column's text first.
            let clash = keys.filter { $0 != nil && codes[$0] == codes[nil] }.compactMap { $0 }
            if let named = clash.first {
                problem(
                    .leftOut, "survey", 1, nil,
                    "the columns without a language and those for '\(named)' are both read as \(codes[nil]!); where both hold a text, '\(named)' is used",
                    "give every label column its language, or set default_language, if the columns without one are another language")
            }
        }
        let baseCode =
            defaultCode.flatMap { code in ordered.contains(code) ? code : nil } ?? (keys.contains(where: { $0 == nil }) ? codes[nil] : nil)
            ?? ordered.first ?? "en"
        languages = [baseCode] + ordered.filter { $0 != baseCode }
    }

    /// A field's texts by language code, one row.
    mutating func texts(_ field: String, _ columns: Columns, _ row: Sheet.Row) -> [String: String] {
        var result: [String: String] = [:]
        for column in columns.all(field) {
            let value = row[column.index].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, let code = codes[column.language] else { continue }
            // A column named for the language wins over one without (`label` beside `label::English (en)`).
            if column.language == nil, result[code] != nil { continue }
            if value.contains(where: \.isNewline) {
                problem(
                    .leftOut, columns.sheet, row.number, column.shown,
                    "the text spans several lines; Intake's texts are one line each, so its lines are joined")
                result[code] = value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
                    separator: " ")
                continue
            }
            result[code] = value
        }
        return result
    }

    // MARK: Choices

    mutating func readChoices(_ rows: [Sheet.Row], columns choiceColumns: Columns? = nil, external: Bool = false) {
        guard !rows.isEmpty else { return }
        let choiceColumns = choiceColumns ?? self.choiceColumns
        let sheet = choiceColumns.sheet
        guard let listColumn = choiceColumns.first("list_name"), let nameColumn = choiceColumns.first("name") else {
            // pyxform reads such a sheet as holding no list; a select that names one is refused below.
            problem(
                .leftOut, sheet, 1, nil, "the \(sheet) sheet has no 'list_name' and 'name' columns, so it holds no list",
                "its first row names its columns: list_name, name, label")
            return
        }
        let known: Set<String> = ["list_name", "name", "label", "intake"]
        for column in choiceColumns.columns
        where !known.contains(column.field) && ["image", "audio", "video", "big-image", "media"].contains(column.field) {
            problem(
                .leftOut, sheet, 1, column.shown,
                "the choices' pictures or sounds are not shown: Intake shows choices by their labels (a choice without one, by its name)")
        }
        var seen: [String: Set<String>] = [:]
        for row in rows where !row.isEmpty {
            let list = row[listColumn.index].trimmingCharacters(in: .whitespaces)
            var code = row[nameColumn.index].trimmingCharacters(in: .whitespaces)
            guard !list.isEmpty else {
                // pyxform passes over a row without a list: no question can use it.
                problem(
                    .leftOut, sheet, row.number, listColumn.shown, "the row has no list_name, so no question can use it; it is not read")
                continue
            }
            guard !code.isEmpty else {
                problem(
                    .error, sheet, row.number, nameColumn.shown, "the choice has no name",
                    "every choice of a list has a name, its code (pyxform refuses the form too)")
                continue
            }
            guard seen[list, default: []].insert(code).inserted else {
                if allowChoiceDuplicates || external {  // pyxform checks neither
                    problem(
                        .unsupported, sheet, row.number, nameColumn.shown,
                        "the list '\(list)' has the choice '\(code)' twice (allow_choice_duplicates); an Intake answer names one choice",
                        "give the choice its own name, or import with --partial to keep only the first '\(code)'")
                } else {
                    problem(
                        .error, sheet, row.number, nameColumn.shown, "the list '\(list)' has the choice '\(code)' twice",
                        "give each choice of a list its own name (pyxform refuses the form too, unless its settings allow_choice_duplicates)"
                    )
                }
                continue
            }
            if !Questionnaire.isChoiceCode(code) {
                // XLSForm takes any name (`24/7`, `père`); an Intake code is ASCII letters, digits,
                // '_', '-' and '.': the choice is coded so, and every comparison with it follows.
                var renamed = ChoiceListName.suggestion(
                    code.folding(options: [String.CompareOptions.diacriticInsensitive, .widthInsensitive], locale: nil))
                while seen[list, default: []].contains(renamed) || !Questionnaire.isChoiceCode(renamed) { renamed += "_" }
                problem(
                    .leftOut, sheet, row.number, nameColumn.shown,
                    "the choice name '\(code)' is not an Intake code (letters, digits, '_', '-' and '.'); Intake codes it '\(renamed)', and reads comparisons with '\(code)' as it"
                )
                codeRenames[list, default: [:]][code] = renamed
                code = renamed
                seen[list, default: []].insert(renamed)
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

        /// Whether `other` is this line in another language's file: the same row, the same kind
        /// of line (a question, `@end`).
        func isCounterpart(_ other: Line) -> Bool {
            guard other.row == row else { return false }
            guard text.hasPrefix("@") else { return !other.text.hasPrefix("@") }
            return other.text.hasPrefix(String(text.prefix { $0 != " " }))
        }
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
        // A line Intake wrote from the form that its loader refuses: the form says what Intake's
        // language cannot (pyxform took it), so it is unsupported, and left out of a partial import.
        problem(line.text.hasPrefix("@title") ? .error : .unsupported, line.sheet, line.row, column, diagnostic.message, diagnostic.hint)
    }
}
