import Hummingbird

/// Puts on the audit trail every request a token made that succeeded and that no route records
/// itself: reads (token use), and changes such as referrals, invitations, webhooks, patients,
/// data groups, reports and tokens. The event names the method and path (ids, user and team
/// names; never a query, a body or patient data) and the status.
struct AuditMiddleware: RouterMiddleware {
    typealias Context = IntakeRequestContext
    let audit: AuditLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard let user = context.identity, response.status.code < 400, !Self.recordedByRoute(request.method, request.uri.path) else {
            return response
        }
        try await audit.record(
            request.method == .get ? .tokenRead : .apiChange, by: user.username, subject: request.uri.path,
            details: ["method": request.method.rawValue, "status": String(response.status.code)])
        return response
    }

    /// Routes whose actions are recorded with their own meaning (or, for the notification
    /// streams and polls a client keeps open, not at all); `*` is any one segment.
    static let ownRecords: [(HTTPRequest.Method, [String])] = [
        (.post, ["records"]), (.post, ["records", "batch"]), (.put, ["records", "*"]), (.get, ["records", "*"]),
        (.get, ["records", "*", "revisions"]), (.get, ["records"]), (.delete, ["records", "*"]), (.post, ["tombstones", "purge"]),
        (.post, ["records", "*", "grants"]), (.delete, ["records", "*", "grants", "*"]), (.put, ["questionnaires", "*", "access"]),
        (.post, ["records", "*", "transfer"]), (.post, ["patients", "*", "transfer"]),
        (.post, ["sessions"]), (.post, ["users"]), (.patch, ["users", "*"]), (.post, ["teams"]),
        (.patch, ["teams", "*", "members", "*"]), (.delete, ["teams", "*", "members", "*"]), (.post, ["invitations", "*", "accept"]),
        (.get, ["patients"]), (.get, ["patients", "*"]), (.put, ["patients", "*", "consent"]), (.get, ["exports"]),
        (.get, ["notifications"]), (.get, ["notifications", "stream"]), (.get, ["notifications", "counts"]), (.get, ["me"]),
    ]

    static func recordedByRoute(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 2, parts[0] == "v1" else { return true }
        let rest = Array(parts.dropFirst())
        return ownRecords.contains { entry in
            entry.0 == method && entry.1.count == rest.count && zip(entry.1, rest).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }
}
