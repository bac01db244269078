import Hummingbird
import HummingbirdAuth

/// Finds the user of the request's bearer token (HummingbirdAuth's authenticator middleware);
/// routes decide whether one is required (``IntakeRequestContext/require(_:)``). A request that
/// sends an Authorization header which is not a known, live bearer token stops here with 401.
struct TokenAuthenticator: AuthenticatorMiddleware {
    typealias Context = IntakeRequestContext
    let accounts: AccountService

    /// Routes that need no token ignore the Authorization header: a health probe or a sign-in
    /// that carries a stale token still works.
    static let publicPaths: Set<String> = ["/health", "/openapi.yaml", "/v1/sessions"]

    func authenticate(request: Request, context: Context) async throws -> User? {
        guard request.headers[.authorization] != nil else { return nil }
        if Self.publicPaths.contains(request.uri.path) { return nil }
        guard let bearer = request.headers.bearer, let user = try await accounts.user(token: bearer.token) else {
            throw APIError.unauthenticated
        }
        return user
    }
}
