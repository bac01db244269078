import Foundation
import Hummingbird
import IntakeService

/// Signing in and out: `POST /v1/sessions`, `DELETE /v1/sessions/current`, `GET /v1/me`.
struct SessionController {
    let services: IntakeServices

    struct SignIn: RequestBody {
        var username: String
        var password: String
        static let fields: Set<String> = ["username", "password"]
    }

    struct Session: Encodable {
        var token: String
        var expiresAt: Date
        var user: UserJSON
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/sessions") { request, context in
            let body = try JSONCoding.decode(
                SignIn.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            let outcome = try await services.accounts.signIn(
                username: body.username, password: body.password, address: context.clientAddress)
            // The account tried is named (never the password); an unknown one too, as that is what was tried.
            let subject = String(body.username.prefix(100))
            switch outcome {
            case .signedIn(let token, let user, let expiresAt):
                try await services.audit.record(.signIn, by: user.username, subject: user.username)
                return try JSONCoding.response(Session(token: token, expiresAt: expiresAt, user: UserJSON(user)), status: .created)
            case .refused:
                try await services.audit.record(.signInFailed, by: "", subject: subject, details: ["reason": "bad_credentials"])
                throw APIError(.unauthorized, code: "bad_credentials", message: "wrong username or password")
            case .throttled(let seconds):
                try await services.audit.record(.signInFailed, by: "", subject: subject, details: ["reason": "throttled"])
                throw APIError(
                    .tooManyRequests, code: "too_many_attempts",
                    message: "too many failed sign-ins; wait \(seconds) seconds before trying again",
                    headers: [.retryAfter: String(seconds)])
            case .locked:
                try await services.audit.record(.signInFailed, by: "", subject: subject, details: ["reason": "account_locked"])
                throw APIError(
                    .forbidden, code: "account_locked",
                    message:
                        "this account is locked after repeated failed sign-ins; ask an admin to unlock it (intake admin user unlock NAME)")
            }
        }
        routes.on(.delete, "/v1/sessions/current") { request, context in
            _ = try context.signedIn()
            if let header = request.headers[.authorization] { try await services.accounts.revoke(token: String(header.dropFirst(7))) }
            return Response(status: .noContent)
        }
        routes.on(.get, "/v1/me") { _, context in
            try JSONCoding.response(UserJSON(try context.signedIn()))
        }
    }
}
