import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import IntakeCore
import IntakeService

/// Finds the user of the request's bearer token; routes decide whether one is required
/// (``RoutePolicy``). A request that sends an Authorization header which is not a known, live
/// bearer token stops here with 401. A device token (``DeviceService``) is read from the store at
/// every request and works only from the machine it was made for; the device goes with the
/// request (``IntakeRequestContext/device``).
struct TokenAuthenticator: RouterMiddleware {
    typealias Context = IntakeRequestContext
    let accounts: AccountService
    let devices: DeviceService
    /// Routes that need no token ignore the Authorization header: a health probe, a sign-in or
    /// an enrolment that carries a stale token still works (the API's, and modules' sign-ins).
    var publicPaths: Set<String> = Self.apiPublicPaths

    static let apiPublicPaths: Set<String> = ["/health", "/openapi.yaml", "/v1/sessions", "/v1/devices"]
    static let queueSizeHeader = HTTPField.Name("Intake-Queue-Size")!
    static let versionHeader = HTTPField.Name("Intake-Version")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if request.headers[.authorization] != nil, !publicPaths.contains(request.uri.path) {
            guard let bearer = request.headers.bearer else { throw APIError.unauthenticated }
            if DeviceService.isDeviceToken(bearer.token) {
                let (device, user) = try await device(bearer.token, request)
                context.identity = user
                context.device = device
            } else {
                guard let user = try await accounts.user(token: bearer.token) else { throw APIError.unauthenticated }
                context.identity = user
            }
        }
        return try await next(request, context)
    }

    private func device(_ token: String, _ request: Request) async throws -> (Device, User) {
        let queueSize = request.headers[Self.queueSizeHeader].flatMap { Int($0) }.flatMap { (0...10_000_000).contains($0) ? $0 : nil }
        let version = request.headers[Self.versionHeader].map { String($0.prefix(40)) }
        switch try await devices.authenticate(
            token: token, deviceId: request.headers[RecordController.deviceHeader], queueSize: queueSize, intakeVersion: version)
        {
        case .success(let found): return found
        case .failure(.unknown): throw APIError.unauthenticated
        case .failure(.revoked(let at, let by)):
            throw APIError(
                .unauthorized, code: "device_revoked",
                message: "this machine's enrolment was revoked\(by.map { " by \($0)" } ?? "") on \(Timestamp.string(from: at)); "
                    + "records queued on it stay sealed here (intake queue export); ask your coordinator to enrol it again")
        case .failure(.otherMachine):
            throw APIError(
                .unauthorized, code: "device_mismatch",
                message: "this device token belongs to another machine; enrol this one (intake enrol CODE)")
        case .failure(.accountUnavailable):
            throw APIError(
                .unauthorized, code: "account_unavailable",
                message: "the account this machine was enrolled for is disabled, locked or no longer in the team; ask your coordinator")
        }
    }
}
