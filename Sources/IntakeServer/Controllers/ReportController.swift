import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// Dated reports of a patient: `PUT|GET /v1/patients/{id}/reports/{series}/{date}` (a report and
/// its history), `GET /v1/patients/{id}/reports/{series}?startDate=&endDate=&latest=`.
struct ReportController {
    let services: IntakeServices
    static let query = ["startDate", "endDate", "latest"]

    func register(_ routes: RouteRegistrar) {
        // Every current report of the team, a page at a time: what `intake sync` copies.
        routes.on(.get, "/v1/reports", query: ["after", "limit"]) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: ["after", "limit"])
            var limit = 500
            if let text = parameters["limit"] {
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text), (1...1000).contains(value) else {
                    throw APIError.badRequest("limit must be from 1 to 1000")
                }
                limit = value
            }
            var after: (patientId: UUID, series: String, date: String)?
            if let cursor = parameters["after"] {
                guard let decoded = Self.cursor(cursor) else {
                    throw APIError(
                        .unprocessableContent, code: "invalid_cursor", message: "'after' is the 'next' of the page before, as it was given")
                }
                after = decoded
            }
            let reports = try await services.patients.teamReports(after: after, limit: limit, for: user)
            var answer: [String: Any] = ["reports": reports.map(Self.json)]
            if reports.count == limit, let last = reports.last { answer["next"] = Self.cursor(last) }
            return try Self.response(answer, status: .ok)
        }
        routes.on(.put, "/v1/patients/{id}/reports/{series}/{date}") { request, context in
            let user = try context.signedIn()
            let data = try await JSONCoding.body(of: request, limit: 16 * 1024, timeout: services.configuration.bodyTimeout)
            let values = try Self.values(data)
            let report = try await services.patients.putReport(
                try context.pathID(of: "a patient"), series: try context.parameters.require("series"), date: try Self.date(context),
                values: values,
                by: user)
            return try Self.response(Self.json(report), status: report.version == 1 ? .created : .ok)
        }
        routes.on(.get, "/v1/patients/{id}/reports/{series}/{date}") { _, context in
            let user = try context.signedIn()
            let history = try await services.patients.reportHistory(
                try context.pathID(of: "a patient"), series: try context.parameters.require("series"), date: try Self.date(context),
                for: user)
            var answer = Self.json(history.last!)
            answer["history"] = history.map(Self.json)
            return try Self.response(answer, status: .ok)
        }
        routes.on(.get, "/v1/patients/{id}/reports/{series}", query: Self.query) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: Self.query)
            var query = ReportQuery(patientId: try context.pathID(of: "a patient"), series: try context.parameters.require("series"))
            for (name, keyPath) in [("startDate", \ReportQuery.start), ("endDate", \ReportQuery.end)] {
                if let text = parameters[name] {
                    guard let date = ReportDate(text) else {
                        throw APIError.badRequest("\(name) is a date (2026-11-24) or an instant (2026-11-24T08:30:00Z)")
                    }
                    query[keyPath: keyPath] = date
                }
            }
            switch parameters["latest"] {
            case nil, "false": break
            case "true": query.latestOnly = true
            default: throw APIError.badRequest("'latest' is true or false")
            }
            let reports = try await services.patients.reports(query, for: user)
            return try Self.response(["series": query.series, "reports": reports.map(Self.json)], status: .ok)
        }
    }

    private static func date(_ context: IntakeRequestContext) throws -> ReportDate {
        // An instant's colons may come percent-encoded (%3A): the context decodes them.
        let text = try context.parameters.require("date")
        guard let date = ReportDate(text) else {
            throw APIError.badRequest("the report's date is a date (2026-11-24) or an instant (2026-11-24T08:30:00Z)")
        }
        return date
    }

    /// The body: strict JSON, an object of values, kept with its keys sorted.
    private static func values(_ data: Data) throws -> String {
        do {
            try JSONReader.check(data)
        } catch {
            throw APIError.badRequest("the body is not valid JSON " + error.description)
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw APIError.badRequest("a report is a JSON object of values, such as {\"weight\": 61.5}") }
        return String(decoding: canonical, as: UTF8.self)
    }

    /// Where a page ends: the last report's patient, series and date, base64url.
    static func cursor(_ report: Report) -> String {
        Data([report.patientId.uuidString.lowercased(), report.series, report.date].joined(separator: "\u{1F}").utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func cursor(_ text: String) -> (patientId: UUID, series: String, date: String)? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let id = UUID(uuidString: parts[0]) else { return nil }
        return (id, parts[1], parts[2])
    }

    private static func json(_ report: Report) -> [String: Any] {
        [
            "patientId": report.patientId.uuidString.lowercased(), "series": report.series, "date": report.date, "version": report.version,
            "values": (try? JSONSerialization.jsonObject(with: Data(report.values.utf8))) ?? [:], "recordedBy": report.recordedBy,
            "recordedAt": Timestamp.string(from: report.recordedAt),
        ]
    }

    private static func response(_ object: [String: Any], status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return JSONCoding.response(json: Array(data), status: status)
    }
}
