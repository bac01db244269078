import Foundation
import IntakeCore

/// Gathers an export's tables for the statistics files (`records.sav`, `records.dta`,
/// `records.xlsx`, see ``StatisticsFiles``), which cannot be written as the records pass: a
/// .sav or .dta header holds every variable's type and width and the number of cases. So this
/// formatter keeps each record's cells on disk (``StatisticsSpool``: the wide table, and each
/// repeat's table for the .xlsx and the repeats' own files), learning meanwhile what each
/// column's values allow (``ColumnFacts``), and ``FolderExport`` writes the files after the run
/// from the spools, a row at a time. Its memory does not grow with the records.
public final class StatisticsCollector: RowFormatter {
    let plan: ExportPlan
    /// The wide table's rows: a cell per column of the plan.
    let records: StatisticsSpool
    /// The repeat tables, each with its rows: its key cells, then a cell per column.
    let repeatTables: [RepeatTableFormatter]
    let repeatRows: [StatisticsSpool]

    /// Whether records.xlsx is asked for: the export is refused as soon as it outgrows what Excel opens.
    let workbook: Bool

    /// The spools go in `folder` (the export's staging folder, readable by its owner only).
    /// `repeats`: also gather the repeats' own tables. `workbook`: records.xlsx is asked for.
    init(plan: ExportPlan, repeats: Bool = true, folder: URL, workbook: Bool = false) throws(ExportError) {
        self.plan = plan
        self.workbook = workbook
        if workbook { try StatisticsFiles.checkWorkbook(records: 0, columns: plan.columns.count, longestRepeat: 0) }
        let sentinel = SAVWriter.unansweredNumber(code: plan.options.unansweredCode)
        records = try StatisticsSpool(url: folder.appendingPathComponent(".records.spool"), columns: plan.columns.count, sentinel: sentinel)
        repeatTables = repeats ? plan.repeatTables.map { RepeatTableFormatter(plan: plan, table: $0) } : []
        var spools: [StatisticsSpool] = []
        for (number, formatter) in repeatTables.enumerated() {
            let table = formatter.table
            spools.append(
                try StatisticsSpool(
                    url: folder.appendingPathComponent(".repeat-\(number).spool"),
                    columns: table.keyColumnNames.count + table.columns.count,
                    sentinel: sentinel))
        }
        repeatRows = spools
    }

    public func header() -> String { "" }
    public func footer() -> String { "" }

    public func row(_ record: ExportRecord) throws(ExportError) -> String {
        try collect(try ExportRow(record, plan: plan))
        return ""
    }

    func write(_ row: ExportRow, into out: inout [UInt8]) throws(ExportError) { try collect(row) }

    var recordCount: Int { records.rowCount }

    private func collect(_ row: ExportRow) throws(ExportError) {
        var cells = [CellValue?](repeating: nil, count: records.columnCount)
        plan.eachValue(of: row) { index, value in cells[index] = value }
        try records.append(cells)
        for (number, table) in repeatTables.enumerated() {
            let spool = repeatRows[number]
            let keyCount = table.table.keyColumnNames.count
            var failure: ExportError?
            table.eachRow(of: row) { keys, values in
                guard failure == nil else { return }
                var cells: [CellValue?] = (0..<keyCount).map { $0 < keys.count ? .plain(keys[$0]) : nil }
                cells += values
                do throws(ExportError) { try spool.append(cells) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        if workbook {
            try StatisticsFiles.checkWorkbook(
                records: records.rowCount, columns: records.columnCount, longestRepeat: repeatRows.map(\.rowCount).max() ?? 0)
        }
    }

    /// Writes what the spools hold; after the run.
    func finish() throws(ExportError) {
        try records.finish()
        for spool in repeatRows { try spool.finish() }
    }

    /// Removes the spools.
    func remove() {
        records.remove()
        for spool in repeatRows { spool.remove() }
    }
}

/// A table as the .sav and .dta files hold it: typed variables, each with its label and value
/// labels, and its rows, read from a spool (a cell per variable, typed by ``StatisticsVariable/value(_:)``).
///
/// A column's type follows the plan (``ColumnType``) and is checked against the values, so a
/// file never holds a value it cannot: yes/no and multiple-choice columns are 0/1 numbers
/// labelled No/Yes; a single-choice column whose codes (and values) are all whole numbers is a
/// number labelled with the choices, other choice columns are text (labelled in the .sav; Stata
/// labels only whole numbers); integers and decimals are numbers; dates are dates (a count of
/// days here, each writer moving it to its own epoch); times are ISO 8601 text, exactly as in
/// the CSV. A column whose values do not all fit its type (a version changed it) is text.
struct StatisticsTable {
    var variables: [StatisticsVariable]
    /// The rows, a cell per variable.
    var rows: StatisticsSpool
    var rowCount: Int { rows.rowCount }
    /// For the files' own labels.
    var questionnaireId: String
    /// "Asked, not answered" in a text variable (see ``StatisticsValue/unanswered``).
    var unansweredCode: String

    init(variables: [StatisticsVariable], rows: StatisticsSpool, questionnaireId: String, unansweredCode: String) {
        self.variables = variables
        self.rows = rows
        self.questionnaireId = questionnaireId
        self.unansweredCode = unansweredCode
    }

    /// The wide table of what `collector` gathered.
    init(_ collector: StatisticsCollector) {
        let plan = collector.plan
        let facts = collector.records.facts
        variables = CodebookEntry.entries(plan).enumerated().map { index, entry in
            StatisticsVariable(entry: entry, facts: index < facts.count ? facts[index] : ColumnFacts())
        }
        rows = collector.records
        questionnaireId = plan.questionnaireId
        unansweredCode = plan.options.unansweredCode
    }

    /// The table of the repeat `number` of `collector.repeatTables` (as `repeat_<id>.csv`): its key
    /// columns (`record_id`, the outer instance for a repeat in a repeat, `instance`), then a
    /// variable per part of each question asked in it, labelled with the question (and part or
    /// choice) and typed as the wide table's.
    init(repeat number: Int, of collector: StatisticsCollector) {
        let plan = collector.plan
        let table = collector.repeatTables[number].table
        let facts = collector.repeatRows[number].facts
        var variables: [StatisticsVariable] = []
        for (index, name) in table.keyColumnNames.enumerated() {
            let column = ExportColumn(name: name, type: index == 0 ? .string : .integer, source: .meta(index == 0 ? .recordId : .revision))
            var variable = StatisticsVariable(column: column, label: "", codes: [], choices: nil, facts: facts[index])
            variable.label =
                index == 0
                ? "The record's id" : (name == "parent_instance" ? "The outer repeat's instance (from 1)" : "The instance (from 1)")
            variables.append(variable)
        }
        let keyCount = table.keyColumnNames.count
        for (index, column) in table.columns.enumerated() {
            var label = column.name
            var choices: ChoiceSet?
            if case .answer(let key, let path) = column.source, let question = plan.questions.first(where: { $0.key == key })?.latest {
                label = question.text.base
                var type = question.type
                for step in path {
                    switch step {
                    case .field(let field):
                        if case .compound(let parts) = type, let part = parts.first(where: { $0.key == field }) {
                            label += ": " + part.label.base
                            type = part.type
                        }
                    case .choice(let code): label += ": " + (type.choices?.choice(code: code)?.label.base ?? code)
                    case .instance: break
                    }
                }
                if !path.contains(where: { if case .choice = $0 { true } else { false } }) { choices = type.choices }
            }
            variables.append(
                StatisticsVariable(
                    column: column, label: label, codes: plan.codes(of: column), choices: choices, facts: facts[keyCount + index]))
        }
        self.variables = variables
        rows = collector.repeatRows[number]
        questionnaireId = plan.questionnaireId
        unansweredCode = plan.options.unansweredCode
    }

    /// "Intake export: <questionnaire>", for the files' labels.
    var fileLabel: String { "Intake export: \(questionnaireId)" }

    /// The bytes a text variable holds for `value`: the text (cut, between characters, to at
    /// most `limit` bytes), the unanswered code, a number as the CSV writes it, or nothing.
    func textBytes(_ value: StatisticsValue, atMost limit: Int = .max) -> [UInt8] {
        switch value {
        case .text(let text): Array((text.utf8.count > limit ? text.truncated(bytes: limit) : text).utf8)
        case .unanswered: Array(unansweredCode.utf8)
        case .number(let number): Array(ExportPlan.number(number).utf8)
        case .empty: []
        }
    }
}

/// One cell of a statistics table.
enum StatisticsValue: Equatable {
    /// Not asked: hidden by show-if, or not in the record's version (an empty CSV cell).
    case empty
    /// Asked and not answered (the CSV's unanswered code): in a numeric variable an SPSS
    /// user-missing value and Stata's `.a`; in a text variable the code itself.
    case unanswered
    /// A number; for a date, days since 1970-01-01.
    case number(Double)
    case text(String)
}

struct StatisticsVariable {
    enum Kind: Equatable {
        /// 0 or 1, labelled No/Yes.
        case indicator
        /// A single choice's whole-number code, labelled with the choices.
        case code
        case integer
        case number
        /// Days since 1970-01-01.
        case date
        case text
    }

    /// The column's name in records.csv; each file makes it a name it accepts.
    var column: String
    /// The question (and field, choice and instance) the column holds, as the codebook says it.
    var label: String
    var kind: Kind
    /// What the column's values allow, and the room they need.
    var facts: ColumnFacts
    /// For `.indicator` and `.code`.
    var numberLabels: [(value: Double, label: String)] = []
    /// For a `.text` single-choice column: its codes and their labels.
    var textLabels: [(value: String, label: String)] = []
    /// Whether the column holds an answer (rather than a property of the record).
    var isAnswer = true

    var isNumeric: Bool { kind != .text }

    /// Whether some record left the question unanswered.
    var hasUnanswered: Bool { facts.unanswered }

    /// Whether a value of this numeric variable is the unanswered code's number (the facts'
    /// sentinel), which then cannot stand for "asked, not answered".
    var holdsUnansweredNumber: Bool {
        switch kind {
        case .indicator, .integer, .number: facts.sentinelAsNumber
        case .code: facts.sentinelAsCode
        case .date: facts.sentinelAsDate
        case .text: false
        }
    }

    /// The most UTF-8 bytes a value of a text variable has (the unanswered code counting where
    /// it is written; each text cut to SPSS's longest if `inSPSS`), and at least the longest
    /// labelled code, so every code's label has its value (SPSS labels only values a variable
    /// can hold); at least 1.
    func textWidth(unansweredCode: String, inSPSS: Bool = false) -> Int {
        var width = max(1, textLabels.map(\.value.utf8.count).max() ?? 1)
        width = max(width, inSPSS ? facts.longestInSPSS : facts.longest)
        if facts.unanswered { width = max(width, unansweredCode.utf8.count) }
        return width
    }

    /// The variable of one wide-table column, typed from the plan and checked against its values' `facts`.
    init(entry: CodebookEntry, facts: ColumnFacts) {
        self.init(
            column: entry.column, label: entry.label(in: nil), codes: entry.codes,
            choices: entry.choice == nil ? entry.partType?.choices : nil, facts: facts)
    }

    /// The variable of a column (of the wide table or a repeat's), typed from its
    /// ``ColumnType`` and checked against what its values allow (`facts`); `codes` are a
    /// single-choice column's codes and `choices` their labels.
    init(column: ExportColumn, label: String, codes: [String], choices: ChoiceSet?, facts: ColumnFacts) {
        self.column = column.name
        self.label = label
        self.facts = facts
        if case .answer = column.source {} else { isAnswer = false }
        var kind: Kind
        switch column.type {
        case .indicator: kind = facts.indicators ? .indicator : .text
        // Numbers every file keeps exactly: an integer within Excel's 15 significant digits (a
        // double's 2^53 is larger), a number short of the values SPSS and Stata read as missing.
        // A column with one that is not is text, as the CSV writes it.
        case .integer: kind = facts.integers ? .integer : .text
        case .number: kind = facts.numbers ? .number : .text
        case .date: kind = facts.dates ? .date : .text
        case .datetime: kind = .text
        case .string: kind = !codes.isEmpty && codes.allSatisfy({ Self.wholeCode($0) != nil }) && facts.wholeCodes ? .code : .text
        }
        self.kind = kind
        switch kind {
        case .indicator: numberLabels = [(0, "No"), (1, "Yes")]
        case .code:
            numberLabels = codes.compactMap { code in
                Self.wholeCode(code).map { (Double($0), choices?.choice(code: code)?.label.base ?? code) }
            }
        case .text where column.type == .string && !codes.isEmpty:
            textLabels = codes.map { ($0, choices?.choice(code: $0)?.label.base ?? $0) }
        default: break
        }
    }

    /// A cell as this variable holds it (a cell its kind cannot read stays text, which the
    /// facts rule out).
    func value(_ cell: CellValue?) -> StatisticsValue {
        switch cell {
        case nil: return .empty
        case .unanswered?: return .unanswered
        case .text(let text)?, .plain(let text)?:
            switch kind {
            case .indicator, .integer, .number: return Self.plainNumber(text).map(StatisticsValue.number) ?? .text(text)
            case .code: return Self.wholeCode(text).map { .number(Double($0)) } ?? .text(text)
            case .date: return LocalDate(iso: text).map { .number(Double(Self.daysSince1970($0))) } ?? .text(text)
            case .text: return .text(text)
            }
        }
    }

    /// The number of text written as the export writes numbers (`-3`, `1.5`, `2.5e-05`): digits
    /// with an optional sign, fraction and exponent; nil for anything else (no `inf`, `nan` or hex).
    static func plainNumber(_ text: String) -> Double? {
        var text = text
        // Read in place (every cell of a numeric column passes here, twice); a whole number of
        // up to 15 digits is its digits' value, exactly what strtod gives; others go to strtod.
        let read: (valid: Bool, whole: Double?) = text.withUTF8 { bytes in
            var index = 0
            var whole: Double? = 0
            func digits() -> Int {
                let start = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    whole = whole.map { $0 * 10 + Double(bytes[index] - UInt8(ascii: "0")) }
                    index += 1
                }
                return index - start
            }
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let count = digits()
            guard count > 0 else { return (false, nil) }
            if count > 15 { whole = nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                whole = nil
                guard digits() > 0 else { return (false, nil) }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                whole = nil
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return (false, nil) }
            }
            guard index == bytes.count else { return (false, nil) }
            return (true, whole.map { negative ? -$0 : $0 })
        }
        guard read.valid else { return nil }
        if let whole = read.whole { return whole }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// A choice code that is a whole number written plainly (`3`, `-1`; not `03`, `+3` or `-0`), in
    /// the range a Stata `long` holds without reaching its missing values.
    static func wholeCode(_ text: String) -> Int? {
        var text = text
        // Its form first, in place: no sign but `-`, no leading zero (so `String(value) == text`).
        let plain = text.withUTF8 { bytes -> Bool in
            let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
            guard let first = digits.first, digits.count <= 10,
                digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return false }
            return first != UInt8(ascii: "0") || (digits.count == 1 && digits.count == bytes.count)
        }
        guard plain, let value = Int(text), (-2_147_483_647...2_147_483_620).contains(value) else { return nil }
        return value
    }

    static func daysSince1970(_ date: LocalDate) -> Int { Int(CivilDays.days(year: date.year, month: date.month, day: date.day)) }
}

/// Names the statistics programs accept, made from the CSV's column names: a change is recorded
/// in the xlsx's codebook sheet (`sav_name`, `dta_name`), and the variable label still says the question.
enum StatisticsNames {
    /// SPSS names (a letter first, at most 64 bytes, unique ignoring case, no reserved word):
    /// the rule records.sps follows, so both name a column alike.
    static func spss(_ columns: [String]) -> [String] { SPSSSyntaxFormatter.names(columns) }

    /// Stata's words that cannot name a variable.
    static let stataReserved: Set<String> = [
        "_all", "_b", "byte", "_coef", "_cons", "double", "float", "if", "in", "int", "long", "_n", "_N", "_pi", "_pred", "_rc",
        "_skip", "strL", "using", "with",
    ]

    /// Stata names: letters, digits and `_`, not starting with a digit, at most 32 characters,
    /// unique (ignoring case, so they stay unique wherever they go), no reserved word.
    static func stata(_ columns: [String]) -> [String] {
        var used = Set<String>()
        return columns.map { column in
            var name = String(column.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
            if name.first.map({ !($0.isLetter || $0 == "_") }) ?? true { name = "v" + name }
            if stataReserved.contains(name) || isStrType(name) { name += "_" }
            name = String(name.prefix(32))
            var candidate = name
            var suffix = 2
            while used.contains(candidate.lowercased()) || stataReserved.contains(candidate) {
                let tail = "_\(suffix)"
                candidate = String(name.prefix(32 - tail.count)) + tail
                suffix += 1
            }
            used.insert(candidate.lowercased())
            return candidate
        }
    }

    /// `str1` … `str2045`, which name Stata's string types.
    private static func isStrType(_ name: String) -> Bool {
        guard name.hasPrefix("str"), let width = Int(name.dropFirst(3)) else { return false }
        return (1...2045).contains(width)
    }

    /// SPSS's 8-byte short names (upper case, unique), one per name in `names` and one per
    /// extra segment in `extraSegments` (a very long string's segments after its first).
    static func spssShort(_ names: [String], extraSegments: [Int]) -> [[String]] {
        var used = Set<String>()
        // The next number to try after each start, so thousands of columns sharing one start
        // take one try each rather than a count from 1 each time.
        var next: [String: Int] = [:]
        func make(_ base: String) -> String {
            var upper = String(
                base.uppercased().unicodeScalars.filter { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }.map(
                    Character.init))
            // A short name starts with a letter, or readers rename the variable and lose its long name.
            if upper.first.map({ !$0.isLetter }) ?? true { upper = "V" + upper }
            var candidate = String(upper.prefix(8))
            var counter = next[candidate] ?? 1
            let start = candidate
            while used.contains(candidate) || SPSSSyntaxFormatter.reserved.contains(candidate) {
                let tail = "_" + String(counter, radix: 36, uppercase: true)
                candidate = String(upper.prefix(8 - tail.count)) + tail
                counter += 1
            }
            next[start] = counter
            used.insert(candidate)
            return candidate
        }
        return zip(names, extraSegments).map { name, extra in
            let first = make(name)
            return [first] + (0..<extra).map { _ in make(first) }
        }
    }
}

extension String {
    /// Without the spaces at its end (readers drop them from labels).
    var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }

    /// At most `bytes` bytes of UTF-8 (and, if given, `characters` characters), cut between characters.
    func truncated(bytes: Int, characters: Int = .max) -> String {
        guard utf8.count > bytes || count > characters else { return self }
        var out = ""
        var used = 0
        for (index, character) in enumerated() {
            let size = character.utf8.count
            if used + size > bytes || index >= characters { break }
            out.append(character)
            used += size
        }
        return out
    }
}
