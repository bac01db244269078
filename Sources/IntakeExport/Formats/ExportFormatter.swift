/// Turns records into one output file's text, a record at a time, so an export of any size
/// needs the memory of one record.
public protocol ExportFormatter: AnyObject {
    /// Text before the first record.
    func header() throws(ExportError) -> String
    /// Text for one record (empty for documents that describe the export rather than its records).
    func row(_ record: ExportRecord) throws(ExportError) -> String
    /// Text after the last record.
    func footer() throws(ExportError) -> String
}
