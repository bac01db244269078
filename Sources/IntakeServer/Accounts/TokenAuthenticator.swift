import Hummingbird
import HummingbirdAuth

/// Finds the user of the request's bearer token (HummingbirdAuth's authenticator middleware);
/// routes decide whether one is required (``IntakeRequestContext/require(_:)``). A request that
/// sends an Authorization header which is not a known, live bearer token stops here with 401.
struct TokenAuthenticator: AuthenticatorMiddleware {
    typealias Context = IntakeRequestContext
    let accounts: AccountService

    func authenticate(request: Request, context: Context) async throws -> User? {
        guard request.headers[.authorization] != nil else { return nil }
        guard let bearer = request.headers.bearer, let user = try await accounts.user(token: bearer.token) else {
            throw APIError.unauthenticated
        }
        return user
    }
}
