import Hummingbird

/// Adds routes to the router and remembers them, so tests can check each against `openapi.yaml`.
final class RouteRegistrar {
    let router: Router<IntakeRequestContext>
    private(set) var routes: [String] = []

    init(router: Router<IntakeRequestContext>) {
        self.router = router
    }

    typealias Handler = @Sendable (Request, IntakeRequestContext) async throws -> Response

    func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        routes.append("\(method.rawValue) \(path)")
        router.on(RouterPath(path), method: method, use: handler)
    }
}
