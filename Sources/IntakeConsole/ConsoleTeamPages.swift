import Foundation
import Hummingbird
import IntakeCore
import IntakeServer
import IntakeService

/// The team, the patient registry, questionnaires and administration: each through the service
/// its API routes use, after the same `RoutePolicy` row.
extension ConsoleRoutes {
    func registerTeamPages(on router: Router<IntakeRequestContext>) {
        router.get("/console/team") { request, context in
            try await handle(request, context) { session, _ in
                guard let name = session.user?.teamName else {
                    throw APIError(.forbidden, code: "no_team", message: session.language["forbiddenPage"])
                }
                return .redirect("/console/team/\(Self.segment(name))")
            }
        }
        router.get("/console/team/{team}") { request, context in
            try await handle(request, context) { session, _ in
                try await team(session, name: try context.parameters.require("team"), passcode: nil, flash: done(request, session))
            }
        }
        router.post("/console/team/{team}/invitations") { request, context in
            try await handle(request, context, form: true) { session, form in
                let team = try await services.teams.managedTeam(try context.parameters.require("team"), by: session.user!)
                let role = Role(rawValue: form?["role"] ?? "") ?? .fieldworker
                let issued = try await services.teams.invite(
                    (form?["username"] ?? "").trimmingCharacters(in: .whitespaces), to: team, role: role, days: nil, by: session.user!)
                // Shown in this answer only (no redirect, not cached): the invitee gets it another way.
                return try await self.team(session, name: team.name, passcode: issued.passcode, flash: nil)
            }
        }
        router.post("/console/team/{team}/members/{username}/role") { request, context in
            try await handle(request, context, form: true) { session, form in
                let team = try await services.teams.managedTeam(try context.parameters.require("team"), by: session.user!)
                guard let role = Role(rawValue: form?["role"] ?? "") else {
                    throw APIError.badRequest("role is fieldworker or coordinator")
                }
                _ = try await services.teams.changeRole(
                    in: team, of: try context.parameters.require("username"), to: role, by: session.user!)
                return .redirect("/console/team/\(Self.segment(team.name))")
            }
        }
        router.post("/console/team/{team}/members/{username}/remove") { request, context in
            try await handle(request, context, form: true) { session, _ in
                let team = try await services.teams.managedTeam(try context.parameters.require("team"), by: session.user!)
                try await services.teams.remove(try context.parameters.require("username"), from: team, by: session.user!)
                return .redirect("/console/team/\(Self.segment(team.name))?done=memberRemoved")
            }
        }
        // An invitation the team's coordinator acts on: confirm one accepted, revoke one still open.
        for (action, decision, done) in [
            ("confirm", InvitationDecision.confirm, "invitationConfirmed"), ("revoke", .revoke, "invitationRevoked"),
        ] {
            router.post("/console/invitations/{id}/\(action)") { request, context in
                try await handle(request, context, form: true) { session, _ in
                    guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                        throw APIError.notFound("invitation")
                    }
                    let invitation = try await services.teams.decide(id, decision, by: session.user!)
                    return .redirect("/console/team/\(Self.segment(invitation.teamName))?done=\(done)")
                }
            }
        }
        router.post("/console/team/{team}/time-zone") { request, context in
            try await handle(request, context, form: true) { session, form in
                let team = try await services.teams.managedTeam(try context.parameters.require("team"), by: session.user!)
                _ = try await services.teams.setTimeZone(form?["timeZone"], of: team, by: session.user!)
                return .redirect("/console/team/\(Self.segment(team.name))?done=timeZoneSet")
            }
        }
        router.post("/console/team/{team}/announcements") { request, context in
            try await handle(request, context, form: true) { session, form in
                let team = try await services.teams.managedTeam(try context.parameters.require("team"), by: session.user!)
                _ = try await services.teams.announce(form?["text"] ?? "", to: team.name, by: session.user!)
                return .redirect("/console/team/\(Self.segment(team.name))?done=announced")
            }
        }
        router.get("/console/patients") { request, context in
            try await handle(request, context) { session, _ in
                .page(render("patients", session, title: session.language["patients"], [:]))
            }
        }
        router.post("/console/patients") { request, context in
            try await handle(request, context, form: true) { session, form in try await patients(session, form!) }
        }
        router.get("/console/patients/{id}") { request, context in
            try await handle(request, context) { session, _ in
                guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("patient") }
                return try await patient(session, id: id, flash: done(request, session))
            }
        }
        router.post("/console/patients/{id}/consent") { request, context in
            try await handle(request, context, form: true) { session, form in
                guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("patient") }
                guard let scope = SharingScope(rawValue: form?["scope"] ?? ""), let method = ConsentMethod(rawValue: form?["method"] ?? "")
                else {
                    throw APIError.badRequest(session.language["consentChoose"])
                }
                _ = try await services.patients.recordConsent(id, scope: scope, method: method, by: session.user!)
                return .redirect("/console/patients/\(id.uuidString.lowercased())?done=consentRecorded")
            }
        }
        router.post("/console/patients/{id}/edit") { request, context in
            try await handle(request, context, form: true) { session, form in
                guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("patient") }
                return try await editPatient(session, id: id, form!)
            }
        }
        router.get("/console/questionnaires") { request, context in
            try await handle(request, context) { session, _ in
                try await questionnaires(session, flash: done(request, session))
            }
        }
        router.post("/console/questionnaires") { request, context in
            try await handle(request, context, multipart: true) { session, form in
                try await publish(session, form!)
            }
        }
        router.get("/console/questionnaires/{id}/{version}") { request, context in
            try await handle(request, context) { session, _ in
                try await questionnaire(
                    session, id: try context.parameters.require("id"), version: try context.parameters.require("version"),
                    flash: done(request, session))
            }
        }
        router.post("/console/questionnaires/{id}/{version}/state") { request, context in
            try await handle(request, context, form: true) { session, form in
                let (id, version) = (try context.parameters.require("id"), try context.parameters.require("version"))
                guard let state = QuestionnaireState(rawValue: form?["state"] ?? "") else {
                    throw APIError.badRequest("state is published, closed or retired")
                }
                _ = try await services.questionnaires.change(id: id, version: version, to: state, by: session.user!.username)
                return .redirect("/console/questionnaires/\(Self.segment(id))/\(Self.segment(version))?done=stateDone")
            }
        }
        router.get("/console/admin") { request, context in
            try await handle(request, context) { session, _ in
                try await admin(session, flash: done(request, session))
            }
        }
        // The trail itself, the newest first, 100 a page, filtered by who or what.
        router.get("/console/admin/audit") { request, context in
            try await handle(request, context) { session, _ in
                try await auditEvents(session, request)
            }
        }
        router.post("/console/admin/users") { request, context in
            try await handle(request, context, form: true) { session, form in
                let role = Role(rawValue: form?["role"] ?? "") ?? .fieldworker
                let team = (form?["team"] ?? "").trimmingCharacters(in: .whitespaces)
                do {
                    _ = try await services.accounts.createUser(
                        username: (form?["username"] ?? "").trimmingCharacters(in: .whitespaces), password: form?["password"] ?? "",
                        role: role,
                        team: team.isEmpty ? nil : team, by: session.user!.username)
                } catch let error as AccountError {
                    throw APIError(.unprocessableContent, code: "invalid_account", message: error.description)
                }
                return .redirect("/console/admin?done=userCreated")
            }
        }
        router.get("/console/admin/users/{username}/tokens") { request, context in
            try await handle(request, context) { session, _ in
                try await userTokens(session, username: try context.parameters.require("username"), flash: done(request, session))
            }
        }
        router.post("/console/admin/users/{username}/tokens/{token}/revoke") { request, context in
            try await handle(request, context, form: true) { session, _ in
                let username = try context.parameters.require("username")
                do {
                    try await services.accounts.revokeToken(
                        try context.parameters.require("token"), of: username, by: session.user!.username)
                } catch let error as AccountError {
                    throw APIError.badRequest(error.description)
                }
                return .redirect("/console/admin/users/\(Self.segment(username))/tokens?done=tokenRevoked")
            }
        }
        router.post("/console/admin/users/{username}/tokens") { request, context in
            try await handle(request, context, form: true) { session, _ in
                let username = try context.parameters.require("username")
                let token = try await services.accounts.issueToken(
                    username: username, name: "console", expiresAt: services.configuration.clock().addingTimeInterval(90 * 86_400))
                // Shown in this answer only (not cached, never in an address).
                return try await admin(session, flash: nil, token: (username, token))
            }
        }
        router.post("/console/admin/users/{username}/unlock") { request, context in
            try await handle(request, context, form: true) { session, _ in
                _ = try await services.accounts.unlock(username: try context.parameters.require("username"))
                return .redirect("/console/admin?done=unlocked")
            }
        }
    }

    /// A name as a path segment of a link (``PathSegment``, as the client encodes it).
    static func segment(_ text: String) -> String { PathSegment.encoded(text) }

    func team(_ session: ConsoleSession, name: String, passcode: String?, flash: String?) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let team = try await services.teams.managedTeam(name, by: user)
        let members = try await services.teams.members(of: team)
        let history = try await services.teams.history(of: team)
        // The team's invitations still to be acted on: pending (revoke) and accepted (confirm or revoke).
        let now = services.configuration.clock()
        let invitations = try await services.teams.invitations(for: user, state: nil).filter {
            $0.teamId == team.id && [.pending, .accepted].contains($0.state(at: now))
        }
        var values: [String: Any] = [
            "team": Self.segment(team.name),
            "invitations": invitations.map { invitation -> [String: Any] in
                let state = invitation.state(at: now)
                return [
                    "id": invitation.id.uuidString.lowercased(), "invitee": invitation.invitee,
                    "roleName": language["role.\(invitation.role.rawValue)"],
                    "state": language.word("invitationState", state.rawValue), "by": invitation.invitedBy,
                    "until": language.time(invitation.expiresAt),
                    "actions": (state == .accepted ? ["confirm", "revoke"] : ["revoke"]).map {
                        ["action": $0, "label": language["invitation.\($0)"]]
                    },
                ]
            },
            "hasInvitations": !invitations.isEmpty,
            // The zones this system knows, and the team's own should it be an alias missing from them (Asia/Kolkata).
            "zones": (["UTC"] + Set(TimeZone.knownTimeZoneIdentifiers + [team.timeZone].compactMap { $0 }).subtracting(["UTC"]).sorted())
                .map {
                    ["value": $0, "selected": $0 == (team.timeZone ?? "UTC")]
                },
            "members": members.map { member -> [String: Any] in
                let other: Role = member.role == .coordinator ? .fieldworker : .coordinator
                return [
                    "name": member.username, "roleName": language["role.\(member.role.rawValue)"], "since": language.time(member.since),
                    "otherRole": other.rawValue, "otherRoleLabel": language[other == .coordinator ? "makeCoordinator" : "makeFieldworker"],
                ]
            },
            "history": history.reversed().prefix(50).map { event -> [String: Any] in
                let what: String
                switch event.kind {
                case .joined: what = "\(language["joined"]) \(event.role.map { language["role.\($0.rawValue)"] } ?? "")"
                case .left: what = language["left"]
                case .roleChanged: what = "\(language["roleChanged"]) \(event.role.map { language["role.\($0.rawValue)"] } ?? "")"
                }
                return ["at": language.time(event.at), "text": "\(event.username) \(what) (\(event.by))"]
            },
        ]
        if let passcode { values["passcode"] = passcode }
        if let flash { values["flash"] = flash }
        return .page(render("team", session, title: "\(language["team"]) \(team.name)", values))
    }

    /// The API's registry search (on the trail by its fields, never their values), asked with a form.
    func patients(_ session: ConsoleSession, _ form: ConsoleForm) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        func field(_ name: String) -> String? {
            let value = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : String(value.prefix(200))
        }
        var query = PatientQuery(name: field("name"), externalId: field("externalId"))
        query.limit = Self.patientMatches + 1
        guard query.name != nil || query.externalId != nil else { return .redirect("/console/patients") }
        let fields = [("name", query.name), ("externalId", query.externalId)].filter { $0.1 != nil }.map(\.0)
        try await services.audit.record(
            .lookup, by: user.username, details: ["fields": fields.joined(separator: ","), "registry": "patients", "via": "console"])
        let matched = try await services.patients.find(query, for: user)
        let found = matched.prefix(Self.patientMatches)
        let rows = found.map { patient -> [String: Any] in
            [
                "id": patient.id.uuidString.lowercased(),
                "name": patient.identification.fullName,
                "externalId": patient.identification.externalId ?? "",
                "sharing": patient.sharingScope.map { language.word("sharing", $0.rawValue) } ?? "—",
                "groups": patient.dataGroups.joined(separator: ", "),
            ]
        }
        // More than a page: said, with how to narrow it (a name search is ranked, not paged).
        let count =
            matched.count > Self.patientMatches
            ? language["patientsMore"].replacingOccurrences(of: "{shown}", with: language.number(Self.patientMatches))
            : language["patientsCount"].replacingOccurrences(of: "{shown}", with: language.number(rows.count))
        return .page(
            render(
                "patients", session, title: language["patients"],
                ["searched": true, "rows": rows, "hasRows": !rows.isEmpty, "count": count]))
    }

    static let patientMatches = 100
    static let patientRecords = 100

    /// A patient's identification changed from the page's form, based on the revision the form
    /// showed: a patient changed since is refused (never overwritten), as the API refuses it.
    func editPatient(_ session: ConsoleSession, id: UUID, _ form: ConsoleForm) async throws -> ConsoleAnswer {
        let language = session.language
        func field(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        guard let base = Int(field("revision")) else { throw APIError.badRequest(language["staleForm"]) }
        var person = try await services.patients.patient(id, for: session.user!).identification
        person.givenName = field("givenName")
        person.familyName = field("familyName")
        let birth = field("dateOfBirth")
        if birth.isEmpty {
            person.dateOfBirth = nil
        } else {
            guard let date = LocalDate(iso: birth) else {
                throw APIError(.unprocessableContent, code: "invalid_request", message: language["dateOfBirthFormat"])
            }
            person.dateOfBirth = date
        }
        person.sex = PatientIdentification.Sex(rawValue: field("sex"))
        person.externalId = field("externalId").isEmpty ? nil : field("externalId")
        switch try await services.patients.update(id, baseRevision: base, identification: person, by: session.user!) {
        case .changed: return .redirect("/console/patients/\(id.uuidString.lowercased())?done=patientSaved")
        case .notFound: throw APIError.notFound("patient")
        case .stale: throw APIError(.conflict, code: "stale_revision", message: language["patientStale"])
        case .externalIdTaken: throw APIError(.conflict, code: "external_id_taken", message: language["externalIdTaken"])
        case .unknownDataGroups(let unknown, let defined):
            throw APIError(
                .unprocessableContent, code: "unknown_data_group", message: PatientService.unknownGroups(unknown, defined: defined))
        }
    }

    func patient(_ session: ConsoleSession, id: UUID, flash: String? = nil) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let patient = try await services.patients.patient(id, for: user)
        try await services.audit.record(.patientRead, by: user.username, subject: id.uuidString.lowercased(), details: ["via": "console"])
        let (_, consents) = try await services.patients.consent(id, for: user)
        // The patient's reports: the team's, from this patient on (ordered by patient, series, date).
        var reports: [Report] = []
        if user.teamId != nil {
            reports = try await services.patients.teamReports(after: (id, "", ""), limit: 500, for: user).filter { $0.patientId == id }
        }
        let series = Dictionary(grouping: reports, by: \.series).sorted { $0.key < $1.key }.map { name, entries -> [String: Any] in
            // Each date's first number among its values, as a bar.
            let bars = entries.sorted { $0.date < $1.date }.map { report -> (String, Int) in
                let number =
                    (try? JSONSerialization.jsonObject(with: Data(report.values.utf8)) as? [String: Any])?
                    .sorted { $0.key < $1.key }.compactMap { ($0.value as? NSNumber)?.doubleValue }.first ?? 0
                // Any JSON number may be there: keep it finite and within what a bar can show.
                let shown = number.isFinite ? min(max(number, -1e9), 1e9) : 0
                return (language.digits(report.date), Int(shown.rounded()))
            }
            return ["name": name, "chart": ConsoleChart.bars(bars, language: language, title: name)]
        }
        let name = patient.identification.fullName
        let sexChoices: [PatientIdentification.Sex?] = [nil] + PatientIdentification.Sex.allCases.map { Optional($0) }
        let sexes: [[String: Any]] = sexChoices.map { sex in
            let label: String = sex.map { language["sex.\($0.rawValue)"] } ?? "—"
            return ["value": sex?.rawValue ?? "", "label": label, "selected": sex == patient.identification.sex]
        }
        let scopes: [[String: Any]] = SharingScope.allCases.map {
            ["value": $0.rawValue, "label": language.word("sharing", $0.rawValue), "selected": $0 == patient.sharingScope]
        }
        let methods: [[String: Any]] = ConsentMethod.allCases.map { ["value": $0.rawValue, "label": language.word("method", $0.rawValue)] }
        let consentRows: [[String: Any]] = consents.reversed().map {
            [
                "at": language.time($0.recordedAt), "scope": language.word("sharing", $0.scope.rawValue),
                "method": language.word("method", $0.method.rawValue), "by": $0.recordedBy,
            ]
        }
        var values: [String: Any] = [
            "externalId": patient.identification.externalId ?? "—",
            "sharing": patient.sharingScope.map { language.word("sharing", $0.rawValue) } ?? "—",
            "id": id.uuidString.lowercased(), "revision": String(patient.revision),
            "canEdit": RoutePolicy.admits("POST", "/console/patients/{id}/edit", user),
            "canConsent": RoutePolicy.admits("POST", "/console/patients/{id}/consent", user),
            "givenName": patient.identification.givenName, "familyName": patient.identification.familyName,
            "dateOfBirth": patient.identification.dateOfBirth?.description ?? "",
            "externalIdValue": patient.identification.externalId ?? "",
            "sexes": sexes, "scopes": scopes, "methods": methods,
            "groups": patient.dataGroups.isEmpty ? language["none"] : patient.dataGroups.joined(separator: ", "),
            "archived": patient.archivedAt != nil, "consents": consentRows, "series": series, "hasSeries": !series.isEmpty,
        ]
        // The patient's records this user may list (a team's coordinators: the team's; a field
        // worker: those they collected), the most recently changed first, with their review state.
        if user.role != .researcher {
            let (records, total) = try await services.reviews.page(
                by: user, states: [], questionnaireId: nil, collector: nil, limit: Self.patientRecords, offset: 0, patientId: id)
            values["records"] = records.map { review -> [String: Any] in
                [
                    "id": review.recordId.uuidString.lowercased(), "short": String(review.recordId.uuidString.lowercased().prefix(8)),
                    "questionnaire": "\(review.questionnaireId) \(review.questionnaireVersion)", "collector": review.collector,
                    "stateLabel": stateLabel(review.state, language), "changed": language.time(review.updatedAt),
                ]
            }
            values["hasRecords"] = !records.isEmpty
            values["recordsCount"] = language["pageCount"].replacingOccurrences(
                of: "{first}", with: language.number(records.isEmpty ? 0 : 1)
            )
            .replacingOccurrences(of: "{last}", with: language.number(records.count)).replacingOccurrences(
                of: "{total}", with: language.number(total ?? records.count))
        }
        if let flash { values["flash"] = flash }
        return .page(render("patient", session, title: name.isEmpty ? language["patient"] : name, values))
    }

    func questionnaires(_ session: ConsoleSession, flash: String?) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let rows = try await services.questionnaires.visible(to: user).sorted { ($0.id, $0.publishedAt) < ($1.id, $1.publishedAt) }.map {
            [
                "id": $0.id, "version": $0.version, "title": $0.title,
                "state": language.word("questionnaireState", $0.status.state.rawValue), "at": language.time($0.publishedAt),
            ]
        }
        var values: [String: Any] = ["rows": rows, "canPublish": RoutePolicy.admits("POST", "/console/questionnaires", user)]
        if let flash { values["flash"] = flash }
        return .page(render("questionnaires", session, title: language["questionnaires"], values))
    }

    /// A version's sections as the field worker sees the questions (in the console's language
    /// where the questionnaire has it), and its state's moves for those who may make them.
    func questionnaire(_ session: ConsoleSession, id: String, version: String, flash: String?) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        guard let entry = try await services.questionnaires.visible(to: user).first(where: { $0.id == id && $0.version == version }),
            let questionnaire = try await services.questionnaires.questionnaire(QuestionnaireReference(id: id, version: version))
        else { throw APIError.notFound("questionnaire \(id) version \(version)") }
        let code = language.translation
        let sections = questionnaire.sections.map { section -> [String: Any] in
            [
                "title": section.title.text(in: code),
                "questions": section.questions.map { question -> [String: Any] in
                    var choices: [[String: Any]] = []
                    switch question.type {
                    case .singleChoice(let set), .multipleChoice(let set):
                        choices = set.choices.map { ["label": $0.label.text(in: code), "code": $0.code] }
                    default: break
                    }
                    return [
                        "text": question.text.text(in: code), "required": question.isRequired, "kind": question.type.keyword,
                        "choices": choices,
                        "hasChoices": !choices.isEmpty,
                    ]
                },
            ]
        }
        let moves: [(QuestionnaireState, String)] = [(.published, "toPublished"), (.closed, "toClosed"), (.retired, "toRetired")]
        var values: [String: Any] = [
            "id": Self.segment(id), "version": Self.segment(version),
            "state": language.word("questionnaireState", entry.status.state.rawValue), "sections": sections,
            "canChange": RoutePolicy.admits("POST", "/console/questionnaires/{id}/{version}/state", user),
            // Only the moves the lifecycle allows from here (a draft is only published).
            "moves": moves.filter { QuestionnaireLifecycle.allows(entry.status.state, to: $0.0) }.map {
                ["value": $0.0.rawValue, "label": language[$0.1]]
            },
        ]
        if let flash { values["flash"] = flash }
        return .page(render("questionnaire", session, title: "\(questionnaire.title.text(in: code)) (\(version))", values))
    }

    /// A new version from the files of its folder, as `POST /v1/questionnaires` takes them: the
    /// section files (and their translations, and manifest.txt) by name, the shared lists by the
    /// folder they came from (`lists/`).
    func publish(_ session: ConsoleSession, _ form: ConsoleForm) async throws -> ConsoleAnswer {
        var files: [String: String] = [:]
        var lists: [String: String] = [:]
        for file in form.files where !file.name.isEmpty {
            guard let text = String(data: file.content, encoding: .utf8) else {
                throw APIError(.unprocessableContent, code: "invalid_questionnaire", message: "\(file.name) is not UTF-8 text")
            }
            // A browser sends a file's name, not its path.
            let name = String(file.name.split(separator: "/").last ?? "")
            if file.field == "lists" { lists[name] = text } else { files[name] = text }
        }
        guard !files.isEmpty else {
            throw APIError(.unprocessableContent, code: "invalid_questionnaire", message: "choose the questionnaire's files")
        }
        do {
            let (published, _) = try await services.questionnaires.publish(
                files: files, lists: lists, draft: form.flag("draft"), by: session.user!.username)
            return .redirect("/console/questionnaires/\(Self.segment(published.id))/\(Self.segment(published.version))?done=publishedDone")
        } catch let error as ServiceError {
            let answer = APIError.answer(for: error)!
            let problems = error.problems.prefix(20).joined(separator: "; ")
            throw APIError(answer.status, code: answer.code, message: answer.message + (problems.isEmpty ? "" : ": " + problems))
        }
    }

    /// The audit trail's events, the newest first, a page at a time back to the first; filtered by
    /// actor and action as `GET /v1/audit` is. Subjects are ids, user and team names, never patient data.
    func auditEvents(_ session: ConsoleSession, _ request: Request) async throws -> ConsoleAnswer {
        let language = session.language
        let parameters = request.uri.queryParameters
        func text(_ name: Substring) -> String? { parameters[name].map(String.init).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } }
        var query = AuditQuery(actor: text("actor"), action: text("action"), limit: Self.auditPage + 1)
        query.newestFirst = true
        query.before = parameters["before"].flatMap { Int64(String($0)) }
        let found = try await services.audit.events(query)
        let events = found.prefix(Self.auditPage)
        var values: [String: Any] = [
            "actor": query.actor ?? "", "action": query.action ?? "",
            "events": events.map { event -> [String: Any] in
                [
                    "seq": language.number(Int(event.seq)), "at": Timestamp.date(from: event.at).map(language.time) ?? event.at,
                    "actor": event.actor.isEmpty ? "—" : event.actor, "action": event.action, "subject": event.subject,
                    "details": event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                ]
            },
            "hasEvents": !events.isEmpty,
        ]
        func link(before: Int64?) -> String {
            var items = [URLQueryItem]()
            if let before { items.append(URLQueryItem(name: "before", value: String(before))) }
            if let actor = query.actor { items.append(URLQueryItem(name: "actor", value: actor)) }
            if let action = query.action { items.append(URLQueryItem(name: "action", value: action)) }
            var components = URLComponents()
            components.path = "/console/admin/audit"
            components.queryItems = items.isEmpty ? nil : items
            return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        if found.count > Self.auditPage, let last = events.last { values["older"] = link(before: last.seq) }
        if query.before != nil { values["newest"] = link(before: nil) }
        values["pages"] = values["older"] != nil || values["newest"] != nil
        return .page(render("audit", session, title: language["auditEvents"], values))
    }

    static let auditPage = 100

    /// A user's tokens (never the tokens: the start of their hashes), each revocable.
    func userTokens(_ session: ConsoleSession, username: String, flash: String?) async throws -> ConsoleAnswer {
        let language = session.language
        let now = services.configuration.clock()
        let tokens = try await services.accounts.tokens(of: username)
        var values: [String: Any] = [
            "user": Self.segment(username), "username": username, "hasTokens": !tokens.isEmpty,
            "tokens": tokens.map { token -> [String: Any] in
                [
                    "id": token.id, "name": language.word("tokenName", token.name), "created": language.time(token.createdAt),
                    "expires": token.expiresAt.map { ($0 <= now ? language["expiredOn"] + " " : "") + language.time($0) }
                        ?? language["never"],
                ]
            },
        ]
        if let flash { values["flash"] = flash }
        return .page(render("tokens", session, title: "\(language["tokensOf"]) \(username)", values))
    }

    func admin(_ session: ConsoleSession, flash: String?, token: (user: String, value: String)? = nil) async throws -> ConsoleAnswer {
        let language = session.language
        let report = try await services.audit.verify()
        let audit =
            report.isSound
            ? String(format: language["auditSound"], report.checked)
            : String(format: language["auditBroken"], "\(report.problem.map { "\($0)" } ?? "")")
        let users = try await services.accounts.users().map { user -> [String: Any] in
            let locked = user.lockedAt != nil
            return [
                "name": user.username, "roleName": language["role.\(user.role.rawValue)"], "team": user.teamName ?? "—",
                "state": language[user.disabled ? "disabledState" : locked ? "lockedState" : "activeState"], "locked": locked,
            ]
        }
        var values: [String: Any] = [
            "roles": [Role.fieldworker, .coordinator, .researcher, .admin].map {
                ["value": $0.rawValue, "label": language["role.\($0.rawValue)"]]
            },
            "audit": language.digits(audit), "users": users,
            "teams": try await services.accounts.teams().map { ["name": $0.name, "href": "/console/team/" + Self.segment($0.name)] },
        ]
        if let flash { values["flash"] = flash }
        if let token {
            values["token"] = token.value
            values["tokenUser"] = token.user
        }
        return .page(render("admin", session, title: language["admin"], values))
    }
}
