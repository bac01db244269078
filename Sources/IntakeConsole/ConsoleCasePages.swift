import Foundation
import Hummingbird
import IntakeCore
import IntakeServer
import IntakeService

/// Cases in the console: the open cases an account follows, soonest due first (a coordinator:
/// the team's), and one case with its timeline (what opened it, its visits, a coordinator's
/// closings) and, for coordinators, whom it is assigned to and whether it is open. Each page asks
/// its row of `RoutePolicy` (in `handle`) and reads through the case service the API uses.
extension ConsoleRoutes {
    /// The cases a list shows (the counts above it are of them all).
    static let casesPage = 200

    func registerCasePages(on router: Router<IntakeRequestContext>) {
        router.get("/console/cases") { request, context in
            try await handle(request, context) { session, _ in try await cases(session) }
        }
        router.get("/console/cases/{id}") { request, context in
            try await handle(request, context) { session, _ in
                try await casePage(session, id: try caseId(context), flash: done(request, session))
            }
        }
        router.post("/console/cases/{id}/assignee") { request, context in
            try await handle(request, context, form: true) { session, form in
                let id = try caseId(context)
                let assignee = form?["assignee"].flatMap { $0.isEmpty ? nil : $0 }
                _ = try await services.cases.assign(id, to: assignee, by: session.user!)
                return .redirect("/console/cases/\(id.uuidString.lowercased())?done=caseSaved")
            }
        }
        router.post("/console/cases/{id}/status") { request, context in
            try await handle(request, context, form: true) { session, form in
                let id = try caseId(context)
                guard let status = form?["status"].flatMap(CaseStatus.init(rawValue:)) else {
                    throw APIError(.unprocessableContent, code: "invalid_case_status", message: "choose open or closed")
                }
                _ = try await services.cases.close(id, closed: status == .closed, by: session.user!)
                return .redirect("/console/cases/\(id.uuidString.lowercased())?done=caseSaved")
            }
        }
    }

    func caseId(_ context: IntakeRequestContext) throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("case") }
        return id
    }

    /// The day in the team's time zone (the page's), as due dates are read.
    func caseToday() -> LocalDate {
        LocalDate.today(in: ConsoleZone.current, now: services.configuration.clock())
    }

    func cases(_ session: ConsoleSession) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let today = caseToday()
        let (cases, counts) = try await services.cases.board(for: user, today: today, limit: Self.casesPage)
        let rows = cases.map { stored -> [String: Any] in
            let overdue = stored.due.map { $0 < today } ?? false
            var row: [String: Any] = [
                "id": stored.id.uuidString.lowercased(), "short": String(stored.id.uuidString.lowercased().prefix(8)), "list": stored.list,
                "patient": Self.patientName(stored.opening.patient, language),
                "assignee": stored.assignee ?? language["theTeam"],
                "due": stored.due.map { language.date($0.description) } ?? "—",
                "visits": language.number(stored.recordVisits.count),
                // Said for every row, true or false: a key a row lacks is looked up on the page.
                "overdue": overdue, "dueToday": stored.due == today, "conflicts": !stored.conflicts.isEmpty,
            ]
            return row
        }
        let values: [String: Any] = [
            "rows": rows, "hasRows": !rows.isEmpty,
            "countOpen": language.number(counts.open), "countOverdue": language.number(counts.overdue),
            "countDueToday": language.number(counts.dueToday), "countUnassigned": language.number(counts.unassigned),
            "hasMore": counts.open > rows.count, "more": language.number(max(0, counts.open - rows.count)),
        ]
        return .page(render("cases", session, title: language["cases"], values))
    }

    func casePage(_ session: ConsoleSession, id: UUID, flash: String?) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let stored = try await services.cases.show(id, by: user)
        let today = caseToday()
        // The timeline: what opened it, each visit and each coordinator's closing, by time.
        var events: [(at: Date, values: [String: Any])] = [
            (
                stored.opening.at,
                [
                    "when": language.time(stored.opening.at), "what": language["caseOpened"], "who": stored.opening.collector,
                    "record": stored.opening.recordId.uuidString.lowercased(),
                    "recordShort": String(stored.opening.recordId.uuidString.lowercased().prefix(8)),
                ]
            )
        ]
        for visit in stored.visits {
            var values: [String: Any] = [
                "when": language.time(visit.at), "who": visit.collector,
                "what": visit.byHand
                    ? language["caseEditedBy"]
                    : visit.withdrawn ? language["visitWithdrawn"] : visit.closes ? language["visitClosed"] : language["visitMade"],
            ]
            if !visit.withdrawn, !visit.byHand {
                values["record"] = visit.recordId.uuidString.lowercased()
                values["recordShort"] = String(visit.recordId.uuidString.lowercased().prefix(8))
            }
            events.append((visit.at, values))
        }
        for change in stored.statusChanges {
            events.append(
                (
                    change.at,
                    [
                        "when": language.time(change.at), "who": change.by,
                        "what": language[change.closed ? "caseClosedBy" : "caseReopenedBy"],
                    ]
                ))
        }
        let follows = try await services.cases.declaration(of: stored.list, for: user)
        let coordinator = RoutePolicy.admits("PUT", "/v1/cases/{id}/assignee", user) && !stored.erased
        var values: [String: Any] = [
            "id": stored.id.uuidString.lowercased(), "list": stored.list,
            "status": language.word("caseStatus", stored.status.rawValue), "erased": stored.erased,
            "patient": Self.patientName(stored.opening.patient, language),
            "assignee": stored.assignee ?? language["theTeam"],
            "due": stored.due.map { language.date($0.description) } ?? "—",
            "overdue": stored.status == .open && (stored.due.map { $0 < today } ?? false),
            "revision": language.number(stored.revision),
            "properties": stored.properties.keys.sorted().map { name in
                let value = stored.properties[name]!
                let declared = follows?.properties.first { $0.name == name }
                return [
                    "name": name,
                    "value": declared.map { $0.text(of: value, language: language.translation) } ?? ExpressionValue(value).text,
                ]
            },
            "hasProperties": !stored.properties.isEmpty,
            "conflicts": stored.conflicts.map { conflict in
                [
                    "property": conflict.property,
                    "records": conflict.recordIds.map {
                        ["record": $0.uuidString.lowercased(), "recordShort": String($0.uuidString.lowercased().prefix(8))]
                    },
                ] as [String: Any]
            },
            "hasConflicts": !stored.conflicts.isEmpty,
            "events": events.sorted { $0.at < $1.at }.map(\.values),
            "canChange": coordinator,
        ]
        if coordinator, let team = user.teamId {
            let members = try await services.store.members(teamId: team)
            var names = members.filter { $0.role == .fieldworker || $0.role == .coordinator }.map(\.username)
            // Whoever it is assigned to now is shown as such, even gone from the team.
            if let assignee = stored.assignee, !names.contains(assignee) { names.insert(assignee, at: 0) }
            values["members"] = names.map { name -> [String: Any] in ["name": name, "selected": name == stored.assignee] }
            values["teamSelected"] = stored.assignee == nil
            values["nextStatus"] = stored.status == .open ? "closed" : "open"
            values["nextStatusLabel"] = language[stored.status == .open ? "closeCase" : "reopenCase"]
        }
        if let flash { values["flash"] = flash }
        return .page(render("case", session, title: language["case"] + " " + String(stored.id.uuidString.lowercased().prefix(8)), values))
    }

    /// A case's patient as its list and page name them: the name the opening record gave (a case
    /// erased keeps none).
    static func patientName(_ patient: PatientIdentification, _ language: ConsoleLanguage) -> String {
        let name = patient.fullName
        return name.isEmpty ? "—" : name
    }
}
