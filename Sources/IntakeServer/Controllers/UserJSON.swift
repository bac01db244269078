import Foundation
import IntakeService

/// A user as the API shows it: never the password hash.
struct UserJSON: Encodable {
    var username: String
    var role: String
    var team: String?
    var disabled: Bool
    var locked: Bool
    var researchAccess: String?
    var createdAt: Date

    init(_ user: User) {
        username = user.username
        role = user.role.rawValue
        team = user.teamName
        disabled = user.disabled
        locked = user.lockedAt != nil
        researchAccess = user.role == .researcher ? (user.researchAccess ?? .external).rawValue : nil
        createdAt = user.createdAt
    }
}

struct TeamJSON: Encodable {
    var name: String
    var createdAt: Date
    /// The team's time zone; UTC when none was set.
    var timeZone: String

    init(_ team: Team) {
        name = team.name
        createdAt = team.createdAt
        timeZone = team.timeZone ?? "UTC"
    }
}
