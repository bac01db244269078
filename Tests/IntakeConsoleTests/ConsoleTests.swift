import Crypto
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

/// The web console over HTTP, as a browser without JavaScript uses it (cookies kept, forms
/// posted): its cookies, CSRF tokens and headers, its access matching the API's for every user,
/// and a researcher's export matching the API's byte for byte. On SQLite and PostgreSQL alike
/// (scripts/test runs these tests both ways); the real browser's run is scripts/console-browser.
struct ConsoleTests {
    static func application(_ server: TestServer) async throws -> some ApplicationProtocol {
        server.application(modules: [try await ConsoleModule.load()])
    }

    typealias Browser = ConsoleBrowser

    static func html(_ response: TestResponse) -> String { String(buffer: response.body) }

    /// A browser newly signed in as coordinator-a.
    func laptopSignedInAgain(_ client: any TestClientProtocol, _ server: TestServer) async throws -> Browser {
        let browser = Browser(client)
        try await browser.signIn("coordinator-a")
        return browser
    }

    @Test func signingInSetsAStrictHttpOnlySessionCookieAndEveryPageForbidsInlineScript() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 801)
        _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        try await Self.application(server).test(.router) { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/sign-in")
            #expect(page.status == .ok)
            #expect(page.headers[.contentSecurityPolicy] == ConsoleSecurity.contentSecurityPolicy)
            #expect(
                ConsoleSecurity.contentSecurityPolicy.contains("script-src 'self'")
                    && !ConsoleSecurity.contentSecurityPolicy.contains("unsafe"))
            #expect(page.headers[.xContentTypeOptions] == "nosniff" && page.headers[.cacheControl] == "no-store")
            let preSession = try #require(browser.setCookies.first { $0.hasPrefix("intake_csrf=") })
            #expect(preSession.contains("HttpOnly") && preSession.contains("SameSite=Strict") && preSession.contains("Path=/console"))

            // No token, a wrong one: refused, nothing signed in.
            let forged = try await browser.post(
                "/console/sign-in", [("username", "coordinator-a"), ("password", "password-coordinator-a")])
            #expect(forged.status == .forbidden && browser.cookies["intake_console"] == nil)
            let wrong = try await browser.post(
                "/console/sign-in", [("csrf", Browser.csrf(page)!), ("username", "coordinator-a"), ("password", "nope-nope-nope")])
            #expect(wrong.status == .unauthorized && Self.html(wrong).contains("The username or the password is wrong"))
            #expect(browser.cookies["intake_console"] == nil)

            try await browser.signIn("coordinator-a")
            let session = try #require(browser.setCookies.first { $0.hasPrefix("intake_console=") })
            #expect(session.contains("HttpOnly") && session.contains("SameSite=Strict") && session.contains("Path=/console"))
            #expect(!session.contains("Secure"), "plain http here: a Secure cookie would never come back")
            #expect(
                ConsoleSecurity(key: SymmetricKey(size: .bits256), secure: true, sessionLifetime: 60).sessionCookie("t").description
                    .contains("Secure"))

            let id = record.id.uuidString.lowercased()
            let q = server.questionnaire.reference
            for uri in [
                "/console/day", "/console/records", "/console/records/\(id)", "/console/inbox", "/console/referrals", "/console/exports",
                "/console/team/team-a", "/console/patients", "/console/questionnaires", "/console/questionnaires/\(q.id)/\(q.version)",
                "/console/cases",
            ] {
                let answer = try await browser.get(uri)
                let html = Self.html(answer)
                #expect(answer.status == .ok, "\(uri): \(answer.status)")
                #expect(answer.headers[.contentSecurityPolicy] == ConsoleSecurity.contentSecurityPolicy, "\(uri)")
                // Every script is a file of the server's; no inline handler or style.
                let scripts = html.components(separatedBy: "<script").dropFirst()
                #expect(scripts.allSatisfy { $0.hasPrefix(" src=\"/console/assets/") }, "\(uri)")
                #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil && !html.contains(" style="), "\(uri)")
                #expect(html.contains("<html lang=\"en\" dir=\"ltr\">"), "\(uri)")
            }
            // No patient name in any URL the pages link to (names stay in page bodies, and searches are POSTed).
            let list = Self.html(try await browser.get("/console/records"))
            let links = list.components(separatedBy: "href=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
            #expect(!links.isEmpty && links.allSatisfy { !$0.contains(record.patient.familyName) })

            // Arabic: right to left, the words and digits of Arabic.
            let switched = try await browser.post("/console/language", [("csrf", Browser.csrf(page) ?? ""), ("lang", "ar")])
            #expect(switched.status == .forbidden, "a signed-in session's form carries the session's token, not the pre-session one")
            let day = try await browser.get("/console/day")
            _ = try await browser.post("/console/language", [("csrf", Browser.csrf(day)!), ("lang", "ar")])
            let arabic = Self.html(try await browser.get("/console/day"))
            #expect(
                arabic.contains("<html lang=\"ar\" dir=\"rtl\">") && arabic.contains("يوم الفريق") && arabic.contains("١"),
                "\(arabic.prefix(400))")
            // Chosen per user: another browser, signed in as them, opens in Arabic too.
            let laptop = Browser(client)
            try await laptop.signIn("coordinator-a")
            #expect(Self.html(try await laptop.get("/console/day")).contains("<html lang=\"ar\" dir=\"rtl\">"), "the user's choice is kept")
            #expect(try await server.services.store.credentials(username: "coordinator-a")?.user.language == "ar")
            // A third language, French: every page offers the two others, and speaks it whole.
            #expect(arabic.contains("lang=\"en\">English</button>") && arabic.contains("lang=\"fr\">Français</button>"))
            _ = try await laptop.post("/console/language", [("csrf", Browser.csrf(try await laptop.get("/console/day"))!), ("lang", "fr")])
            let french = Self.html(try await laptop.get("/console/day"))
            #expect(
                french.contains("<html lang=\"fr\" dir=\"ltr\">") && french.contains(ConsoleLanguage.fr["inbox"])
                    && ConsoleLanguage.fr["inbox"] != ConsoleLanguage.en["inbox"], "\(french.prefix(400))")
            #expect(french.contains("lang=\"en\">English</button>") && french.contains("lang=\"ar\">العربية</button>"))
            #expect(try await server.services.store.credentials(username: "coordinator-a")?.user.language == "fr")
        }
    }

    /// A language is a column of every string: none is missing in any language, and each differs
    /// from English where English is not the word itself.
    @Test func everyStringIsWrittenInEveryLanguage() {
        for (key, columns) in ConsoleText.strings {
            #expect(
                columns.count == ConsoleLanguage.allCases.count,
                "\(key) has \(columns.count) of \(ConsoleLanguage.allCases.count) languages")
            #expect(columns.allSatisfy { !$0.isEmpty }, "\(key) has an empty text")
        }
        let translated = ConsoleText.strings.values.filter { $0.count > 2 && $0[2] != $0[0] }.count
        #expect(
            translated * 10 > ConsoleText.strings.count * 9,
            "French differs from English in \(translated) of \(ConsoleText.strings.count) strings")
        let notice = UserNotification(
            id: 1, userId: 1, type: NotificationType.referralReceived, createdAt: Date(), readAt: nil,
            subject: ["by": "bilal", "referral": "0123456789"])
        #expect(ConsoleNotices.describe(notice, .fr) == "bilal a orienté un patient (orientation 01234567).")
        #expect(ConsoleLanguage.fr.decimal(37.5) == "37,5" && ConsoleLanguage.ar.decimal(37.5) == "٣٧٫٥")
    }

    @Test func everyFormNeedsItsSessionsTokenAndSignOutEndsEverySession() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 802)
        _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        let id = record.id.uuidString.lowercased()
        try await Self.application(server).test(.router) { client in
            let (lead, other, laptop) = (Browser(client), Browser(client), Browser(client))
            try await lead.signIn("coordinator-a")
            try await laptop.signIn("coordinator-a")
            try await other.signIn("coordinator-b")
            let page = try await lead.get("/console/records/\(id)")
            let token = try #require(Browser.csrf(page))
            let foreign = try #require(Browser.csrf(try await other.get("/console/inbox")))
            // A token one digit off (the last one changed, never to itself).
            let altered = String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")
            for sent in ["", "0", foreign, altered] {
                let refused = try await lead.post("/console/records/\(id)/review", [("csrf", sent), ("state", "approved"), ("lock", "1")])
                #expect(refused.status == .forbidden, "token '\(sent.prefix(8))'")
            }
            #expect(try await server.services.store.review(recordId: record.id)?.state == .received, "nothing changed")

            let comment = "<script>alert('x')</script> check the weight"
            let saved = try await lead.post(
                "/console/records/\(id)/review", [("csrf", token), ("state", "has_issues"), ("comment", comment)])
            #expect(saved.status == .seeOther)
            #expect(try await server.services.store.review(recordId: record.id)?.state == .hasIssues)
            let shown = Self.html(try await lead.get("/console/records/\(id)"))
            #expect(shown.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; check the weight") && !shown.contains("<script>alert"))
            #expect(
                !Self.html(try await lead.get("/console/records/\(id)?done=Call%20us%20now")).contains("Call us now"),
                "no text from the address")

            // The collector edits it: the record page sets the revision beside the one before.
            let edited = try await client.send(
                .put, "/v1/records/\(id)", as: "fieldworker-a", in: server,
                json: Update(baseRevision: 1, record: record.with { $0.patient.externalId = "E-77" }))
            #expect(edited.status == .ok)
            var changed = record.with { $0.patient.externalId = "E-77" }
            let question = try #require(server.questionnaire.sections[0].questions.first { $0.type == .yesNo && $0.group == nil })
            changed[question.position] = .yesNo(record[question.position] != .yesNo(true))
            #expect(
                try await client.send(
                    .put, "/v1/records/\(id)", as: "fieldworker-a", in: server, json: Update(baseRevision: 2, record: changed)
                ).status == .ok)
            let compared = Self.html(try await lead.get("/console/records/\(id)"))
            #expect(
                compared.contains("What the last revision changed") && compared.contains("<ins>") && compared.contains(question.text.base),
                "\(compared.count)")
            #expect(compared.contains("state-edited"), "an edit after a review marks it edited")

            // Sign-out ends this browser's session: the laptop stays signed in.
            let out = try await lead.post("/console/sign-out", [("csrf", token)])
            #expect(out.status == .seeOther && lead.cookies["intake_console"] == nil)
            #expect(try await lead.get("/console/day").status == .seeOther, "this browser is out")
            let laptopPage = try await laptop.get("/console/day")
            #expect(laptopPage.status == .ok, "another browser of the same user stays signed in")
            // Sign out everywhere ends every session of the user (the phone's too), and only sessions.
            let phone = Browser(client)
            try await phone.signIn("coordinator-a")
            let everywhere = try await laptop.post("/console/sign-out-everywhere", [("csrf", try #require(Browser.csrf(laptopPage)))])
            #expect(everywhere.status == .seeOther && laptop.cookies["intake_console"] == nil)
            let after = try await phone.get("/console/day")
            #expect(after.status == .seeOther && after.headers[.location] == "/console/sign-in")
            #expect(try await other.get("/console/day").status == .ok, "another user stays signed in")
            let api = try await client.send(.get, "/v1/me", as: "coordinator-a", in: server)
            #expect(api.status == .ok, "tokens made for scripts stay")

            // An admin makes a token for a user: shown on the answer, once, and it works.
            let admin = Browser(client)
            try await admin.signIn("admin")
            let adminToken = try #require(Browser.csrf(try await admin.get("/console/admin")))
            let issued = Self.html(try await admin.post("/console/admin/users/researcher/tokens", [("csrf", adminToken)]))
            let made = try #require(issued.range(of: #"itk_[A-Za-z0-9_-]+"#, options: .regularExpression).map { String(issued[$0]) })
            #expect(try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(made)"]).status == .ok)
            #expect(!Self.html(try await admin.get("/console/admin")).contains(made), "shown once")
            #expect(try await other.post("/console/admin/users/researcher/tokens", [("csrf", foreign)]).status == .forbidden, "admins only")
            // Console actions are on the audit trail as their API routes are.
            var trail = AuditQuery()
            trail.action = AuditAction.recordRead.rawValue
            let reads = try await server.services.store.auditEvents(trail)
            #expect(
                reads.contains { $0.actor == "coordinator-a" && $0.subject == id && $0.details["via"] == "console" },
                "the record page is a read")
            trail.action = AuditAction.apiChange.rawValue
            #expect(
                try await server.services.store.auditEvents(trail).contains {
                    $0.actor == "admin" && $0.subject == "/console/admin/users/researcher/tokens"
                },
                "a token made in the console is on the trail")
            trail.action = AuditAction.signIn.rawValue
            #expect(try await server.services.store.auditEvents(trail).contains { $0.actor == "admin" && $0.details["via"] == "console" })

            // A report with any JSON number does not stop the patient's page.
            let patient = UUID()
            let coordinator = try #require(try await server.services.store.credentials(username: "coordinator-a")?.user)
            _ = try await server.services.patients.register([(id: patient, identification: record.patient)], by: coordinator)
            for (day, value) in [(1, "1e300"), (2, "-1e300"), (3, "123456789012345678901234567890"), (4, "7")] {
                _ = try await server.services.patients.putReport(
                    patient, series: "weight", date: .day(LocalDate(year: 2026, month: 1, day: day)!), values: "{\"kg\": \(value)}",
                    by: coordinator)
            }
            let reportPage = try await laptopSignedInAgain(client, server).get("/console/patients/\(patient.uuidString.lowercased())")
            #expect(reportPage.status == .ok && Self.html(reportPage).contains("<svg"))

            // Filters by version and by the days records changed.
            let version = record.questionnaire.version
            #expect(
                Self.html(try await other.get("/console/records?version=\(version)&from=2000-01-01")).contains("No records."),
                "another team's")
            let filtered = Self.html(
                try await laptopSignedInAgain(client, server).get("/console/records?version=\(version)&from=2000-01-01&to=2100-01-01"))
            #expect(filtered.contains(String(id.prefix(8))))
            #expect(
                !Self.html(try await laptopSignedInAgain(client, server).get("/console/records?from=2100-01-01")).contains(
                    String(id.prefix(8))))
        }
    }

    /// Each console action answers whom its API route answers, the same way: both go through
    /// the same services and the record-access policy (here every caller of the matrix, on their
    /// own team's record and on another team's).
    @Test func consoleActionsAnswerEveryoneAsTheirAPIRoutesDo() async throws {
        var server = try await TestServer.make()
        let own = server.record(seed: 803), other = server.record(seed: 804, collector: "fieldworker-b")
        _ = try await server.services.records.ingest([own], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        _ = try await server.services.records.ingest([other], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        try await server.addUser("orphan", role: .coordinator, team: nil)
        let callers = ["fieldworker-a", "coordinator-a", "coordinator-b", "researcher", "admin", "orphan"]
        let q = server.questionnaire.reference
        /// What counts as the same answer: success (a page, a redirect after a form, a JSON body),
        /// or the same refusal.
        @Sendable func outcome(_ status: HTTPResponse.Status) -> String { status.code < 400 ? "ok" : String(status.code) }
        try await Self.application(server).test(.router) { [server] client in
            var mismatches: [String] = []
            for caller in callers {
                let browser = Browser(client)
                try await browser.signIn(caller)
                let token = try #require(Browser.csrf(try await browser.get("/console/inbox")), "\(caller)")
                for record in [own, other] {
                    let id = record.id.uuidString.lowercased()
                    let pairs: [(String, TestResponse, TestResponse)] = [
                        (
                            "read review", try await browser.get("/console/records/\(id)"),
                            try await client.send(.get, "/v1/records/\(id)/review", as: caller, in: server)
                        ),
                        (
                            "comment", try await browser.post("/console/records/\(id)/comment", [("csrf", token), ("text", "seen")]),
                            try await client.send(
                                .post, "/v1/records/\(id)/review/comments", as: caller, in: server, json: ["text": "seen"])
                        ),
                        (
                            "set state",
                            try await browser.post("/console/records/\(id)/review", [("csrf", token), ("state", "has_issues")]),
                            try await client.send(.post, "/v1/records/\(id)/review", as: caller, in: server, json: ["state": "has_issues"])
                        ),
                        (
                            "reopen", try await browser.post("/console/records/\(id)/reopen", [("csrf", token)]),
                            try await client.send(.post, "/v1/records/\(id)/review/reopen", as: caller, in: server)
                        ),
                    ]
                    for (what, console, api) in pairs where outcome(console.status) != outcome(api.status) {
                        mismatches.append(
                            "\(what) of \(record == own ? "own" : "other") as \(caller): console \(console.status.code), API \(api.status.code)"
                        )
                    }
                }
                let lists: [(String, TestResponse, TestResponse)] = [
                    (
                        "records", try await browser.get("/console/records?state=has_issues"),
                        try await client.send(.get, "/v1/reviews?state=has_issues", as: caller, in: server)
                    ),
                    (
                        "referrals", try await browser.get("/console/referrals"),
                        try await client.send(.get, "/v1/referrals", as: caller, in: server)
                    ),
                    ("cases", try await browser.get("/console/cases"), try await client.send(.get, "/v1/cases", as: caller, in: server)),
                    (
                        "export", try await browser.post("/console/exports", [("csrf", token), ("format", "csv")]),
                        try await client.send(.get, "/v1/exports?format=csv", as: caller, in: server)
                    ),
                    (
                        "team", try await browser.get("/console/team/team-a"),
                        try await client.send(.get, "/v1/teams/team-a/members", as: caller, in: server)
                    ),
                    (
                        "invite",
                        try await browser.post(
                            "/console/team/team-a/invitations",
                            [("csrf", token), ("username", "nobody1-\(caller)"), ("role", "fieldworker")]),
                        try await client.send(
                            .post, "/v1/teams/team-a/invitations", as: caller, in: server,
                            json: ["username": "nobody2-\(caller)", "role": "fieldworker"])
                    ),
                    (
                        "patients", try await browser.post("/console/patients", [("csrf", token), ("name", "Amina")]),
                        try await client.send(.get, "/v1/patients?name=Amina", as: caller, in: server)
                    ),
                    ("admin", try await browser.get("/console/admin"), try await client.send(.get, "/v1/users", as: caller, in: server)),
                    (
                        "questionnaire", try await browser.get("/console/questionnaires/\(q.id)/\(q.version)"),
                        try await client.send(.get, "/v1/questionnaires/\(q.id)/versions/\(q.version)", as: caller, in: server)
                    ),
                ]
                for (what, console, api) in lists where outcome(console.status) != outcome(api.status) {
                    mismatches.append("\(what) as \(caller): console \(console.status.code), API \(api.status.code)")
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        }
    }

    /// The console offers each person only the answers they may give: a coordinator sees no
    /// Accept on a referral assigned to a member, until that member leaves the team and it comes
    /// back to the coordinators; then Accept works.
    @Test func aCoordinatorIsOfferedOnlyTheAnswersTheyMayGive() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 811)
        _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        let referrer = try #require(try await server.services.store.credentials(username: "fieldworker-a")?.user)
        let referral = try await server.services.referrals.refer(
            record.id, toUser: nil, toTeam: "team-b", reason: "r", priority: .urgent, allowEdit: false, by: referrer)
        let boss = try #require(try await server.services.store.credentials(username: "coordinator-b")?.user)
        _ = try await server.services.referrals.reassign(referral.id, to: "fieldworker-b", by: boss)
        let id = referral.id.uuidString.lowercased()
        try await Self.application(server).test(.router) { [server] client in
            let lead = Browser(client)
            try await lead.signIn("coordinator-b")
            let before = Self.html(try await lead.get("/console/referrals"))
            #expect(
                before.contains(id.prefix(8)) && !before.contains("/console/referrals/\(id)/accept"), "no Accept for a member's referral")
            let member = Browser(client)
            try await member.signIn("fieldworker-b")
            #expect(
                Self.html(try await member.get("/console/referrals")).contains("/console/referrals/\(id)/accept"), "the member may accept")
            let team = try #require(try await server.services.store.team(named: "team-b"))
            try await server.services.teams.remove("fieldworker-b", from: team, by: boss)
            let page = try await lead.get("/console/referrals")
            #expect(Self.html(page).contains("/console/referrals/\(id)/accept"), "back with the coordinators: Accept offered")
            let accepted = try await lead.post("/console/referrals/\(id)/accept", [("csrf", Browser.csrf(page) ?? "")])
            #expect(accepted.status == .seeOther, "\(Self.html(accepted).prefix(300))")
            #expect(try await server.services.store.referral(id: referral.id)?.state == .accepted)
        }
    }

    /// A researcher's console export holds what their API export holds, byte for byte: the same
    /// de-identified, consent-filtered records.
    @Test func aResearchersConsoleExportIsTheirAPIExport() async throws {
        let server = try await TestServer.make()
        let lead = try #require(try await server.services.store.credentials(username: "coordinator-a")?.user)
        var records: [PatientResponse] = []
        for seed in 0..<6 {
            let record = server.record(seed: UInt64(810 + seed))
            let patient = UUID()
            _ = try await server.services.store.registerPatients([
                NewPatient(id: patient, teamId: 1, identification: record.patient, createdBy: "coordinator-a", createdAt: Date())
            ])
            _ = try await server.services.patients.recordConsent(
                patient, scope: seed.isMultiple(of: 2) ? .allQualifiedResearchers : .noSharing, method: .written, by: lead)
            records.append(record.with { $0.patientId = patient })
        }
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        try await Self.application(server).test(.router) { [records] client in
            let browser = Browser(client)
            try await browser.signIn("researcher")
            let token = try #require(Browser.csrf(try await browser.get("/console/exports")))
            let download = try await browser.post("/console/exports", [("csrf", token), ("format", "csv")])
            #expect(download.status == .ok && download.headers[.contentType] == "application/x-tar", "\(Self.html(download).prefix(300))")
            // Streamed with its length said first (the browser shows the download's progress).
            #expect(download.headers[.contentLength] == String(download.body.readableBytes))
            let files = try Self.untar([UInt8](buffer: download.body))
            let consoleCSV = try #require(files.first { $0.key.hasSuffix("/records.csv") }?.value)
            let api = try await client.send(.get, "/v1/exports?format=csv", as: "researcher", in: server)
            #expect(String(decoding: consoleCSV, as: UTF8.self) == String(buffer: api.body))
            let rows = String(decoding: consoleCSV, as: UTF8.self).split(separator: "\r\n")
            #expect(rows.count == 1 + 3, "three patients share with researchers: \(rows.count - 1) rows")
            for record in records { #expect(!String(decoding: consoleCSV, as: UTF8.self).contains(record.patient.familyName)) }
        }
    }

    /// Reads a ustar archive: name → bytes.
    static func untar(_ bytes: [UInt8]) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        var offset = 0
        while offset + 512 <= bytes.count {
            let header = Array(bytes[offset..<offset + 512])
            if header.allSatisfy({ $0 == 0 }) { break }
            func text(_ start: Int, _ length: Int) -> String {
                String(decoding: header[start..<start + length].prefix { $0 != 0 }, as: UTF8.self)
            }
            let prefix = text(345, 155)
            let name = (prefix.isEmpty ? "" : prefix + "/") + text(0, 100)
            guard let size = Int(text(124, 12).trimmingCharacters(in: .whitespaces), radix: 8) else { throw TarError() }
            let stored = header.enumerated().reduce(0) { sum, byte in sum + ((148..<156).contains(byte.offset) ? 32 : Int(byte.element)) }
            guard Int(text(148, 7).trimmingCharacters(in: .whitespaces), radix: 8) == stored else { throw TarError() }
            files[name] = Array(bytes[offset + 512..<offset + 512 + size])
            offset += 512 + (size + 511) / 512 * 512
        }
        return files
    }

    struct TarError: Error {}
}
