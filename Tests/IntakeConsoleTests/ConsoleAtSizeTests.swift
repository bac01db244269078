import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeConsole
@testable import IntakeServer
@testable import IntakeService

/// The console on ordinary field data at its real size: a thousand notifications, a team named
/// in Arabic with a space and a `%`, an edit of who the record is about.
struct ConsoleAtSizeTests {
    typealias Browser = ConsoleBrowser

    static func html(_ response: TestResponse) -> String { ConsoleTests.html(response) }

    @Test func aThousandNotificationsShowTheNewestFirstAndPagingReachesTheOldest() async throws {
        let server = try await TestServer.make()
        let lead = try #require(try await server.services.store.credentials(username: "coordinator-a")?.user)
        for number in 1...1000 { _ = try await server.services.teams.announce("note \(number)", to: "team-a", by: lead) }
        try await ConsoleTests.application(server).test(.router) { client in
            let browser = Browser(client)
            try await browser.signIn("fieldworker-a")
            var seen: [Int] = []
            var page = "/console/inbox"
            var pages = 0
            while true {
                let html = Self.html(try await browser.get(page))
                pages += 1
                if pages == 1 { #expect(html.contains("50 of 1000 unread, the newest first"), "\(html.prefix(2000))") }
                let numbers = html.matches(of: /note (\d+)</).compactMap { Int($0.1) }
                #expect(numbers.count == 50, "page \(pages): \(numbers.count)")
                seen += numbers
                guard let older = html.firstMatch(of: /href="(\/console\/inbox\?before=\d+)" rel="next"/) else { break }
                page = String(older.1)
                #expect(pages < 25, "paging ends")
                if pages >= 25 { break }
            }
            #expect(seen == Array((1...1000).reversed()), "the newest first, each once, down to the oldest")
            #expect(pages == 20)
        }
    }

    @Test func aTeamNamedInArabicWithASpaceAndAPercentIsReachedFromTheConsole() async throws {
        let name = "عيادة متنقلة 50% / B+"
        let server = try await TestServer.make()
        _ = try await server.services.accounts.createTeam(name: name)
        _ = try await server.services.accounts.createUser(username: "newcomer", password: "newcomer-pass-1", role: .fieldworker, team: nil)
        try await ConsoleTests.application(server).test(.router) { client in
            let admin = Browser(client)
            try await admin.signIn("admin")
            let list = Self.html(try await admin.get("/console/admin"))
            let href = "/console/team/" + PathSegment.encoded(name)
            #expect(list.contains("href=\"\(href)\""), "the administration page links the team")
            let team = try await admin.get(href)
            #expect(team.status == .ok && Self.html(team).contains(name), "\(Self.html(team).prefix(600))")
            let invited = try await admin.post(
                href + "/invitations", [("csrf", Browser.csrf(team) ?? ""), ("username", "newcomer"), ("role", "fieldworker")])
            #expect(invited.status == .ok && Self.html(invited).contains("class=\"passcode\""), "\(Self.html(invited).prefix(600))")
        }
    }

    @Test func theRevisionComparisonShowsWhoTheRecordIsAbout() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 821)
        _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        let id = record.id.uuidString.lowercased()
        try await ConsoleTests.application(server).test(.router) { client in
            let changed = record.with {
                $0.patient.givenName = "Amal"
                $0.patient.familyName = "Khoury"
                $0.patient.externalId = "F-2031"
                $0.patient.dateOfBirth = LocalDate(year: 1984, month: 2, day: 29)
            }
            let edited = try await client.send(
                .put, "/v1/records/\(id)", as: "fieldworker-a", in: server, json: Update(baseRevision: 1, record: changed))
            #expect(edited.status == .ok, "\(edited.text)")
            let lead = Browser(client)
            try await lead.signIn("coordinator-a")
            let page = Self.html(try await lead.get("/console/records/\(id)"))
            let compared = try #require(page.range(of: "class=\"compare\"").map { String(page[$0.lowerBound...]) })
            for field in ["Given name", "Family name", "File number", "Date of birth"] {
                #expect(compared.contains(field), "\(field) in the comparison")
            }
            #expect(
                compared.contains("Amal") && compared.contains("Khoury") && compared.contains("F-2031") && compared.contains("1984-02-29"))
        }
    }
}

extension ConsoleAtSizeTests {
    /// What a coordinator and an admin did only through the CLI: remove a member, revoke and
    /// confirm invitations, announce; create a user, browse the audit trail's events.
    @Test func aCoordinatorAndAnAdminDoTheWholeJobInTheConsole() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.accounts.createUser(username: "newcomer", password: "newcomer-pass-1", role: .fieldworker, team: nil)
        try await ConsoleTests.application(server).test(.router) { client in
            let lead = Browser(client)
            try await lead.signIn("coordinator-a")
            var page = try await lead.get("/console/team/team-a")
            let invited = try await lead.post(
                "/console/team/team-a/invitations", [("csrf", Browser.csrf(page) ?? ""), ("username", "newcomer"), ("role", "fieldworker")])
            #expect(invited.status == .ok)
            page = try await lead.get("/console/team/team-a")
            let html = Self.html(page)
            let id = try #require(
                html.firstMatch(of: /\/console\/invitations\/([0-9a-f-]{36})\/revoke/).map { String($0.1) }, "the invitation is listed")
            #expect(!html.contains("/console/invitations/\(id)/confirm"), "a pending invitation is revoked, not confirmed")
            let revoked = try await lead.post("/console/invitations/\(id)/revoke", [("csrf", Browser.csrf(page) ?? "")])
            #expect(revoked.status == .seeOther && revoked.headers[.location] == "/console/team/team-a?done=invitationRevoked")
            #expect(!Self.html(try await lead.get("/console/team/team-a")).contains(id), "no longer waiting")

            let announced = try await lead.post(
                "/console/team/team-a/announcements", [("csrf", Browser.csrf(page) ?? ""), ("text", "Clinic closed Friday")])
            #expect(announced.status == .seeOther)
            let member = try #require(try await server.services.store.credentials(username: "fieldworker-a")?.user)
            let told = try await server.services.teams.notifications(
                NotificationQuery(userId: member.id, types: [NotificationType.announcement]))
            #expect(told.first?.subject["text"] == "Clinic closed Friday")

            let removed = try await lead.post("/console/team/team-a/members/fieldworker-a/remove", [("csrf", Browser.csrf(page) ?? "")])
            #expect(removed.status == .seeOther)
            let team = try #require(try await server.services.store.team(named: "team-a"))
            #expect(try await server.services.teams.members(of: team).map(\.username) == ["coordinator-a"])

            let admin = Browser(client)
            try await admin.signIn("admin")
            let adminPage = try await admin.get("/console/admin")
            let created = try await admin.post(
                "/console/admin/users",
                [
                    ("csrf", Browser.csrf(adminPage) ?? ""), ("username", "rana"), ("password", "rana-password-1"), ("role", "fieldworker"),
                    ("team", "team-b"),
                ])
            #expect(created.status == .seeOther && created.headers[.location] == "/console/admin?done=userCreated")
            #expect(try await server.services.store.credentials(username: "rana")?.user.teamName == "team-b")
            let refused = try await admin.post(
                "/console/admin/users",
                [("csrf", Browser.csrf(adminPage) ?? ""), ("username", "أمل"), ("password", "rana-password-1"), ("role", "fieldworker")])
            #expect(refused.status == .unprocessableContent && Self.html(refused).contains("letters, digits"))

            let trail = Self.html(try await admin.get("/console/admin/audit"))
            let seqs = trail.matches(of: /<tr><td>(\d+)<\/td>/).compactMap { Int($0.1) }
            #expect(!seqs.isEmpty && seqs == seqs.sorted(by: >), "the newest first: \(seqs.prefix(5))")
            #expect(trail.contains("user.create") || trail.contains("admin.user"), "the user just created is on the trail")
            let filtered = Self.html(try await admin.get("/console/admin/audit?actor=coordinator-a"))
            let actors = filtered.matches(of: /<tr><td>\d+<\/td><td>[^<]*<\/td><td>([^<]*)<\/td>/).map { String($0.1) }
            #expect(!actors.isEmpty && actors.allSatisfy { $0 == "coordinator-a" }, "\(Set(actors))")
        }
    }
}

extension ConsoleAtSizeTests {
    /// A coordinator records a patient's consent and corrects their details in the console; a
    /// form based on a revision someone changed since is refused, never applied over it.
    @Test func aCoordinatorRecordsConsentAndEditsAPatientNeverOverAnotherChange() async throws {
        let server = try await TestServer.make()
        let lead = try #require(try await server.services.store.credentials(username: "coordinator-a")?.user)
        var person = PatientIdentification(givenName: "Amina", familyName: "Haddad")
        person.externalId = "F-1"
        let outcomes = try await server.services.patients.register([(id: nil, identification: person)], by: lead)
        guard case .created(let patient) = try #require(outcomes.first) else {
            Issue.record("not registered: \(outcomes)")
            return
        }
        let id = patient.id.uuidString.lowercased()
        try await ConsoleTests.application(server).test(.router) { client in
            let browser = Browser(client)
            try await browser.signIn("coordinator-a")
            let page = try await browser.get("/console/patients/\(id)")
            let csrf = try #require(Browser.csrf(page))
            #expect(Self.html(page).contains("name=\"revision\" value=\"1\""))
            let consented = try await browser.post(
                "/console/patients/\(id)/consent", [("csrf", csrf), ("scope", "sponsors_and_partners"), ("method", "verbal")])
            #expect(consented.status == .seeOther)
            #expect(try await server.services.patients.patient(patient.id, for: lead).sharingScope == .sponsorsAndPartners)
            let shown = Self.html(try await browser.get("/console/patients/\(id)?done=consentRecorded"))
            #expect(shown.contains("Sponsors and partners") && shown.contains("Verbal") && shown.contains("The consent is recorded."))

            let edit: [(String, String)] = [
                ("csrf", csrf), ("revision", "1"), ("givenName", "أمينة"), ("familyName", "Haddad"), ("dateOfBirth", "1990-05-01"),
                ("sex", "female"),
                ("externalId", "F-2"),
            ]
            let saved = try await browser.post("/console/patients/\(id)/edit", edit)
            #expect(saved.status == .seeOther, "\(Self.html(saved).prefix(400))")
            let changed = try await server.services.patients.patient(patient.id, for: lead)
            #expect(
                changed.identification.givenName == "أمينة" && changed.identification.externalId == "F-2"
                    && changed.identification.sex == .female)
            #expect(changed.identification.dateOfBirth == LocalDate(iso: "1990-05-01"))
            // The same form again: based on revision 1, which is no longer the patient's.
            let stale = try await browser.post("/console/patients/\(id)/edit", edit.map { $0.0 == "givenName" ? ($0.0, "Other") : $0 })
            #expect(stale.status == .conflict && Self.html(stale).contains("Someone changed this patient"))
            #expect(
                try await server.services.patients.patient(patient.id, for: lead).identification.givenName == "أمينة", "nothing overwritten"
            )
            let badDate = try await browser.post(
                "/console/patients/\(id)/edit",
                edit.map { $0.0 == "dateOfBirth" ? ($0.0, "1990-02-31") : $0.0 == "revision" ? ($0.0, "2") : $0 })
            #expect(badDate.status == .unprocessableContent)
        }
    }
}

extension ConsoleAtSizeTests {
    /// The export archive is written from the files on disk a piece at a time: its bytes are the
    /// files', each padded to 512, its length said before, whatever the files' sizes.
    @Test func theExportArchiveStreamsItsFilesWithItsLengthKnownFirst() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-tar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("inner"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sizes = ["a.csv": 0, "b.csv": 511, "c.csv": 512, "inner/d.bin": 200_001]
        var contents: [String: [UInt8]] = [:]
        for (name, size) in sizes {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ name.utf8.count) }
            contents[name] = bytes
            try Data(bytes).write(to: folder.appendingPathComponent(name))
        }
        let archive = try TarArchive(folder: folder, root: "export")
        var out: [UInt8] = []
        var largest = 0
        try await archive.write { buffer in
            largest = max(largest, buffer.readableBytes)
            out += buffer.readableBytesView
        }
        #expect(out.count == archive.length)
        #expect(largest <= 65_536, "never more than a chunk at once: \(largest)")
        let files = try ConsoleTests.untar(out)
        #expect(Set(files.keys) == Set(sizes.keys.map { "export/" + $0 }))
        for (name, bytes) in contents { #expect(files["export/" + name] == bytes, "\(name)") }
    }
}

extension ConsoleAtSizeTests {
    /// A record that raises an alert is flagged in the records list and says its alert on its page.
    @Test func recordsThatRaiseAnAlertStandOutInTheListAndOnTheirPage() async throws {
        let server = try await TestServer.make()
        let question = try #require(server.questionnaire.allQuestions.first { $0.id == "self_harm" })
        let calm = server.record(seed: 831).with { $0[question.position] = .yesNo(false) }
        let alarming = server.record(seed: 832).with { $0[question.position] = .yesNo(true) }
        _ = try await server.services.records.ingest([calm, alarming], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        try await ConsoleTests.application(server).test(.router) { client in
            let lead = Browser(client)
            try await lead.signIn("coordinator-a")
            let list = Self.html(try await lead.get("/console/records"))
            let flagged = list.matches(of: /<tr class="urgent"><td><a href="\/console\/records\/([0-9a-f-]{36})">/).map { String($0.1) }
            #expect(flagged == [alarming.id.uuidString.lowercased()], "\(flagged)")
            let page = Self.html(try await lead.get("/console/records/\(alarming.id.uuidString.lowercased())"))
            #expect(page.contains("Alerts this record raises") && page.contains("thoughts of self-harm"))
            #expect(
                !Self.html(try await lead.get("/console/records/\(calm.id.uuidString.lowercased())")).contains("Alerts this record raises"))
            // The coordinator's inbox says the alert's message, not only that there is one.
            let inbox = Self.html(try await lead.get("/console/inbox"))
            #expect(inbox.contains("class=\"unread urgent\"") && inbox.contains("thoughts of self-harm"), "\(inbox.prefix(3000))")
        }
    }
}
