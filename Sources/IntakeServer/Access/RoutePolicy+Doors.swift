import Foundation
import IntakeService

extension RoutePolicy {
    /// The rows of the doors beside the API: the console's pages and actions, and every route (and
    /// action) of the ODK, REDCap and FHIR façades. A console page stands for an API route and
    /// shares its row; a façade's rows are its own, with the same roles as the API's routes that
    /// do the same.
    public static let doors: [RouteRule] = console + odk + redcap + fhir

    /// A console page or action that stands for `api`: its roles, team, scope and audit; `scope`
    /// when the page names what the API route takes in its body (a team in the path).
    static func console(_ method: String, _ path: String, as api: String, scope: RouteScope? = nil) -> RouteRule {
        guard let row = rules.first(where: { $0.key == api }) else { preconditionFailure("\(api) is no API route") }
        return RouteRule(method, path, row.roles, team: row.needsTeam, scope ?? row.scope, audit: row.audit, door: .console, standsFor: api)
    }

    static let console: [RouteRule] = [
        // Signing in, the language and the assets: no session needed.
        RouteRule("GET", "/console", nil, door: .console),
        RouteRule("GET", "/console/sign-in", nil, door: .console),
        RouteRule("POST", "/console/sign-in", nil, audit: .action, door: .console),
        RouteRule("POST", "/console/language", nil, door: .console),
        RouteRule("GET", "/console/assets/{name}", nil, door: .console),
        RouteRule("GET", "/favicon.ico", nil, door: .console),
        // This browser's session, and every session of the account (tokens of scripts and machines stay).
        RouteRule("POST", "/console/sign-out", Role.everyone, audit: .action, door: .console),
        RouteRule("POST", "/console/sign-out-everywhere", Role.everyone, audit: .action, door: .console),
        // The day: a coordinator's and an admin's page; anyone else is taken to their own home.
        RouteRule("GET", "/console/day", Role.everyone, audit: .unrecorded, door: .console),
        console("GET", "/console/badge", as: "GET /v1/notifications/counts"),
        console("GET", "/console/events", as: "GET /v1/notifications/stream"),
        console("GET", "/console/records", as: "GET /v1/reviews"),
        console("POST", "/console/records/search", as: "GET /v1/records"),
        console("GET", "/console/records/{id}", as: "GET /v1/records/{id}/review"),
        console("POST", "/console/records/{id}/review", as: "POST /v1/records/{id}/review"),
        console("POST", "/console/records/{id}/reopen", as: "POST /v1/records/{id}/review/reopen"),
        console("POST", "/console/records/{id}/comment", as: "POST /v1/records/{id}/review/comments"),
        // Cases: the open cases the account follows, one case, and a coordinator's changes.
        console("GET", "/console/cases", as: "GET /v1/cases"),
        console("GET", "/console/cases/{id}", as: "GET /v1/cases/{id}"),
        console("POST", "/console/cases/{id}/assignee", as: "PUT /v1/cases/{id}/assignee"),
        console("POST", "/console/cases/{id}/status", as: "PUT /v1/cases/{id}/status"),
        console("GET", "/console/inbox", as: "GET /v1/notifications"),
        console("POST", "/console/inbox/read", as: "POST /v1/notifications/read"),
        console("GET", "/console/referrals", as: "GET /v1/referrals"),
        console("POST", "/console/referrals/{id}/{action}", as: "POST /v1/referrals/{id}/accept"),
        console("GET", "/console/exports", as: "GET /v1/exports"),
        console("POST", "/console/exports", as: "GET /v1/exports"),
        // The team page without a team named: a member's own team.
        RouteRule("GET", "/console/team", Role.everyone, team: true, audit: .unrecorded, door: .console),
        console("GET", "/console/team/{team}", as: "GET /v1/teams/{team}/members"),
        console("POST", "/console/team/{team}/invitations", as: "POST /v1/teams/{team}/invitations"),
        console("POST", "/console/team/{team}/members/{username}/role", as: "PATCH /v1/teams/{team}/members/{username}"),
        console("POST", "/console/team/{team}/members/{username}/remove", as: "DELETE /v1/teams/{team}/members/{username}"),
        console("POST", "/console/invitations/{id}/confirm", as: "POST /v1/invitations/{id}/confirm"),
        console("POST", "/console/invitations/{id}/revoke", as: "POST /v1/invitations/{id}/revoke"),
        console("POST", "/console/team/{team}/time-zone", as: "PATCH /v1/teams/{team}"),
        // The API's announcement names its team in the body (a coordinator's own); the page, in its path.
        console("POST", "/console/team/{team}/announcements", as: "POST /v1/announcements", scope: .team),
        console("GET", "/console/patients", as: "GET /v1/patients"),
        console("POST", "/console/patients", as: "GET /v1/patients"),
        console("GET", "/console/patients/{id}", as: "GET /v1/patients/{id}"),
        console("POST", "/console/patients/{id}/consent", as: "PUT /v1/patients/{id}/consent"),
        console("POST", "/console/patients/{id}/edit", as: "PATCH /v1/patients/{id}"),
        console("GET", "/console/questionnaires", as: "GET /v1/questionnaires"),
        console("POST", "/console/questionnaires", as: "POST /v1/questionnaires"),
        console("GET", "/console/questionnaires/{id}/{version}", as: "GET /v1/questionnaires/{id}/versions/{version}"),
        console("POST", "/console/questionnaires/{id}/{version}/state", as: "PUT /v1/questionnaires/{id}/versions/{version}/state"),
        console("GET", "/console/admin", as: "GET /v1/users"),
        console("GET", "/console/admin/audit", as: "GET /v1/audit"),
        console("POST", "/console/admin/users", as: "POST /v1/users"),
        console("GET", "/console/admin/users/{username}/tokens", as: "GET /v1/users/{username}/tokens"),
        console("POST", "/console/admin/users/{username}/tokens", as: "POST /v1/users/{username}/tokens"),
        console("POST", "/console/admin/users/{username}/tokens/{token}/revoke", as: "DELETE /v1/users/{username}/tokens/{token}"),
        console("POST", "/console/admin/users/{username}/unlock", as: "POST /v1/users/{username}/unlock"),
    ]

    /// ODK Central's API (a project is a team, a form a questionnaire, a submission a record).
    static let odk: [RouteRule] = {
        let b = "/odk/v1"
        let form = "\(b)/projects/{project}/forms/{form}"
        let submission = "\(form)/submissions/{instance}"
        return [
            RouteRule("POST", "\(b)/sessions", nil, audit: .action, door: .odk),
            RouteRule("GET", "\(b)/users/current", Role.everyone, audit: .unrecorded, door: .odk),
            // Projects and forms: whom the projects are shown to decides (their team's; every
            // team's to an admin, and to a researcher of none).
            RouteRule("GET", "\(b)/projects", Role.everyone, door: .odk),
            RouteRule("GET", "\(b)/projects/{project}", Role.everyone, door: .odk),
            RouteRule("GET", "\(b)/projects/{project}/forms", Role.everyone, door: .odk),
            RouteRule("GET", form, Role.everyone, door: .odk),
            RouteRule("GET", "\(form)/attachments", Role.everyone, door: .odk),
            // A follow-up's case list as its entity-list attachment: the cases the caller follows (as GET /v1/cases).
            RouteRule("GET", "\(form)/attachments/{name}", Role.writers, team: true, door: .odk),
            // Submissions read as a JSON Lines export holds them (as GET /v1/exports).
            RouteRule("GET", "\(form)/{table}", [.coordinator, .researcher], .export(identifiers: false), audit: .action, door: .odk),
            RouteRule("GET", "\(form)/{table}/**", [.coordinator, .researcher], .export(identifiers: false), audit: .action, door: .odk),
            RouteRule("GET", "\(form)/submissions", [.coordinator, .researcher], .export(identifiers: false), audit: .action, door: .odk),
            // One submission, as a record (as GET, PUT /v1/records/{id} and its review).
            RouteRule("POST", "\(form)/submissions", Role.writers, team: true, audit: .action, door: .odk),
            RouteRule("GET", submission, Role.writers, team: true, .record(.read), audit: .action, door: .odk),
            RouteRule("GET", "\(submission)/attachments", Role.writers, team: true, .record(.read), audit: .action, door: .odk),
            RouteRule("PUT", submission, Role.writers, team: true, .record(.edit), audit: .action, door: .odk),
            RouteRule("PATCH", submission, Role.managers, .record(.review), audit: .action, door: .odk),
            RouteRule("POST", "\(submission)/comments", Role.patientReaders, .record(.readReview), audit: .action, door: .odk),
            RouteRule("GET", "\(submission)/comments", Role.patientReaders, .record(.readReview), door: .odk),
            // Case lists as entity lists, cases as entities: who follows a case sees it (as GET
            // /v1/cases); coordinators open one by hand (a case no record opened).
            RouteRule("GET", "\(b)/projects/{project}/datasets", Role.writers, team: true, door: .odk),
            RouteRule("GET", "\(b)/projects/{project}/datasets/{name}/entities", Role.writers, team: true, door: .odk),
            RouteRule("POST", "\(b)/projects/{project}/datasets/{name}/entities", [.coordinator], team: true, audit: .action, door: .odk),
            RouteRule("GET", "\(b)/projects/{project}/datasets/{name}/entities/{uuid}", Role.writers, team: true, door: .odk),
            RouteRule("GET", "\(b)/projects/{project}/datasets/{name}/Entities", Role.writers, team: true, door: .odk),
            // Coordinators change a case by hand, and delete one opened by hand (as PUT /v1/cases/{id}/status).
            RouteRule(
                "PATCH", "\(b)/projects/{project}/datasets/{name}/entities/{uuid}", [.coordinator], team: true, audit: .action, door: .odk),
            RouteRule(
                "DELETE", "\(b)/projects/{project}/datasets/{name}/entities/{uuid}", [.coordinator], team: true, audit: .action,
                door: .odk),
            RouteRule("POST", "\(b)/projects/{project}/datasets/{name}/properties", [.coordinator], team: true, audit: .action, door: .odk),
        ]
            + ["GET", "POST", "PUT", "PATCH", "DELETE"].map {
                // Anything else under the prefix: ODK's own 404, to whoever asks.
                RouteRule($0, "\(b)/**", nil, door: .odk)
            }
    }()

    /// REDCap's API: one route, an action per `content` (and, for records, export, import or delete).
    static let redcap: [RouteRule] = {
        let path = "/redcap/{questionnaire}/api"
        func action(
            _ name: String, _ roles: Set<Role>, team: Bool = false, _ scope: RouteScope = .none, audit: RouteAudit? = nil,
            refusedAs: String? = nil
        )
            -> RouteRule
        {
            RouteRule("POST", path, roles, team: team, scope, audit: audit, door: .redcap, action: name, refusedAs: refusedAs)
        }
        return [
            // The route itself: a token in the form (REDCap's way), which the action's row then admits.
            RouteRule("POST", path, nil, door: .redcap),
            action("version", Role.everyone, audit: .unrecorded),
            // A project's design: whoever may see the questionnaire.
            action("project", Role.everyone), action("metadata", Role.everyone), action("exportFieldNames", Role.everyone),
            action("instrument", Role.everyone), action("repeatingFormsEvents", Role.everyone),
            action("generateNextRecordName", Role.everyone),
            // Longitudinal designs: a classic project has none (400 to whoever asks).
            action("formEventMapping", Role.everyone), action("event", Role.everyone), action("arm", Role.everyone),
            action(
                "record:export", [.coordinator, .researcher], .export(identifiers: false), audit: .action,
                refusedAs: "You do not have API Export privileges (coordinators and researchers export records)."),
            action(
                "record:import", Role.writers, team: true, audit: .action,
                refusedAs: "You do not have API Import/Update privileges (field workers and coordinators of a team send records)."),
            // Records are deleted with a reason, through Intake's own API: refused to everyone here.
            action(
                "record:delete", [],
                refusedAs:
                    "Records are not deleted through this API; a coordinator deletes one with a reason: intake delete RECORD --reason TEXT (DELETE /v1/records/{id})."
            ),
        ]
    }()

    /// FHIR R4 REST: read-only; an action per resource type.
    static let fhir: [RouteRule] = {
        let b = "/fhir"
        var rows = [
            RouteRule("GET", "\(b)/metadata", nil, door: .fhir),
            // The route of a type: its action's row admits (an unknown type is 404 to whoever asks).
            RouteRule("GET", "\(b)/{type}", Role.everyone, audit: .unrecorded, door: .fhir),
            RouteRule("GET", "\(b)/{type}/{id}", Role.everyone, audit: .unrecorded, door: .fhir),
            RouteRule("GET", "\(b)/{type}/{id}/**", Role.everyone, audit: .unrecorded, door: .fhir),
        ]
        for path in ["\(b)/{type}", "\(b)/{type}/{id}"] {
            rows += [
                RouteRule("GET", path, Role.everyone, door: .fhir, action: "Questionnaire"),
                RouteRule(
                    "GET", path, [.coordinator, .researcher], .export(identifiers: false), audit: .action, door: .fhir,
                    action: "QuestionnaireResponse"),
                RouteRule(
                    "GET", path, [.coordinator], team: true, .export(identifiers: true), audit: .action, door: .fhir, action: "Patient"),
            ]
        }
        // Read-only: writes are 405, to whoever sends them.
        for method in ["POST", "PUT", "PATCH", "DELETE"] {
            for path in [b, "\(b)/metadata", "\(b)/{type}", "\(b)/{type}/{id}", "\(b)/{type}/{id}/**"] {
                rows.append(RouteRule(method, path, nil, door: .fhir))
            }
        }
        return rows
    }()
}
