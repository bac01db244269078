import Foundation
import Hummingbird
import HummingbirdAuth
import IntakeService

/// The request context: Hummingbird's core storage plus the user the bearer token belongs to
/// (set by ``TokenAuthenticator``).
public struct IntakeRequestContext: AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: User?
    /// The enrolled machine, when the request came with a device token.
    public var device: Device?
    /// The client's IP address, for throttling sign-ins per address; nil when unknown (tests).
    public let clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
        clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The path's parameters, percent-decoded: the one place every route, the API's and the
    /// modules' (console, ODK, REDCap, FHIR), reads a name from its path. The router matches the
    /// path as sent, so a name holding `/` arrives as one segment (`%2F`) and is decoded only
    /// here, after matching; a segment that is not valid percent-encoding is kept as sent.
    /// (This hides Hummingbird's raw `parameters` for this context type.)
    public var parameters: Parameters {
        Parameters(coreContext.parameters.map { ($0.key, Self.decoded($0.value)) })
    }

    /// `segment` percent-decoded (UTF-8), or as sent when it is not valid percent-encoding.
    static func decoded(_ segment: Substring) -> Substring {
        guard segment.contains("%"), let text = String(segment).removingPercentEncoding else { return segment }
        return Substring(text)
    }

    /// The signed-in user, if any.
    var user: User? { identity }

    /// The signed-in user. Who may call a route is decided before its handler runs, by its row
    /// of ``RoutePolicy`` (the router admits no one else); this only hands the user over.
    func signedIn() throws -> User {
        guard let user else { throw APIError.unauthenticated }
        return user
    }

    /// The signed-in user and their team, for routes whose row of ``RoutePolicy`` needs a team.
    func member() throws -> (User, Int64) {
        let user = try signedIn()
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
