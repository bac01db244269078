import Hummingbird
import Synchronization

/// Adds routes to the router and remembers them, so tests can check each against `openapi.yaml`.
final class RouteRegistrar {
    let router: Router<IntakeRequestContext>
    let table: RouteTable
    private(set) var routes: [String] = []

    init(router: Router<IntakeRequestContext>, table: RouteTable) {
        self.router = router
        self.table = table
    }

    typealias Handler = @Sendable (Request, IntakeRequestContext) async throws -> Response

    func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        routes.append("\(method.rawValue) \(path)")
        table.add(method.rawValue, path)
        router.on(RouterPath(path), method: method, use: handler)
    }
}

/// Every route's method and path pattern, to tell "no such path" (404) from "not with this
/// method" (405 with `Allow`).
final class RouteTable: Sendable {
    private let entries = Mutex<[(method: String, segments: [Substring])]>([])

    func add(_ method: String, _ path: String) {
        entries.withLock { $0.append((method, path.split(separator: "/"))) }
    }

    /// The methods some route takes at `path`, sorted; empty when no route has that path.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        return entries.withLock { entries in
            Set(
                entries.filter { entry in
                    entry.segments.count == segments.count
                        && zip(entry.segments, segments).allSatisfy { pattern, segment in pattern.first == "{" || pattern == segment }
                }.map(\.method)
            ).sorted()
        }
    }
}
