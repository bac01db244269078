import Foundation
import IntakeService

/// What a route acts on, beyond who may call it at all.
public enum RouteScope: Sendable, Equatable {
    /// Nothing more: whom the roles admit reach the handler.
    case none
    /// The record named by `{id}`: ``RecordAccessPolicy`` decides.
    case record(RecordAction)
    /// The team named by `{team}`: its coordinators and admins (a coordinator of another team: 403).
    case team
    /// The registry patient named by `{id}`: its team's members; admins read every team's.
    case patient(write: Bool)
    /// Forming a team: admins, and where the deployment allows it members without a team.
    case teamCreation
    /// Records as an export holds them: ``RecordAccessPolicy/export(by:includeIdentifiers:unlinkedRecordsReachResearchers:)``
    /// decides which (a coordinator their team's, a researcher what consent shares).
    case export(identifiers: Bool)
}

/// Who puts a successful call of a route on the audit trail.
public enum RouteAudit: Sendable, Equatable {
    /// The router: a token's read (`token.read`) or change (`api.change`), naming the method,
    /// the path (ids and names, never a query or a body) and the status.
    case request
    /// The action itself, under its own event and with its own details (`record.create` in the
    /// store's transaction, `export` before a byte is sent, `sign_in`, …).
    case action
    /// Nobody: a public route, or a stream or poll a client keeps open.
    case unrecorded
}

/// Where a request comes in: Intake's own API, or a door beside it on the same server.
public enum Door: String, Sendable, CaseIterable {
    /// Intake's REST API (`/v1`, `/health`, `/metrics`, `/openapi.yaml`).
    case api
    /// The web console (`/console`).
    case console
    /// ODK Central's API, as pyodk uses it (`/odk`).
    case odk
    /// REDCap's API, as PyCap uses it (`/redcap/{questionnaire}/api`).
    case redcap
    /// FHIR R4 REST, as fhirclient uses it (`/fhir`).
    case fhir
}

/// One route's access rule: who may call it, and what it acts on.
public struct RouteRule: Sendable {
    public let door: Door
    public let method: String
    /// The route's pattern, as the router prints it (`/v1/records/{id}`).
    public let path: String
    /// For a route that carries several actions (REDCap's `content`, FHIR's resource type), the
    /// action this row is for; nil for a route that is one action.
    public let action: String?
    /// The roles that may call it; nil when no token is needed.
    public let roles: Set<Role>?
    /// Whether the caller must belong to a team (403 `no_team` otherwise).
    public let needsTeam: Bool
    public let scope: RouteScope
    public let audit: RouteAudit
    /// For a console page or action: the API route it stands for, whose roles, team, scope and
    /// audit it shares, so that the two answer everyone alike.
    public let standsFor: String?
    /// What a door says to a role the row refuses, in its client's words (REDCap's "privileges");
    /// nil for the API's own message.
    public let refusedAs: String?

    init(
        _ method: String, _ path: String, _ roles: Set<Role>?, team: Bool = false, _ scope: RouteScope = .none, audit: RouteAudit? = nil,
        door: Door = .api, action: String? = nil, standsFor: String? = nil, refusedAs: String? = nil
    ) {
        self.door = door
        self.method = method
        self.path = path
        self.action = action
        self.roles = roles
        self.needsTeam = team
        self.scope = scope
        self.audit = audit ?? (roles == nil ? .unrecorded : .request)
        self.standsFor = standsFor
        self.refusedAs = refusedAs
    }

    /// `METHOD path`, and the action after them for a route of several.
    public var key: String { action.map { "\(method) \(path) \($0)" } ?? "\(method) \(path)" }
}

extension Role {
    /// Field workers and coordinators: those who collect and edit a team's records.
    public static let writers: Set<Role> = [.fieldworker, .coordinator]
    /// The registry's readers: a team's writers, and admins.
    public static let patientReaders: Set<Role> = [.fieldworker, .coordinator, .admin]
    /// A team's managers: its coordinators, and admins.
    public static let managers: Set<Role> = [.coordinator, .admin]
    public static let everyone = Set(Role.allCases)
}

/// Every route's access rule, in one table for every door: the router admits a request to the API
/// only as its row says (401 without a token, 403 for another role or without a team), the console
/// and the façades ask the row of their route (and action) before anything else, the access
/// matrices are generated from it, and a route without a row cannot be registered (the API) or
/// fails a test (every door).
public enum RoutePolicy {
    public static let rules: [RouteRule] = [
        RouteRule("GET", "/health", nil),
        RouteRule("GET", "/openapi.yaml", nil),
        // Prometheus scrapes: admins' tokens; not on the audit trail (a scrape every few seconds).
        RouteRule("GET", "/metrics", [.admin], audit: .unrecorded),
        RouteRule("POST", "/v1/sessions", nil, audit: .action),
        RouteRule("DELETE", "/v1/sessions/current", Role.everyone),
        RouteRule("GET", "/v1/me", Role.everyone, audit: .unrecorded),

        RouteRule("GET", "/v1/questionnaires", Role.everyone),
        RouteRule("GET", "/v1/questionnaires/{id}/versions/{version}", Role.everyone),
        RouteRule("POST", "/v1/questionnaires", Role.managers),
        RouteRule("PUT", "/v1/questionnaires/{id}/versions/{version}/state", Role.managers, audit: .action),
        // Trying a draft: test records kept apart from the team's records.
        RouteRule("POST", "/v1/questionnaires/{id}/versions/{version}/test-records", Role.managers, team: true),
        RouteRule("GET", "/v1/questionnaires/{id}/versions/{version}/test-records", Role.managers, team: true),
        RouteRule("POST", "/v1/questionnaires/{id}/versions/{version}/test-records/discard", Role.managers, team: true),
        RouteRule("GET", "/v1/questionnaires/{id}/access", Role.everyone),
        RouteRule("PUT", "/v1/questionnaires/{id}/access", [.admin], audit: .action),

        RouteRule("POST", "/v1/records", Role.writers, team: true, audit: .action),
        RouteRule("POST", "/v1/records/batch", Role.writers, team: true, audit: .action),
        RouteRule("GET", "/v1/records", Role.writers, team: true, audit: .action),
        RouteRule("GET", "/v1/records/ids", Role.writers, team: true),
        RouteRule("GET", "/v1/records/{id}", Role.writers, team: true, .record(.read), audit: .action),
        RouteRule("PUT", "/v1/records/{id}", Role.writers, team: true, .record(.edit), audit: .action),
        RouteRule("GET", "/v1/records/{id}/revisions", Role.writers, team: true, .record(.read), audit: .action),
        RouteRule("GET", "/v1/records/{id}/attachments/{sha256}", Role.writers, team: true, .record(.read), audit: .action),
        RouteRule("GET", "/v1/uploads/{sha256}", Role.writers, team: true),
        RouteRule("PUT", "/v1/uploads/{sha256}", Role.writers, team: true),
        RouteRule("DELETE", "/v1/records/{id}", [.coordinator], team: true, .record(.delete), audit: .action),
        RouteRule("POST", "/v1/records/{id}/grants", [.coordinator], team: true, .record(.grant), audit: .action),
        RouteRule("GET", "/v1/records/{id}/grants", [.coordinator], team: true, .record(.grant)),
        RouteRule("DELETE", "/v1/records/{id}/grants/{grant}", [.coordinator], team: true, .record(.grant), audit: .action),
        RouteRule("GET", "/v1/grants", Role.writers),
        RouteRule("POST", "/v1/records/{id}/transfer", [.coordinator], team: true, .record(.transfer), audit: .action),
        RouteRule("POST", "/v1/patients/{id}/transfer", [.coordinator], team: true, .patient(write: true), audit: .action),
        RouteRule("POST", "/v1/tombstones/purge", [.admin], audit: .action),
        // Cases: a team's field workers pull those they follow; coordinators see, assign and close
        // every one (RecordAccessPolicy.decide(_:by:onCaseOf:assignee:isOpen:) decides each case).
        RouteRule("GET", "/v1/cases", Role.writers, team: true),
        RouteRule("GET", "/v1/cases/{id}", Role.writers, team: true),
        RouteRule("PUT", "/v1/cases/{id}/assignee", [.coordinator], team: true),
        RouteRule("PUT", "/v1/cases/{id}/status", [.coordinator], team: true),
        RouteRule("GET", "/v1/changes", Role.writers, team: true),
        RouteRule("GET", "/v1/changes/stream", Role.writers, team: true),
        RouteRule("GET", "/v1/exports", [.coordinator, .researcher], audit: .action),
        RouteRule("GET", "/v1/exports/attachments/{id}/{sha256}", [.coordinator, .researcher], audit: .action),

        RouteRule("GET", "/v1/teams", [.admin]),
        // Admins; also a field worker or coordinator without a team where the deployment lets
        // members form teams (INTAKE_SERVER_TEAM_CREATION=members): AccountService decides.
        RouteRule("POST", "/v1/teams", Role.everyone, .teamCreation, audit: .action),
        RouteRule("GET", "/v1/users", [.admin]),
        RouteRule("POST", "/v1/users", [.admin], audit: .action),
        RouteRule("PATCH", "/v1/users/{username}", [.admin], audit: .action),
        RouteRule("POST", "/v1/users/{username}/unlock", [.admin]),
        RouteRule("POST", "/v1/users/{username}/tokens", [.admin]),
        RouteRule("GET", "/v1/users/{username}/tokens", [.admin]),
        RouteRule("DELETE", "/v1/users/{username}/tokens/{token}", [.admin], audit: .action),
        RouteRule("GET", "/v1/audit", [.admin]),
        RouteRule("GET", "/v1/audit/verify", [.admin]),

        RouteRule("PATCH", "/v1/teams/{team}", Role.managers, .team),
        RouteRule("GET", "/v1/teams/{team}/members", Role.managers, .team),
        RouteRule("GET", "/v1/teams/{team}/history", Role.managers, .team),
        RouteRule("GET", "/v1/teams/{team}/referrals", Role.managers, .team),
        RouteRule("PATCH", "/v1/teams/{team}/members/{username}", Role.managers, .team, audit: .action),
        RouteRule("DELETE", "/v1/teams/{team}/members/{username}", Role.managers, .team, audit: .action),
        RouteRule("POST", "/v1/teams/{team}/invitations", Role.managers, .team),
        RouteRule("POST", "/v1/teams/{team}/enrolments", Role.managers, .team, audit: .action),
        RouteRule("GET", "/v1/teams/{team}/enrolments", Role.managers, .team),
        RouteRule("GET", "/v1/teams/{team}/devices", Role.managers, .team),
        RouteRule("DELETE", "/v1/teams/{team}/devices/{device}", Role.managers, .team, audit: .action),
        // A new machine uses an enrolment code: no token yet (the code is checked, tries counted).
        RouteRule("POST", "/v1/devices", nil, audit: .action),
        RouteRule("POST", "/v1/announcements", Role.managers),
        RouteRule("GET", "/v1/invitations", Role.everyone),
        RouteRule("POST", "/v1/invitations/{id}/accept", Role.everyone, audit: .action),
        RouteRule("POST", "/v1/invitations/{id}/decline", Role.everyone),
        RouteRule("POST", "/v1/invitations/{id}/revoke", Role.managers),
        RouteRule("POST", "/v1/invitations/{id}/confirm", Role.managers),

        RouteRule("GET", "/v1/notifications", Role.everyone, audit: .unrecorded),
        RouteRule("GET", "/v1/notifications/stream", Role.everyone, audit: .unrecorded),
        RouteRule("GET", "/v1/notifications/counts", Role.everyone, audit: .unrecorded),
        RouteRule("POST", "/v1/notifications/read", Role.everyone),
        RouteRule("DELETE", "/v1/notifications/{id}", Role.everyone),

        RouteRule("GET", "/v1/records/{id}/review", Role.patientReaders, .record(.readReview)),
        RouteRule("POST", "/v1/records/{id}/review", Role.managers, .record(.review), audit: .action),
        RouteRule("POST", "/v1/records/{id}/review/reopen", Role.managers, .record(.review), audit: .action),
        RouteRule("POST", "/v1/records/{id}/review/comments", Role.patientReaders, .record(.readReview), audit: .action),
        RouteRule("GET", "/v1/reviews", Role.patientReaders),

        RouteRule("POST", "/v1/referrals", Role.writers),
        RouteRule("GET", "/v1/referrals", Role.writers),
        RouteRule("GET", "/v1/referrals/{id}", Role.writers),
        RouteRule("POST", "/v1/referrals/{id}/accept", Role.writers),
        RouteRule("POST", "/v1/referrals/{id}/decline", Role.writers),
        RouteRule("POST", "/v1/referrals/{id}/complete", Role.writers),
        RouteRule("POST", "/v1/referrals/{id}/withdraw", Role.writers),
        RouteRule("POST", "/v1/referrals/{id}/reassign", Role.writers),
        RouteRule("POST", "/v1/referrals/{id}/retarget", Role.writers),
        RouteRule("POST", "/v1/referrals/{id}/messages", Role.writers),

        RouteRule("POST", "/v1/webhooks", Role.everyone),
        RouteRule("GET", "/v1/webhooks", Role.everyone),
        RouteRule("GET", "/v1/webhooks/{id}", Role.everyone),
        RouteRule("DELETE", "/v1/webhooks/{id}", Role.everyone),
        RouteRule("POST", "/v1/webhooks/{id}/resume", Role.everyone),

        RouteRule("POST", "/v1/patients", Role.writers, team: true),
        RouteRule("POST", "/v1/patients/batch", Role.writers, team: true),
        RouteRule("GET", "/v1/patients", Role.patientReaders, audit: .action),
        RouteRule("GET", "/v1/patients/{id}", Role.patientReaders, .patient(write: false), audit: .action),
        RouteRule("PATCH", "/v1/patients/{id}", Role.writers, .patient(write: true)),
        RouteRule("POST", "/v1/patients/{id}/archive", Role.writers, .patient(write: true)),
        RouteRule("POST", "/v1/patients/{id}/restore", Role.writers, .patient(write: true)),
        RouteRule("PUT", "/v1/patients/{id}/consent", Role.writers, .patient(write: true), audit: .action),
        RouteRule("GET", "/v1/patients/{id}/consent", Role.patientReaders, .patient(write: false)),
        RouteRule("GET", "/v1/reports", Role.writers, team: true),
        RouteRule("PUT", "/v1/patients/{id}/reports/{series}/{date}", Role.writers, .patient(write: true)),
        RouteRule("GET", "/v1/patients/{id}/reports/{series}/{date}", Role.patientReaders, .patient(write: false)),
        RouteRule("GET", "/v1/patients/{id}/reports/{series}", Role.patientReaders, .patient(write: false)),

        RouteRule("POST", "/v1/data-groups", [.admin]),
        RouteRule("GET", "/v1/data-groups", Role.everyone),
        RouteRule("DELETE", "/v1/data-groups/{name}", [.admin]),
    ]

    /// Every door's rows: the API's (``rules``) and those of the console and the façades (``doors``).
    public static let all: [RouteRule] = rules + doors

    private static let byKey: [String: RouteRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    /// The rule of a route, by method and path pattern (and action, for a route of several), of
    /// whichever door: their paths never meet.
    public static func rule(_ method: String, _ path: String, action: String? = nil) -> RouteRule? {
        byKey[action.map { "\(method) \(path) \($0)" } ?? "\(method) \(path)"]
    }

    /// Whether the row of a route (and action) admits `user`: for what a page offers (a button, a
    /// menu entry), so that it offers only what its action will admit. False for a route without a row.
    public static func admits(_ method: String, _ path: String, action: String? = nil, _ user: User?) -> Bool {
        guard let rule = rule(method, path, action: action) else { return false }
        return refusal(rule, user) == nil
    }

    /// Whether `user` passes the route's gate: nil when admitted, else the status and code to
    /// answer (401 without a token; 403 `forbidden` for another role, `no_team` without a team).
    public static func refusal(_ rule: RouteRule, _ user: User?) -> APIError? {
        guard let roles = rule.roles else { return nil }
        guard let user else { return .unauthenticated }
        guard roles.contains(user.role) else {
            return APIError(
                .forbidden, code: "forbidden",
                message: rule.refusedAs
                    ?? "a \(user.role.rawValue) may not do this; it needs the role \(roles.map(\.rawValue).sorted().joined(separator: " or "))"
            )
        }
        if rule.needsTeam, user.teamId == nil {
            return APIError(.forbidden, code: "no_team", message: "your account belongs to no team; ask an admin to add it to one")
        }
        return nil
    }
}
