import Foundation
import Hummingbird
import HummingbirdAuth

/// The request context: Hummingbird's core storage plus the user the bearer token belongs to
/// (set by ``TokenAuthenticator``).
public struct IntakeRequestContext: AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: User?
    /// The client's IP address, for throttling sign-ins per address; nil when unknown (tests).
    public let clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
        clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The signed-in user, if any.
    var user: User? { identity }

    /// The signed-in user if their role is one of `roles`; otherwise 401 or 403.
    func require(_ roles: Set<Role>) throws -> User {
        guard let user else { throw APIError.unauthenticated }
        guard roles.contains(user.role) else {
            throw APIError(
                .forbidden, code: "forbidden",
                message: "a \(user.role.rawValue) may not do this; it needs the role \(roles.map(\.rawValue).sorted().joined(separator: " or "))")
        }
        return user
    }

    /// The signed-in user's team, for routes that work on team records.
    func requireTeam(_ roles: Set<Role>) throws -> (User, Int64) {
        let user = try require(roles)
        guard let team = user.teamId else {
            throw APIError(.forbidden, code: "no_team", message: "your account belongs to no team; ask an admin to add it to one")
        }
        return (user, team)
    }

    /// The `{id}` path parameter, a UUID; 400 naming what it should identify (`"a referral"`) otherwise.
    func pathID(of what: String) throws -> UUID {
        let text = try parameters.require("id")
        guard let id = UUID(uuidString: text) else { throw APIError.badRequest("\(what) id is a UUID") }
        return id
    }
}
