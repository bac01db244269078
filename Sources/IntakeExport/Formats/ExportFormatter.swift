/// Turns records into one output file's text, a record at a time, so an export of any size
/// needs the memory of one record.
public protocol ExportFormatter: AnyObject {
    /// Text before the first record.
    func header() throws(ExportError) -> String
    /// Text for one record (empty for documents that describe the export rather than its records).
    func row(_ record: ExportRecord) throws(ExportError) -> String
    /// Text after the last record.
    func footer() throws(ExportError) -> String
    /// False for documents that describe the export rather than list its records: they are
    /// given none.
    var readsRecords: Bool { get }
}

/// A formatter that writes a record from its column layout, as bytes, so a large export never
/// builds the record itself (the wide CSV).
protocol RowFormatter: ExportFormatter {
    var plan: ExportPlan { get }
    func write(_ row: ExportRow, into out: inout [UInt8]) throws(ExportError)
}

extension ExportFormatter {
    public var readsRecords: Bool { true }

    /// Appends one record's output to `out`, from whichever form of it `input` has.
    func write(_ input: ExportInput, into out: inout [UInt8]) throws(ExportError) {
        guard readsRecords else { return }
        if let formatter = self as? any RowFormatter {
            if let row = input.row {
                try formatter.write(row, into: &out)
            } else if let record = input.record {
                try formatter.write(try ExportRow(record, plan: formatter.plan), into: &out)
            } else {
                throw ExportError("this export's reader gave no record for its \(Self.self); report this as a bug")
            }
        } else if let record = input.record {
            out.append(contentsOf: try row(record).utf8)
        } else {
            throw ExportError("this export's reader gave no whole record for its \(Self.self); report this as a bug")
        }
    }
}
