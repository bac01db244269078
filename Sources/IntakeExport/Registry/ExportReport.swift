import Foundation
import IntakeCore

/// One dated report of a registry patient as an export carries it: keyed like the patient's
/// records, the latest version of its date, with its values as stored (a JSON object).
public struct ExportReport: Sendable, Hashable {
    public var patientKey: String
    public var series: String
    /// A calendar date (`2026-11-24`) or an instant (`2026-11-24T08:30:00.000Z`), as the series takes.
    public var date: String
    /// A JSON object.
    public var values: [UInt8]
    public var version: Int
    public var recordedAt: Date

    public init(patientKey: String, series: String, date: String, values: [UInt8], version: Int, recordedAt: Date) {
        self.patientKey = patientKey
        self.series = series
        self.date = date
        self.values = values
        self.version = version
        self.recordedAt = recordedAt
    }

    /// Moves its date (and when it was recorded) `days` days back, as the patient's records move.
    public mutating func shift(by days: Int) {
        guard days != 0 else { return }
        recordedAt -= TimeInterval(days * 86_400)
        if let day = LocalDate(iso: date) {
            date = day.adding(days: -days).description
        } else if let instant = Timestamp.date(from: date) {
            date = Timestamp.string(from: instant - TimeInterval(days * 86_400))
        }
    }

    /// One line of `reports.jsonl` (newline included): `date`, `patientKey`, `recordedAt`, `series`, `values`, `version`.
    public var jsonLine: [UInt8] {
        var writer = JSONWriter(capacity: 128 + values.count)
        writer.beginObject()
        writer.key("date")
        writer.string(date)
        writer.key("patientKey")
        writer.string(patientKey)
        writer.key("recordedAt")
        writer.string(Timestamp.string(from: recordedAt))
        writer.key("series")
        writer.string(series)
        writer.key("values")
        writer.raw(values)
        writer.key("version")
        writer.integer(version)
        writer.endObject()
        return writer.bytes + [10]
    }

    /// Reads a line ``jsonLine`` wrote.
    public init(jsonLine: some ContiguousBytes) throws(JSONReadError) {
        var date: String?, patientKey: String?, recordedAt: Date?, series: String?, values: [UInt8]?, version: Int?
        try JSONReader.document(jsonLine) { reader throws(JSONReadError) in
            try reader.object { key, reader throws(JSONReadError) in
                switch key {
                case "date": date = try reader.string()
                case "patientKey": patientKey = try reader.string()
                case "recordedAt":
                    guard let time = Timestamp.date(from: try reader.string()) else { throw reader.error("recordedAt is not a time") }
                    recordedAt = time
                case "series": series = try reader.string()
                case "values":
                    guard reader.peek() == UInt8(ascii: "{") else { throw reader.error("values is not an object") }
                    values = Array(reader.bytes[try reader.skipValue()])
                case "version": version = try reader.integer()
                default: _ = try reader.skipValue()
                }
            }
        }
        guard let date, let patientKey, let recordedAt, let series, let values, let version else {
            throw JSONReadError(offset: 0, path: "", "a report line lacks one of date, patientKey, recordedAt, series, values, version")
        }
        self.init(patientKey: patientKey, series: series, date: date, values: values, version: version, recordedAt: recordedAt)
    }

    static let longColumns = ["patient_key", "series", "date", "version", "field", "value"]

    /// The lines of `reports_long.csv` for this report: one per value, text as it is, numbers as
    /// written, yes/no as 1/0, lists and objects as JSON; escaped as the record CSVs are unless `raw`.
    func longLines(marker: String, raw: Bool) -> String {
        var out = ""
        let base = [patientKey, series, date, String(version)]
        let fields: [(String, String)]
        do {
            fields = try JSONReader.document(values) { reader throws(JSONReadError) in
                var fields: [(String, String)] = []
                try reader.object { key, reader throws(JSONReadError) in
                    switch reader.peek() {
                    case UInt8(ascii: "\""): fields.append((key, try reader.string()))
                    case UInt8(ascii: "t"), UInt8(ascii: "f"): fields.append((key, try reader.bool() ? "1" : "0"))
                    case UInt8(ascii: "n"):
                        _ = reader.null()
                        fields.append((key, ""))
                    default: fields.append((key, String(decoding: Array(reader.bytes[try reader.skipValue()]), as: UTF8.self)))
                    }
                }
                return fields
            }
        } catch {
            fields = [("", String(decoding: values, as: UTF8.self))]
        }
        for (field, value) in fields.sorted(by: { $0.0 < $1.0 }) {
            out += CSV.line(base + [field, raw ? value : CSV.escape(value, marker: marker)])
        }
        return out
    }
}
