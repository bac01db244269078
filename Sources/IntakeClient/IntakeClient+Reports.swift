import Foundation

/// One dated report of a patient's series, as the server shows it.
public struct RemoteReport: Sendable, Equatable, Codable {
    /// The patient's id (in the team's listing; nil where the patient is implied).
    public var patientId: String?
    public var series: String
    public var date: String
    /// The values as JSON text, keys sorted.
    public var values: String
    public var version: Int
    public var recordedBy: String
    public var recordedAt: String
}

/// Dated reports of registry patients.
extension IntakeClient {
    /// Stores (or replaces) the report of `date` in `series`: `values` is a JSON object.
    public func putReport(patient: String, series: String, date: String, values: Data) async throws(ClientError) -> RemoteReport {
        let (status, data) = try await send(
            "PUT", "/v1/patients/\(Self.segment(patient))/reports/\(Self.segment(series))/\(Self.segment(date))", body: values)
        guard status == 200 || status == 201 else { throw ClientError.from(status: status, data: data) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let report = Self.report(object) else {
            throw ClientError.unexpected("the server's answer is not a report")
        }
        return report
    }

    /// A series' reports, oldest date first: `start` and `end` are calendar dates (both
    /// included) or instants (start included, end not), as the series takes; `latest` only the last.
    public func reports(patient: String, series: String, start: String?, end: String?, latest: Bool) async throws(ClientError)
        -> [RemoteReport]
    {
        var query: [String] = []
        if let start { query.append("startDate=\(Self.queryValue(start))") }
        if let end { query.append("endDate=\(Self.queryValue(end))") }
        if latest { query.append("latest=true") }
        let path =
            "/v1/patients/\(Self.segment(patient))/reports/\(Self.segment(series))"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let (status, data) = try await send("GET", path, body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let list = object["reports"] as? [[String: Any]]
        else {
            throw ClientError.unexpected("the server's answer is not a list of reports")
        }
        return list.compactMap(Self.report)
    }

    /// Every current report of the team, a page at a time (`next` is the page after, nil on the last).
    public func teamReports(after: String?) async throws(ClientError) -> (reports: [RemoteReport], next: String?) {
        let (status, data) = try await send("GET", "/v1/reports" + (after.map { "?after=\(Self.queryValue($0))" } ?? ""), body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let list = object["reports"] as? [[String: Any]]
        else {
            throw ClientError.unexpected("the server's answer is not a list of reports")
        }
        return (list.compactMap(Self.report), object["next"] as? String)
    }

    private static func report(_ object: [String: Any]) -> RemoteReport? {
        guard let series = object["series"] as? String, let date = object["date"] as? String, let version = object["version"] as? Int,
            let values = object["values"],
            let text = try? JSONSerialization.data(withJSONObject: values, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return RemoteReport(
            patientId: object["patientId"] as? String, series: series, date: date, values: String(decoding: text, as: UTF8.self),
            version: version,
            recordedBy: object["recordedBy"] as? String ?? "", recordedAt: object["recordedAt"] as? String ?? "")
    }

    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "+&=")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
