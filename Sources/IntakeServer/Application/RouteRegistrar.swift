import Hummingbird
import IntakeService
import Synchronization

/// Adds routes to the router and remembers them, so tests can check each against `openapi.yaml`.
final class RouteRegistrar {
    let router: Router<IntakeRequestContext>
    let table: RouteTable
    let audit: AuditLog
    private(set) var routes: [String] = []

    init(router: Router<IntakeRequestContext>, table: RouteTable, audit: AuditLog) {
        self.router = router
        self.table = table
        self.audit = audit
    }

    typealias Handler = @Sendable (Request, IntakeRequestContext) async throws -> Response

    /// Adds a route, admitting only whom its row of ``RoutePolicy`` admits (a route without a
    /// row is a programming error: it stops the server before it listens). One that takes
    /// `query` parameters reads them with ``QueryParameters``; one that takes none refuses any,
    /// as a body refuses a field it does not take. A successful call goes on the audit trail as
    /// the row's ``RouteAudit`` says.
    func on(_ method: HTTPRequest.Method, _ path: String, query: [String] = [], _ handler: @escaping Handler) {
        guard let rule = RoutePolicy.rule(method.rawValue, path) else {
            preconditionFailure("\(method.rawValue) \(path) has no row in RoutePolicy.rules: say who may call it there")
        }
        routes.append("\(method.rawValue) \(path)")
        table.add(method.rawValue, path)
        let audit = self.audit
        router.on(RouterPath(path), method: method) { request, context in
            if let refusal = RoutePolicy.refusal(rule, context.user) { throw refusal }
            if query.isEmpty { _ = try QueryParameters.read(request, accepted: []) }
            let response = try await handler(request, context)
            if rule.audit == .request, let user = context.identity, response.status.code < 400 {
                // The path names ids, user and team names; never a query, a body or patient data.
                try await audit.record(
                    request.method == .get ? .tokenRead : .apiChange, by: user.username, subject: request.uri.path,
                    details: ["method": request.method.rawValue, "status": String(response.status.code)])
            }
            return response
        }
    }
}

/// Every route's method and path pattern, to tell "no such path" (404) from "not with this
/// method" (405 with `Allow`).
final class RouteTable: Sendable {
    private let entries = Mutex<[(method: String, segments: [Substring])]>([])

    func add(_ method: String, _ path: String) {
        entries.withLock { $0.append((method, path.split(separator: "/"))) }
    }

    /// The methods the route at `path` takes, sorted; empty when no route has that path. Like the
    /// router, a literal segment wins over a parameter (`/v1/records/batch` is not
    /// `/v1/records/{id}`), so only the most specific pattern's methods count.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        return entries.withLock { entries in
            let matching = entries.filter { entry in
                entry.segments.count == segments.count
                    && zip(entry.segments, segments).allSatisfy { pattern, segment in pattern.first == "{" || pattern == segment }
            }
            // Literal segments as 1, parameters as 0, compared from the left.
            func specificity(_ segments: [Substring]) -> [Int] { segments.map { $0.first == "{" ? 0 : 1 } }
            guard let best = matching.map({ specificity($0.segments) }).max(by: { $0.lexicographicallyPrecedes($1) }) else { return [] }
            return Set(matching.filter { specificity($0.segments) == best }.map(\.method)).sorted()
        }
    }
}
