import Foundation
import Hummingbird
import IntakeService

/// Teams, users and tokens, for admins: `/v1/teams`, `/v1/users`, `/v1/users/{username}/tokens`.
struct AdminController {
    let services: IntakeServices

    struct NewTeam: RequestBody {
        var name: String
        static let fields: Set<String> = ["name"]
    }

    struct NewUserBody: RequestBody {
        var username: String
        var password: String
        var role: Role
        var team: String?
        static let fields: Set<String> = ["username", "password", "role", "team"]
        static let nullable: Set<String> = ["team"]
    }

    struct UserPatch: RequestBody {
        var role: Role?
        var team: String?
        var password: String?
        var disabled: Bool?
        var researchAccess: ResearchAccess?
        static let fields: Set<String> = ["role", "team", "password", "disabled", "researchAccess"]
        static let nullable: Set<String> = ["team"]
    }

    struct NewTokenBody: RequestBody {
        var name: String?
        var expiresInDays: Int?
        static let fields: Set<String> = ["name", "expiresInDays"]
    }

    /// A token as listed: never the token, only the start of its hash.
    struct TokenJSON: Encodable {
        var id: String
        var name: String
        var createdAt: Date
        var expiresAt: Date?

        init(_ token: TokenSummary) {
            (id, name, createdAt, expiresAt) = (token.id, token.name, token.createdAt, token.expiresAt)
        }
    }

    struct IssuedToken: Encodable {
        var token: String
        var name: String
        var expiresAt: Date?
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/teams") { _, context in
            _ = try context.signedIn()
            return try JSONCoding.response(["teams": try await services.accounts.teams().map(TeamJSON.init)])
        }
        routes.on(.post, "/v1/teams") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(
                NewTeam.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            let team = try await accountRule { try await services.accounts.formTeam(name: body.name, by: user) }
            return try JSONCoding.response(TeamJSON(team), status: .created)
        }
        routes.on(.get, "/v1/users") { _, context in
            _ = try context.signedIn()
            return try JSONCoding.response(["users": try await services.accounts.users().map(UserJSON.init)])
        }
        routes.on(.post, "/v1/users") { request, context in
            let admin = try context.signedIn()
            let body = try JSONCoding.decode(
                NewUserBody.self,
                from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            let user = try await accountRule {
                try await services.accounts.createUser(
                    username: body.username, password: body.password, role: body.role, team: body.team, by: admin.username)
            }
            return try JSONCoding.response(UserJSON(user), status: .created)
        }
        routes.on(.patch, "/v1/users/{username}") { request, context in
            let admin = try context.signedIn()
            let username = try context.parameters.require("username")
            let data = try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout)
            let body = try JSONCoding.decode(UserPatch.self, from: data)
            // "team": null removes the user from their team; leaving "team" out keeps it.
            let team: String?? = JSONCoding.hasField("team", in: data) ? .some(body.team) : .none
            let user = try await accountRule {
                try await services.accounts.updateUser(
                    username: username, role: body.role, team: team, password: body.password, disabled: body.disabled,
                    researchAccess: body.researchAccess, by: admin.username)
            }
            return try JSONCoding.response(UserJSON(user))
        }
        routes.on(.post, "/v1/users/{username}/unlock") { _, context in
            _ = try context.signedIn()
            let username = try context.parameters.require("username")
            return try JSONCoding.response(UserJSON(try await services.accounts.unlock(username: username)))
        }
        routes.on(.get, "/v1/users/{username}/tokens") { _, context in
            _ = try context.signedIn()
            let tokens = try await services.accounts.tokens(of: try context.parameters.require("username"))
            return try JSONCoding.response(["tokens": tokens.map(TokenJSON.init)])
        }
        routes.on(.delete, "/v1/users/{username}/tokens/{token}") { _, context in
            let user = try context.signedIn()
            try await accountRule {
                try await services.accounts.revokeToken(
                    try context.parameters.require("token"), of: try context.parameters.require("username"), by: user.username)
            }
            return Response(status: .noContent)
        }
        routes.on(.post, "/v1/users/{username}/tokens") { request, context in
            _ = try context.signedIn()
            let username = try context.parameters.require("username")
            let body = try JSONCoding.decode(
                NewTokenBody.self,
                from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            if let days = body.expiresInDays, !(1...3650).contains(days) {
                throw APIError.badRequest("expiresInDays must be from 1 to 3650")
            }
            let expiresAt = body.expiresInDays.map { Date().addingTimeInterval(Double($0) * 86400) }
            let name = body.name ?? "api"
            let token = try await services.accounts.issueToken(username: username, name: name, expiresAt: expiresAt)
            return try JSONCoding.response(IssuedToken(token: token, name: name, expiresAt: expiresAt), status: .created)
        }
    }

    /// Runs an account operation, answering a broken rule with 422 and what to do.
    private func accountRule<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AccountError {
            throw APIError(.unprocessableContent, code: "invalid_account", message: error.description)
        }
    }
}
