import IntakeCore

/// `records.sps`: SPSS syntax (also run by GNU PSPP) that reads `records_escaped.csv` (the wide CSV
/// with line breaks written `\n`, see ``CSV/escapingLineBreaks(_:)``) with every column's format, variable
/// label and value labels, and turns the escaped line breaks back into line breaks.
///
/// Names follow SPSS's rules (a letter first, at most 64 bytes, no reserved word); a CSV column
/// whose name breaks them gets a changed name here, listed in a comment. Empty cells and the
/// unanswered marker are both missing: numeric columns read them as system-missing, text columns
/// keep the marker as a user-missing value.
public final class SPSSSyntaxFormatter: ExportFormatter {
    let plan: ExportPlan

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    static let reserved: Set<String> = ["ALL", "AND", "BY", "EQ", "GE", "GT", "LE", "LT", "NE", "NOT", "OR", "TO", "WITH"]

    public func header() -> String {
        let entries = CodebookEntry.entries(plan)
        let names = Self.names(entries.map(\.column.name))
        let code = plan.options.unansweredCode
        var out = """
            * Encoding: UTF-8.
            * Made by Intake: reads records_escaped.csv (\(plan.questionnaireId), versions \(plan.versions.map(\.version).joined(separator: ", "))).
            * Run it from the folder that holds records_escaped.csv (pspp records.sps, or open it in SPSS and Run All).
            * records_escaped.csv is records.csv with line breaks in text written \\n (SPSS cannot read them in a CSV field); they are turned back below.
            * Empty cells (not asked) and '\(code)' (asked, no answer) are missing values; see codebook.md.
            * SPSS drops spaces at the end of text values: its strings are padded with spaces.

            """
        for (entry, name) in zip(entries, names) where name != entry.column.name {
            out += "* Column \(entry.column.name) is named \(name) here.\n"
        }
        out += "GET DATA\n  /TYPE=TXT\n  /FILE=\"records_escaped.csv\"\n  /ENCODING=\"UTF8\"\n  /DELCASE=LINE\n  /DELIMITERS=\",\"\n"
        out += "  /QUALIFIER='\"'\n  /ARRANGEMENT=DELIMITED\n  /FIRSTCASE=2\n  /VARIABLES=\n"
        for (entry, name) in zip(entries, names) { out += "    \(name) \(Self.format(entry))\n" }
        out += ".\n"
        // Text values with an escaped line break or backslash: `\n`, `\r`, then `\b` (see CSV.escapingLineBreaks).
        for (entry, name) in zip(entries, names) where entry.column.type == .string {
            out += "DO IF INDEX(\(name), \"\\\") > 0.\n"
            out += "COMPUTE \(name) = REPLACE(REPLACE(REPLACE(\(name), \"\\n\", X'0A'), \"\\r\", X'0D'), \"\\b\", \"\\\").\n"
            out += "END IF.\n"
        }
        // The leading ' that guards text a spreadsheet could run as a formula (as records.R does).
        if !plan.options.rawCells {
            out += "* A leading ' marks text a spreadsheet could run as a formula, or text equal to '\(code)': it is removed here.\n"
            out += "* (A text answer that is exactly '\(code)' then reads as user-missing; records.csv keeps it apart.)\n"
            for (entry, name) in zip(entries, names) where entry.column.type == .string {
                out += "IF (SUBSTR(\(name), 1, 1) = \"'\") \(name) = SUBSTR(\(name), 2).\n"
            }
        }
        out += "VARIABLE LABELS\n"
        for (entry, name) in zip(entries, names) { out += "  \(name) \(Self.quoted(Self.truncated(entry.label(in: nil), bytes: 250)))\n" }
        out += ".\n"
        var valueLabels: [String] = []
        var userMissing: [String] = []
        for (entry, name) in zip(entries, names) {
            if entry.column.type == .indicator {
                valueLabels.append("  /\(name) 0 \"No\" 1 \"Yes\"")
            } else if entry.column.type == .string, !entry.codes.isEmpty, let set = entry.partType?.choices {
                let pairs = entry.codes.map {
                    "\(Self.quoted($0)) \(Self.quoted(Self.truncated(set.choice(code: $0)?.label.base ?? $0, bytes: 120)))"
                }
                valueLabels.append("  /\(name) " + pairs.joined(separator: " "))
            }
            if case .answer = entry.column.source, entry.column.type == .string, code.utf8.count <= 8 { userMissing.append(name) }
        }
        if !valueLabels.isEmpty { out += "VALUE LABELS\n" + valueLabels.joined(separator: "\n") + "\n.\n" }
        if !userMissing.isEmpty { out += "MISSING VALUES \(userMissing.joined(separator: " ")) (\(Self.quoted(code))).\n" }
        out += "EXECUTE.\n"
        return out
    }

    public func row(_ record: ExportRecord) -> String { "" }
    public var readsRecords: Bool { false }
    public func footer() -> String { "" }

    /// The input format: text as wide as SPSS allows (32,767 bytes), codes as wide as the longest.
    static func format(_ entry: CodebookEntry) -> String {
        switch entry.column.type {
        case .indicator: return "F1.0"
        case .integer: return "F12.0"
        case .number: return "F18.6"
        case .date: return "SDATE10"
        case .datetime: return "A24"
        case .string:
            if case .meta(let field) = entry.column.source {
                switch field {
                case .recordId: return "A36"
                case .patientKey: return "A27"
                default: return "A255"
                }
            }
            if !entry.codes.isEmpty { return "A\(max(8, entry.codes.map(\.utf8.count).max() ?? 1))" }
            return "A32767"
        }
    }

    /// SPSS names for the CSV's columns, unique, each starting with a letter.
    static func names(_ columns: [String]) -> [String] {
        var used = Set<String>()
        return columns.map { column in
            var name = column
            if name.first.map({ !$0.isLetter }) ?? true { name = "v" + name }
            if reserved.contains(name.uppercased()) { name += "_" }
            name = String(name.prefix(60))
            var candidate = name
            var suffix = 2
            while used.contains(candidate.uppercased()) {
                // SPSS names are at most 64 bytes, however many columns share a start.
                let tail = "_\(suffix)"
                candidate = String(name.prefix(64 - tail.utf8.count)) + tail
                suffix += 1
            }
            used.insert(candidate.uppercased())
            return candidate
        }
    }

    static func quoted(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\"", with: "\"\"").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
                of: "\r", with: " ") + "\""
    }

    /// At most `bytes` bytes of UTF-8, cut between characters.
    static func truncated(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var out = ""
        for character in text {
            if out.utf8.count + character.utf8.count > bytes { break }
            out.append(character)
        }
        return out
    }
}
