import Foundation
import IntakeCore

/// The codebook for people: how missing answers are marked, then a table of every column.
public final class CodebookMarkdownFormatter: ExportFormatter {
    let plan: ExportPlan
    let generatedAt: Date

    public init(plan: ExportPlan, generatedAt: Date = Date()) {
        self.plan = plan
        self.generatedAt = generatedAt
    }

    public func header() -> String {
        let newest = plan.versions[plan.versions.count - 1]
        let code = plan.options.unansweredCode
        var out = """
            # Codebook: \(newest.title.base) (`\(plan.questionnaireId)`)

            Generated \(Timestamp.string(from: generatedAt)) by Intake. Versions in this export, oldest first: \
            \(plan.versions.map { "`\($0.version)`" }.joined(separator: ", ")).

            ## Reading the data

            - `records.csv` has one row per record and one column per question (the union of all versions; \
            a question removed in a later version keeps its column). Each record fills the columns of its own version.
            - **Empty cell: not asked.** The question was hidden by its show-if condition, or is not part of the \
            record's questionnaire version.
            - **`\(code)`: asked, no answer.** The question was shown but left unanswered (skipped, or the record is a draft).
            \(plan.options.rawCells ? "- **Cells are raw** (`--raw-cells`): text is written exactly as collected. A cell that starts with `=`, `+`, `-` or `@` may run as a formula when opened in a spreadsheet, and a text answer that is exactly `\(code)` cannot be told from \"asked, no answer\".\n" : "- **A leading `'` is an escape; remove one to read the value.** It is added to collected text that a spreadsheet could run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return and is not a plain number), to a text answer that is exactly `\(code)`, and to text that already starts with `'`. So a bare `\(code)` is always \"asked, no answer\". Export with `--raw-cells` to turn this off.\n")\
            - Yes/no answers are `1` (yes) and `0` (no). A multiple-choice question has one `0`/`1` column per choice. \
            A compound question has one column per field. Dates are `YYYY-MM-DD`; times are UTC, ISO 8601.
            - Identifiers are \(plan.options.includeIdentifiers ? "**included**" : "left out"); `patient_key` links the records \
            of one patient (a keyed hash of the folded names and date of birth). \
            \(plan.options.dropFreeText ? "Free-text answers are left out." : "Free-text answers are included and may contain names or places.")
            \(identifyingNote)\(plan.options.shiftDates ? "- **Dates are shifted**: every date and time of a patient's records is moved back by the same secret number of days (1 to 365), so intervals within a patient are kept but calendar dates are not real. `age_years` is computed before shifting.\n" : "")\
            - `records_long.csv` has one row per answer (one per chosen code, one per compound field), keyed by section and index.
            - `records.sav` (SPSS), `records.dta` (Stata 14+) and `records.xlsx` (Excel: a sheet per table and this codebook) \
            hold the same values, typed: yes/no and multiple-choice columns are 0/1 labelled No/Yes, single-choice codes that are \
            whole numbers are numbers labelled with their choices (other codes are text), dates are dates. Not asked is empty \
            (system-missing, `.` in Stata); asked, no answer is `\(code)` in text, and in numbers the SPSS user-missing value \
            `\(ExportPlan.number(SAVWriter.unansweredNumber(code: code)))` (labelled "asked, not answered") and Stata's `.a`. \
            Their text is exactly as collected (no leading `'`: an Excel text cell is never a formula). A name SPSS or Stata \
            does not accept is changed: the codebook sheet of records.xlsx gives each column's `sav_name` and `dta_name`.


            """
        out +=
            "## Columns\n\n| column | type | question | values | range | show if | calculated as | rules | versions |\n|---|---|---|---|---|---|---|---|---|\n"
        for entry in CodebookEntry.entries(plan) {
            let cells = [
                "`\(entry.column.name)`", entry.typeName, entry.label(in: nil), entry.choiceList(in: nil), entry.range, entry.showIf,
                entry.calculation, entry.rules,
                entry.versions.map { "\($0.version.prefix(8))@\($0.position)" }.joined(separator: " "),
            ]
            out += "| " + cells.map(Self.escaped).joined(separator: " | ") + " |\n"
        }
        if let columns = plan.caseColumns { out += caseSection(columns) }
        return out
    }

    /// The case files' columns (`cases.csv`, `case_history.csv`, and their .sav, .dta and sheets),
    /// and what this questionnaire's versions set each property to.
    func caseSection(_ columns: ExportCaseColumns) -> String {
        var setBy: [String: [String]] = [:]
        for version in plan.versions {
            let rules = version.cases
            var assignments = rules.opens.flatMap { opening in
                opening.assignments.map { ($0.property, "opening `\(opening.list)`: `\($0.value)`") }
            }
            if let follows = rules.follows {
                assignments += follows.assignments.map { ($0.property, "visit of `\(follows.list)`: `\($0.value)`") }
            }
            for (property, text) in assignments where !(setBy[property]?.contains(text) ?? false) {
                setBy[property, default: []].append(text)
            }
        }
        var out = """

            ## Case files

            `cases.csv` has one row per case of the lists \(columns.lists.map { "`\($0)`" }.joined(separator: ", ")) (open and \
            closed), its patient keyed\(plan.options.shiftDates ? " and its dates moved" : "") as the records' are; `case_history.csv` one row per change to a \
            case's properties, status or due date, in the order made (by the opening record, a visit, or a coordinator by \
            hand). Their values are written as the records' are (yes/no as `1`/`0`, dates `YYYY-MM-DD`, choices by code). \
            When the export has the statistics files, each has its own `.sav` and `.dta` (`cases.sav`, \
            `case_history.dta`, …) and a sheet in records.xlsx (when it fits one: Excel holds 1,048,575 rows): a property is a number there when every value is a number \
            written plainly, a date when every value is a date, and text otherwise. \
            \(columns.dueLeftOut ? "The due date is left out: it is worked out from an identifying answer. " : "")\
            Properties set from identifying answers are \(plan.options.includeIdentifiers ? "included" : "left out")\
            \(plan.options.dropFreeText ? ", and those set from free text are left out" : "").

            | file | column | type | holds |
            |---|---|---|---|

            """
        func rows(_ names: [String], in file: ExportSideFile) {
            for name in names {
                var holds = ExportCaseColumns.description(of: name, in: file)
                if name.hasPrefix("prop_"), let sets = setBy[String(name.dropFirst(5))] {
                    holds += "; set by this questionnaire's " + sets.joined(separator: ", ")
                }
                let type = ExportCaseColumns.fixedColumnTypes[name]?.rawValue ?? (name.hasPrefix("prop_") ? "property" : "string")
                out += "| " + [file.fileName, "`\(name)`", type, holds].map(Self.escaped).joined(separator: " | ") + " |\n"
            }
        }
        rows(columns.caseColumns(includeIdentifiers: plan.options.includeIdentifiers), in: .cases)
        rows(ExportCaseColumns.historyColumns, in: .caseHistory)
        return out
    }

    /// Which questions this export leaves out as identifying, or that identifying ones are in it.
    var identifyingNote: String {
        if plan.options.includeIdentifiers {
            let included = plan.questions.filter { $0.appearances.contains { $0.question.isIdentifying } }.map { "`\($0.key)`" }
            return included.isEmpty ? "" : "- **Identifying answers are included**: " + included.joined(separator: ", ") + ".\n"
        }
        guard !plan.leftOutAsIdentifying.isEmpty else { return "" }
        let listed = plan.leftOutAsIdentifying.map { "`\($0.question.key)` (\($0.question.text.base))" }
        return "- **Left out as identifying** (marked `identifying` in the questionnaire; only an export with identifiers has them): "
            + listed.joined(separator: ", ") + ".\n"
    }

    public func row(_ record: ExportRecord) -> String { "" }
    public var readsRecords: Bool { false }
    public func footer() -> String { "" }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
