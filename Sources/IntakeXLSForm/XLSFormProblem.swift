import Foundation

/// Something in an XLSForm, at its sheet, row and column, that Intake cannot take as it is.
public struct XLSFormProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The form is wrong: pyxform would refuse it too (an unknown list, an unclosed group).
        case error
        /// The form is right, but Intake's format cannot say it (a time question, a video).
        case unsupported
        /// Left out by design and said so: nothing the record holds is lost (presentation, the
        /// metadata Intake records itself). Never stops an import.
        case leftOut = "left out"
    }

    public var kind: Kind
    public var sheet: String?
    /// The row as numbered in the spreadsheet (the header is row 1).
    public var row: Int?
    /// The column's letter and header: `D (relevant)`.
    public var column: String?
    public var message: String
    public var hint: String?

    public init(_ kind: Kind, sheet: String? = nil, row: Int? = nil, column: String? = nil, message: String, hint: String? = nil) {
        self.kind = kind
        self.sheet = sheet
        self.row = row
        self.column = column
        self.message = message
        self.hint = hint
    }

    /// `survey row 7, column D (relevant)`, or as much of it as is known.
    public var location: String {
        var parts: [String] = []
        if let sheet { parts.append(row.map { "\(sheet) row \($0)" } ?? "sheet \(sheet)") }
        if let column { parts.append("column \(column)") }
        return parts.joined(separator: ", ")
    }

    public var description: String {
        let place = location
        var text = (place.isEmpty ? "" : place + ": ") + "\(kind.rawValue): \(message)"
        if let hint { text += "\n    hint: \(hint)" }
        return text
    }
}

/// A sheet's header row read: each column's field (aliases folded, as pyxform does) and
/// language, and where it stands.
struct Columns {
    struct Column {
        var index: Int
        var header: String
        /// The field, lower-cased with aliases folded: `label`, `relevant`, `constraint_message`.
        var field: String
        /// The part after `::` (or a single `:` in forms that never use `::`): `Arabic (ar)`.
        var language: String?

        var shown: String { "\(ColumnName.letters(index)) (\(header))" }
    }

    var columns: [Column] = []
    var sheet: String

    static let aliases: [String: String] = [
        "relevance": "relevant", "show_if": "relevant", "calculate": "calculation", "constraint message": "constraint_message",
        "jr:constraintmsg": "constraint_message", "required message": "required_message", "jr:requiredmsg": "required_message",
        "choice filter": "choice_filter", "count": "repeat_count", "jr:count": "repeat_count", "repeat count": "repeat_count",
        "list name": "list_name", "value": "name", "caption": "label", "id_string": "form_id", "readonly": "read_only",
        "form title": "form_title", "form id": "form_id", "default language": "default_language", "command": "type", "tag": "name",
        "constraining_message": "constraint_message", "requiredmsg": "required_message", "set_form_title": "form_title",
        "set_form_id": "form_id",
    ]

    init(_ header: Sheet.Row?, sheet: String) {
        self.sheet = sheet
        guard let header else { return }
        let doubleColon = header.cells.contains { $0.contains("::") }
        var emptyRun = 0
        for (index, raw) in header.cells.enumerated() {
            let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else {
                // As pyxform: after more than 20 empty header cells, the sheet's columns end.
                emptyRun += 1
                if emptyRun > 20 { break }
                continue
            }
            emptyRun = 0
            var field = text
            var language: String?
            let separator = doubleColon ? "::" : ":"
            if let range = text.range(of: separator), !text.lowercased().hasPrefix("jr:") {
                field = String(text[..<range.lowerBound])
                language = String(text[range.upperBound...]).trimmingCharacters(in: .whitespaces)
            }
            field = field.trimmingCharacters(in: .whitespaces).lowercased()
            field = Self.aliases[field] ?? field.replacingOccurrences(of: " ", with: "_")
            columns.append(Column(index: index, header: text, field: field, language: language))
        }
    }

    func first(_ field: String) -> Column? {
        columns.first { $0.field == field && $0.language == nil } ?? columns.first { $0.field == field }
    }

    func all(_ field: String) -> [Column] {
        columns.filter { $0.field == field }
    }

    /// A cell of the field (without language), trimmed.
    func value(_ field: String, in row: Sheet.Row) -> String {
        guard let column = columns.first(where: { $0.field == field && $0.language == nil }) else { return "" }
        return row[column.index].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The two columns of one field and language (`label::English (en)` twice).
    func duplicates() -> [Column] {
        var seen: Set<String> = []
        return columns.filter { !seen.insert("\($0.field)::\($0.language ?? "")").inserted }
    }
}
