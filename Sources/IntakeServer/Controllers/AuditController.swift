import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// The audit trail, for admins: `GET /v1/audit` (filtered, paged, oldest first) and
/// `GET /v1/audit/verify` (the whole chain checked, and optionally a head kept elsewhere).
struct AuditController {
    let services: IntakeServices
    static let listParameters = ["after", "before", "order", "actor", "action", "subject", "from", "to", "limit"]

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/audit", query: Self.listParameters) { request, context in
            _ = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: Self.listParameters)
            var query = AuditQuery()
            query.after = try Self.number(parameters["after"], "after", range: 0...Int64.max) ?? 0
            query.before = try Self.number(parameters["before"], "before", range: 0...Int64.max)
            switch parameters["order"] {
            case nil, "oldest": break
            case "newest": query.newestFirst = true
            default: throw APIError.badRequest("'order' is newest (browsing, with before=) or oldest (the default, with after=)")
            }
            query.limit = Int(try Self.number(parameters["limit"], "limit", range: 1...1_000) ?? 200)
            query.actor = try Self.text(parameters["actor"], "actor")
            query.action = try Self.text(parameters["action"], "action")
            query.subject = try Self.text(parameters["subject"], "subject")
            query.from = try Self.time(parameters["from"], "from")
            query.to = try Self.time(parameters["to"], "to")
            let events = try await services.audit.events(query)
            var answer: [String: Any] = ["events": events.map(Self.json)]
            if events.count == query.limit, let last = events.last { answer["next"] = String(last.seq) }
            return try Self.response(answer)
        }
        routes.on(.get, "/v1/audit/verify", query: ["seq", "hash"]) { request, context in
            _ = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: ["seq", "hash"])
            var expected: (seq: Int64, hash: String)?
            switch (parameters["seq"], parameters["hash"]) {
            case (nil, nil): break
            case (let seq?, let hash?):
                guard let number = try Self.number(seq, "seq", range: 1...Int64.max), hash.utf8.count == 64,
                    hash.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
                else { throw APIError.badRequest("'hash' is the 64 lowercase hex digits 'intake admin audit head' printed") }
                expected = (number, hash)
            default:
                throw APIError(
                    .unprocessableContent, code: "incomplete_head",
                    message: "give 'seq' and 'hash' together: the head you kept, to check it is still in the trail")
            }
            let report = try await services.audit.verify(expectedHead: expected)
            var answer: [String: Any] = ["sound": report.isSound, "checked": report.checked]
            if let head = report.head { answer["head"] = ["seq": head.seq, "hash": head.hash, "at": head.at] }
            if let problem = report.problem {
                answer["problem"] = ["seq": problem.seq, "kind": problem.kind.rawValue, "message": problem.message]
            }
            return try Self.response(answer)
        }
    }

    static func json(_ event: AuditEvent) -> [String: Any] {
        [
            "seq": event.seq, "at": event.at, "actor": event.actor, "action": event.action, "subject": event.subject,
            "details": event.details,
            "previousHash": event.previousHash, "hash": event.hash,
        ]
    }

    private static func response(_ object: [String: Any]) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return JSONCoding.response(json: Array(data), status: .ok)
    }

    private static func number(_ text: String?, _ name: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let text else { return nil }
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(text),
            range.contains(value)
        else {
            throw APIError.badRequest(
                "'\(name)' is a whole number from \(range.lowerBound)\(range.upperBound == .max ? "" : " to \(range.upperBound)")")
        }
        return value
    }

    private static func text(_ text: String?, _ name: String) throws -> String? {
        guard let text else { return nil }
        guard !text.isEmpty, text.unicodeScalars.count <= 200 else { throw APIError.badRequest("'\(name)' is 1 to 200 characters") }
        return text
    }

    private static func time(_ text: String?, _ name: String) throws -> Date? {
        guard let text else { return nil }
        if let time = Timestamp.date(from: text) { return time }
        if let day = LocalDate(iso: text) {
            return Date(timeIntervalSince1970: Double(CivilDays.days(year: day.year, month: day.month, day: day.day)) * 86_400)
        }
        throw APIError.badRequest("'\(name)' is a time such as 2026-11-24T08:00:00Z, or a UTC day such as 2026-11-24")
    }
}
