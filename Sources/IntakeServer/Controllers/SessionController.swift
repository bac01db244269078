import Foundation
import Hummingbird

/// Signing in and out: `POST /v1/sessions`, `DELETE /v1/sessions/current`, `GET /v1/me`.
struct SessionController {
    let services: IntakeServices

    struct SignIn: Decodable {
        var username: String
        var password: String
    }

    struct Session: Encodable {
        var token: String
        var expiresAt: Date
        var user: UserJSON
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/sessions") { request, _ in
            let body = try JSONCoding.decode(SignIn.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024))
            guard let session = try await services.accounts.signIn(username: body.username, password: body.password) else {
                throw APIError(.unauthorized, code: "bad_credentials", message: "wrong username or password")
            }
            return try JSONCoding.response(
                Session(token: session.token, expiresAt: session.expiresAt, user: UserJSON(session.user)), status: .created)
        }
        routes.on(.delete, "/v1/sessions/current") { request, context in
            _ = try context.require(Set(Role.allCases))
            if let header = request.headers[.authorization] { try await services.accounts.revoke(token: String(header.dropFirst(7))) }
            return Response(status: .noContent)
        }
        routes.on(.get, "/v1/me") { _, context in
            try JSONCoding.response(UserJSON(try context.require(Set(Role.allCases))))
        }
    }
}
