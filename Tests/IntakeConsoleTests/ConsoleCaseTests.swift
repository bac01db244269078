import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeConsole
@testable import IntakeServer
@testable import IntakeService

/// Cases in the console: the team's open cases by due date, one case's timeline, a coordinator's
/// assigning and closing, the team's day counting them; only those who follow a case see it.
struct ConsoleCaseTests {
    typealias Browser = ConsoleBrowser

    static func html(_ response: TestResponse) -> String { String(buffer: response.body) }

    /// A complete screening that opens a case (its `opens:` holds), from `seed` on.
    static func screening(_ server: TestServer, from seed: UInt64) -> PatientResponse {
        var seed = seed
        while server.questionnaire.caseEffects(of: server.record(seed: seed)).opened.isEmpty { seed += 1 }
        return server.record(seed: seed)
    }

    @Test func aCoordinatorSeesTheTeamsCasesByDueDateAndAssignsAndClosesOne() async throws {
        let server = try await TestServer.make()
        var named = Self.screening(server, from: 300)
        named.patient.givenName = "أمينة"
        named.patient.familyName = "Al Haddad"
        let screening = named
        let stored = try await server.services.records.ingest([screening], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        #expect(stored.count == 1)
        try await server.services.cases.catchUpAll()
        let lead = try #require(try await server.services.store.credentials(username: "coordinator-a")?.user)
        let caseId = try #require(try await server.services.cases.pull(by: lead, after: 0, limit: 10).cases.first?.id)
        let id = caseId.uuidString.lowercased()
        try await server.application(modules: [try await ConsoleModule.load()]).test(.router) { client in
            let coordinator = Browser(client)
            try await coordinator.signIn("coordinator-a")
            let list = try await coordinator.get("/console/cases")
            #expect(list.status == .ok)
            let listed = Self.html(list)
            #expect(listed.contains("/console/cases/\(id)") && listed.contains("أمينة Al Haddad"))
            // One case: its row is marked overdue only if it is, and nothing is left unlisted.
            let stored = try #require(try await server.services.store.storedCase(id: caseId))
            let today = LocalDate.today(in: TimeZone(identifier: "UTC")!)
            let overdue = stored.due.map { $0 < today } ?? false
            #expect(listed.contains("<tr class=\"urgent\">") == overdue)
            #expect(listed.components(separatedBy: "<strong>Today</strong>").count - 1 == (stored.due == today ? 1 : 0))
            #expect(!listed.contains("Open cases not listed here"))
            #expect(listed.contains("fieldworker-a"), "assigned to the collector")
            let day = Self.html(try await coordinator.get("/console/day"))
            #expect(day.contains("cases left to the team") && day.contains("href=\"/console/cases\""))

            // Before a questionnaire follows its list, a choice property shows its code.
            // (The screening sets it as text, `set: reason = if(…, "self_harm", …)`; the follow-up reads it as its choice.)
            let reason = try #require(stored.properties["reason"].map { ExpressionValue($0).text })
            #expect(Self.html(try await coordinator.get("/console/cases/\(id)")).contains("<td>\(reason)</td>"))
            _ = try await server.services.questionnaires.publish(
                directory: TestServer.repositoryRoot.appendingPathComponent("Questionnaires/follow-up"))
            let page = try await coordinator.get("/console/cases/\(id)")
            #expect(page.status == .ok)
            let shown = Self.html(page)
            #expect(shown.contains("opened the case") && shown.contains("/console/records/\(screening.id.uuidString.lowercased())"))
            // Once one does, by the label it declares.
            let label = ["low_mood": "Low mood", "long_term_illness": "A long-term illness", "self_harm": "Thoughts of self-harm"][reason]
            #expect(shown.contains("<td>reason</td><td>\(try #require(label))</td>"), "\(reason)")
            let token = try #require(Browser.csrf(page))
            // Left to the team, then closed: both on the case, both in its timeline.
            let assigned = try await coordinator.post("/console/cases/\(id)/assignee", [("csrf", token), ("assignee", "")])
            #expect(assigned.status == .seeOther || assigned.status == .found, "\(assigned.status)")
            #expect(try await server.services.store.storedCase(id: caseId)?.assignee == nil)
            _ = try await coordinator.post("/console/cases/\(id)/status", [("csrf", token), ("status", "closed")])
            let closed = try #require(try await server.services.store.storedCase(id: caseId))
            #expect(closed.status == .closed && closed.statusChanges.map(\.by) == ["coordinator-a"])
            let after = Self.html(try await coordinator.get("/console/cases/\(id)?done=caseSaved"))
            #expect(after.contains("The case is updated.") && after.contains("closed the case") && after.contains("Open the case again"))
            #expect(
                try await coordinator.post("/console/cases/\(id)/status", [("csrf", token), ("status", "shut")]).status
                    == .unprocessableContent)
            #expect(!Self.html(try await coordinator.get("/console/cases")).contains("/console/cases/\(id)"), "closed: off the list")

            // Another team's coordinator, and a researcher, do not reach it.
            let stranger = Browser(client)
            try await stranger.signIn("coordinator-b")
            #expect(try await stranger.get("/console/cases/\(id)").status == .notFound)
            let theirs = try await stranger.get("/console/cases")
            #expect(theirs.status == .ok && !Self.html(theirs).contains(id))
            let researcher = Browser(client)
            try await researcher.signIn("researcher")
            #expect(try await researcher.get("/console/cases").status == .forbidden)
        }
    }

    @Test func aFieldWorkerSeesTheCasesTheyFollowInArabicAndCannotChangeThem() async throws {
        var made = try await TestServer.make()
        try await made.addUser("fieldworker-a2", role: .fieldworker, team: "team-a")
        let server = made
        let screening = Self.screening(server, from: 400)
        _ = try await server.services.records.ingest([screening], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        try await server.services.cases.catchUpAll()
        try await server.application(modules: [try await ConsoleModule.load()]).test(.router) { client in
            let mine = Browser(client)
            try await mine.signIn("fieldworker-a")
            let list = Self.html(try await mine.get("/console/cases"))
            let id = try #require(
                list.range(of: #"/console/cases/[0-9a-f-]{36}"#, options: .regularExpression).map { String(list[$0].dropFirst(15)) })
            let page = try await mine.get("/console/cases/\(id)")
            #expect(page.status == .ok && !Self.html(page).contains("/assignee\""), "no form to change it")
            let token = try #require(Browser.csrf(page))
            #expect(try await mine.post("/console/cases/\(id)/status", [("csrf", token), ("status", "closed")]).status == .forbidden)
            _ = try await mine.post("/console/language", [("csrf", token), ("lang", "ar")])
            let arabic = Self.html(try await mine.get("/console/cases"))
            #expect(arabic.contains("dir=\"rtl\"") && arabic.contains("حالات المتابعة"))

            let other = Browser(client)
            try await other.signIn("fieldworker-a2")
            let others = try await other.get("/console/cases")
            #expect(others.status == .ok && !Self.html(others).contains(id), "assigned to another field worker")
            #expect(try await other.get("/console/cases/\(id)").status == .notFound)
        }
    }
}
