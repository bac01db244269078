import Foundation
import IntakeCore

/// Gathers an export's tables for the statistics files (`records.sav`, `records.dta`,
/// `records.xlsx`, see ``StatisticsFiles``), which cannot be streamed as the text files are: a
/// .sav or .dta header holds every string's width and the number of cases, and an .xlsx is a
/// zip archive. So this formatter writes nothing while the records pass: it keeps every
/// record's cells in memory (one array per column of the wide table, and the repeat tables'
/// rows), and ``FolderExport`` writes the files after the run. An export too large for the
/// machine's memory is refused as it grows past ``memoryBudget``, with what to do instead,
/// rather than killed by the system (writing these files without holding the records would
/// need a second pass over them, or a spool on disk: not built).
public final class StatisticsCollector: RowFormatter {
    let plan: ExportPlan
    /// By column of the wide table, one value per record (nil: an empty cell).
    private(set) var columns: [[CellValue?]]
    private(set) var recordCount = 0
    /// The repeat tables (for the .xlsx), each with its rows: key cells, then a value per column.
    let repeatTables: [RepeatTableFormatter]
    private(set) var repeatRows: [[(keys: [String], values: [CellValue?])]]
    /// About the export's peak memory for the cells gathered so far: each cell counted twice,
    /// gathered here and again in the table the files are made from (``estimate(_:)``; 1,485 MB
    /// estimated for 100,000 bench records and their 1.45 million repeat instances, whose
    /// records.sav export peaked at 1,441 MB).
    private(set) var heldBytes = 0
    /// The most ``heldBytes`` may reach.
    let memoryBudget: Int

    /// Half of the memory this process may have: the machine's, or its control group's limit
    /// when it runs under one (a container, a systemd unit with `MemoryMax=`): cgroup v2's
    /// `memory.max`, v1's `memory.limit_in_bytes`.
    public static var defaultMemoryBudget: Int {
        budget(
            physicalMemory: ProcessInfo.processInfo.physicalMemory,
            groups: (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        ) { try? String(contentsOfFile: $0, encoding: .utf8) }
    }

    /// ``defaultMemoryBudget`` from `/proc/self/cgroup`'s text (`groups`) and the files `read`
    /// gives (nil: no such file).
    static func budget(physicalMemory: UInt64, groups: String, read: (String) -> String?) -> Int {
        var memory = physicalMemory
        var files = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
        // Lines such as "0::/system.slice/intake.service" (v2) and "4:memory:/docker/ab12" (v1):
        // the process's own group.
        for line in groups.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2].hasPrefix("/") else { continue }
            if parts[1].isEmpty { files.append("/sys/fs/cgroup" + parts[2] + "/memory.max") }
            if parts[1].split(separator: ",").contains("memory") {
                files.append("/sys/fs/cgroup/memory" + parts[2] + "/memory.limit_in_bytes")
            }
        }
        for file in files {
            // "max" (v2) is no limit; v1 writes a number near 2^63 for none.
            if let limit = read(file), let bytes = UInt64(limit.trimmingCharacters(in: .whitespacesAndNewlines)) {
                memory = min(memory, bytes)
            }
        }
        return Int(min(memory / 2, UInt64(Int.max)))
    }

    /// `repeats`: also gather the repeats' own tables (the .xlsx has a sheet for each).
    public init(plan: ExportPlan, repeats: Bool = true, memoryBudget: Int = StatisticsCollector.defaultMemoryBudget) {
        self.plan = plan
        self.memoryBudget = memoryBudget
        columns = Array(repeating: [], count: plan.columns.count)
        repeatTables = repeats ? plan.repeatTables.map { RepeatTableFormatter(plan: plan, table: $0) } : []
        repeatRows = Array(repeating: [], count: repeatTables.count)
    }

    public func header() -> String { "" }
    public func footer() -> String { "" }

    public func row(_ record: ExportRecord) throws(ExportError) -> String {
        try collect(try ExportRow(record, plan: plan))
        return ""
    }

    func write(_ row: ExportRow, into out: inout [UInt8]) throws(ExportError) { try collect(row) }

    private func collect(_ row: ExportRow) throws(ExportError) {
        var cells = [CellValue?](repeating: nil, count: columns.count)
        plan.eachValue(of: row) { index, value in cells[index] = value }
        heldBytes += Self.estimate(cells)
        for index in columns.indices { columns[index].append(cells[index]) }
        recordCount += 1
        for (number, table) in repeatTables.enumerated() {
            table.eachRow(of: row) { keys, values in
                heldBytes += Self.estimate(values) + keys.reduce(0) { $0 + Self.estimate($1) }
                repeatRows[number].append((keys, values))
            }
        }
        guard heldBytes > memoryBudget else { return }
        let files = ExportFormat.allCases.filter(\.isBinary).map(\.fileName).joined(separator: ", ")
        throw ExportError(
            "\(files) are made in memory, and the \(recordCount) records read so far already need about "
                + "\(Self.megabytes(heldBytes)) MB of the \(Self.megabytes(memoryBudget)) MB this export may give them; nothing "
                + "was written. Name the files you want instead: --format csv --format codebook --format spss --format escaped "
                + "--format r (SPSS and R read the CSV through records.sps and records.R), or export fewer records at a time "
                + "(--data-group, --review-state, --since)")
    }

    /// Takes the wide table's cells, leaving none here: the table made from them replaces them,
    /// a column at a time, so the two copies are not held whole at once. So the wide table is
    /// made once (``StatisticsFiles/write(_:from:into:date:)`` does); the repeat tables and the
    /// workbook read the repeats' rows, which stay.
    func takeColumns() -> [[CellValue?]] {
        defer { columns = [] }
        return columns
    }

    /// About what a row's cells take at the export's peak: two slots each (an optional enum with
    /// a string; gathered, then in the table), and a text's bytes where they do not fit in one.
    static func estimate(_ cells: [CellValue?]) -> Int {
        var bytes = 32 + cells.count * MemoryLayout<CellValue?>.stride * 2
        for cell in cells {
            switch cell {
            case .text(let text)?, .plain(let text)?: bytes += estimate(text)
            case .unanswered?, nil: break
            }
        }
        return bytes
    }

    static func estimate(_ text: String) -> Int { text.utf8.count > 15 ? 32 + text.utf8.count : 0 }

    static func megabytes(_ bytes: Int) -> Int { (bytes + 999_999) / 1_000_000 }
}

/// A table as the .sav and .dta files hold it: typed variables, each with its label, value
/// labels and values.
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
    var rowCount: Int
    /// For the files' own labels.
    var questionnaireId: String
    /// "Asked, not answered" in a text variable (see ``StatisticsValue/unanswered``).
    var unansweredCode: String

    /// The wide table of what `collector` gathered.
    init(_ collector: StatisticsCollector) {
        let plan = collector.plan
        let entries = CodebookEntry.entries(plan)
        var columns = collector.takeColumns()
        variables = []
        variables.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            // The column's cells are freed once its variable holds its values.
            var cells: [CellValue?] = []
            if index < columns.count { swap(&cells, &columns[index]) }
            variables.append(StatisticsVariable(entry: entry, cells: cells))
        }
        rowCount = collector.recordCount
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
        let rows = collector.repeatRows[number]
        var variables: [StatisticsVariable] = []
        for (index, name) in table.keyColumnNames.enumerated() {
            let column = ExportColumn(name: name, type: index == 0 ? .string : .integer, source: .meta(index == 0 ? .recordId : .revision))
            var variable = StatisticsVariable(
                column: column, label: "", codes: [], choices: nil,
                cells: rows.map { row in
                    index < row.keys.count ? CellValue.plain(row.keys[index]) : nil
                })
            variable.label =
                index == 0
                ? "The record's id" : (name == "parent_instance" ? "The outer repeat's instance (from 1)" : "The instance (from 1)")
            variables.append(variable)
        }
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
                    column: column, label: label, codes: plan.codes(of: column), choices: choices, cells: rows.map { $0.values[index] }))
        }
        self.init(
            variables: variables, rowCount: rows.count, questionnaireId: plan.questionnaireId, unansweredCode: plan.options.unansweredCode)
    }

    init(variables: [StatisticsVariable], rowCount: Int, questionnaireId: String, unansweredCode: String) {
        self.variables = variables
        self.rowCount = rowCount
        self.questionnaireId = questionnaireId
        self.unansweredCode = unansweredCode
    }

    /// "Intake export: <questionnaire>", for the files' labels.
    var fileLabel: String { "Intake export: \(questionnaireId)" }
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
    var values: [StatisticsValue]
    /// For `.indicator` and `.code`.
    var numberLabels: [(value: Double, label: String)] = []
    /// For a `.text` single-choice column: its codes and their labels.
    var textLabels: [(value: String, label: String)] = []
    /// Whether the column holds an answer (rather than a property of the record).
    var isAnswer = true

    init(column: String, label: String, kind: Kind, values: [StatisticsValue]) {
        self.column = column
        self.label = label
        self.kind = kind
        self.values = values
    }

    var isNumeric: Bool { kind != .text }

    /// Whether some record left the question unanswered.
    var hasUnanswered: Bool { values.contains(.unanswered) }

    /// The most UTF-8 bytes a value of a text variable has (the unanswered code counting where
    /// it is written), and at least the longest labelled code, so every code's label has its
    /// value (SPSS labels only values a variable can hold); at least 1.
    func textWidth(unansweredCode: String) -> Int {
        var width = max(1, textLabels.map(\.value.utf8.count).max() ?? 1)
        for value in values {
            switch value {
            case .text(let text): width = max(width, text.utf8.count)
            case .unanswered: width = max(width, unansweredCode.utf8.count)
            case .empty, .number: break
            }
        }
        return width
    }

    /// The variable of one wide-table column, typed from the plan and checked against `cells`.
    init(entry: CodebookEntry, cells: [CellValue?]) {
        self.init(
            column: entry.column, label: entry.label(in: nil), codes: entry.codes,
            choices: entry.choice == nil ? entry.partType?.choices : nil, cells: cells)
    }

    /// The variable of a column (of the wide table or a repeat's), typed from its
    /// ``ColumnType`` and checked against `cells`; `codes` are a single-choice column's codes
    /// and `choices` their labels.
    init(column: ExportColumn, label: String, codes: [String], choices: ChoiceSet?, cells: [CellValue?]) {
        self.column = column.name
        self.label = label
        if case .answer = column.source {} else { isAnswer = false }
        let texts = cells.compactMap { cell -> String? in
            switch cell {
            case .text(let text)?, .plain(let text)?: text
            case .unanswered?, nil: nil
            }
        }
        var kind: Kind
        switch column.type {
        case .indicator: kind = texts.allSatisfy { $0 == "0" || $0 == "1" } ? .indicator : .text
        // Numbers every file keeps exactly: an integer within Excel's 15 significant digits (a
        // double's 2^53 is larger), a number short of the values SPSS and Stata read as missing.
        // A column with one that is not is text, as the CSV writes it.
        case .integer: kind = texts.allSatisfy { Self.plainNumber($0).map { abs($0) < 1e15 } ?? false } ? .integer : .text
        case .number: kind = texts.allSatisfy { Self.plainNumber($0).map { abs($0) < 8.9e307 } ?? false } ? .number : .text
        case .date: kind = texts.allSatisfy { LocalDate(iso: $0) != nil } ? .date : .text
        case .datetime: kind = .text
        case .string:
            kind =
                !codes.isEmpty && codes.allSatisfy({ Self.wholeCode($0) != nil }) && texts.allSatisfy({ Self.wholeCode($0) != nil })
                ? .code : .text
        }
        self.kind = kind
        values = cells.map { cell in
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

    /// The number of text written as the export writes numbers (`-3`, `1.5`, `2.5e-05`): digits
    /// with an optional sign, fraction and exponent; nil for anything else (no `inf`, `nan` or hex).
    static func plainNumber(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        guard digits() > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == bytes.count, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// A choice code that is a whole number written plainly (`3`, `-1`; not `03` or `+3`), in
    /// the range a Stata `long` holds without reaching its missing values.
    static func wholeCode(_ text: String) -> Int? {
        guard let value = Int(text), String(value) == text, (-2_147_483_647...2_147_483_620).contains(value) else { return nil }
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
