import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServer
import IntakeServerTestSupport
import IntakeService
import IntakeStoreTesting
import NIOCore
import Testing

/// The trail is tampered with in the database itself, past the store: the database refuses
/// while its guards stand, and once someone removes them, verification finds each kind of
/// tampering and names the first bad event.
struct AuditTamperTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A store with ten events, its database's location, and the hash of its last event.
    static func trail(_ kind: StoreKind) async throws -> (store: any RecordStore, database: String, head: AuditEvent) {
        let database = try kind.newDatabase()
        let store = try await kind.open(database: database)
        let events = try await store.appendAudit(
            (1...10).map { AuditEntry(at: start + Double($0), actor: "u\($0 % 3)", action: .recordRead, subject: "r\($0)") })
        return (store, database, events[9])
    }

    static func execute(_ sql: String, _ kind: StoreKind, _ database: String) async throws {
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: database)
            try await queue.write { db in try db.execute(sql: sql) }
        case .postgres:
            // One statement at a time: PostgreSQL prepares each alone.
            for statement in sql.split(separator: ";") where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                try await PostgresTesting.execute(String(statement), in: database)
            }
        }
    }

    static func removeGuards(_ kind: StoreKind, _ database: String) async throws {
        switch kind {
        case .sqlite: try await execute("DROP TRIGGER auditEvent_no_update; DROP TRIGGER auditEvent_no_delete", kind, database)
        case .postgres: try await execute("ALTER TABLE auditEvent DISABLE TRIGGER USER", kind, database)
        }
    }

    @Test(arguments: StoreKind.allCases) func theDatabaseRefusesToChangeOrDeleteAnEvent(_ kind: StoreKind) async throws {
        let (store, database, _) = try await Self.trail(kind)
        var statements = ["UPDATE auditEvent SET subject = 'x' WHERE seq = 4", "DELETE FROM auditEvent WHERE seq = 4"]
        if kind == .postgres { statements.append("TRUNCATE auditEvent") }
        for sql in statements {
            do {
                try await Self.execute(sql, kind, database)
                Issue.record("\(sql) was allowed")
            } catch {
                #expect(String(reflecting: error).contains("the audit trail is append-only"), "\(sql): \(String(reflecting: error))")
            }
        }
        #expect(try await AuditLog(store: store).verify().checked == 10)
    }

    @Test(arguments: StoreKind.allCases) func eachKindOfTamperingIsFoundAtTheFirstBadEvent(_ kind: StoreKind) async throws {
        let cases: [(String, String, Int64, AuditProblem.Kind)] = [
            ("changed", "UPDATE auditEvent SET subject = 'someone-else' WHERE seq = 4", 4, .changed),
            ("changed details", #"UPDATE auditEvent SET details = '{"n":"1"}' WHERE seq = 7"#, 7, .changed),
            ("deleted", "DELETE FROM auditEvent WHERE seq = 4", 4, .missing),
            (
                "inserted",
                """
                UPDATE auditEvent SET seq = seq + 1000 WHERE seq >= 4;
                UPDATE auditEvent SET seq = seq - 999 WHERE seq >= 1000;
                INSERT INTO auditEvent (seq, at, actor, action, subject, details, previousHash, hash)
                    SELECT 4, at, 'mallory', 'record.read', 'r99', '{}', hash, hash FROM auditEvent WHERE seq = 3
                """, 4, .changed
            ),
            (
                "reordered",
                "UPDATE auditEvent SET seq = -3 WHERE seq = 3; UPDATE auditEvent SET seq = 3 WHERE seq = 4; UPDATE auditEvent SET seq = 4 WHERE seq = -3",
                3, .changed
            ),
        ]
        for (name, sql, seq, problem) in cases {
            let (store, database, _) = try await Self.trail(kind)
            try await Self.removeGuards(kind, database)
            try await Self.execute(sql, kind, database)
            let report = try await AuditLog(store: store).verify()
            #expect(report.problem?.seq == seq && report.problem?.kind == problem, "\(name): \(String(describing: report.problem))")
            #expect(report.checked == Int(seq) - 1, "\(name): the events before it check out")
        }
    }

    /// A forger who rewrites every hash after an insertion makes a chain that checks out on its
    /// own: the head kept elsewhere is what finds it, and events cut from the end.
    @Test(arguments: StoreKind.allCases) func aHeadKeptElsewhereFindsARewrittenOrShortenedTrail(_ kind: StoreKind) async throws {
        let (store, database, head) = try await Self.trail(kind)
        try await Self.removeGuards(kind, database)
        try await Self.execute("DELETE FROM auditEvent WHERE seq >= 9", kind, database)
        let log = AuditLog(store: store)
        #expect(try await log.verify().isSound, "the chain alone cannot tell its end was cut")
        let report = try await log.verify(expectedHead: (seq: head.seq, hash: head.hash))
        #expect(report.problem?.kind == .headMissing && report.problem?.seq == 10)
        // Rewritten from event 5 on, consistently: the chain checks out, the kept head does not.
        let forged = AuditChain.chain(
            (5...10).map { AuditEntry(at: Self.start, actor: "mallory", action: .recordRead, subject: "r\($0)") },
            after: (seq: 4, hash: try #require(try await store.auditEvent(seq: 4)).hash))
        try await Self.execute("DELETE FROM auditEvent WHERE seq >= 5", kind, database)
        for event in forged {
            try await Self.execute(
                "INSERT INTO auditEvent (seq, at, actor, action, subject, details, previousHash, hash) VALUES (\(event.seq), '\(event.at)', 'mallory', 'record.read', '\(event.subject)', '{}', '\(event.previousHash)', '\(event.hash)')",
                kind, database)
        }
        #expect(try await log.verify().isSound)
        #expect(try await log.verify(expectedHead: (seq: head.seq, hash: head.hash)).problem?.kind == .headMissing)
    }
}

/// What the server puts on the trail, read and verified through the API by an admin.
struct AuditRoutesTests {
    @Test func signInsRecordsLookupsExportsAndConsentAreAuditedWithoutPatientData() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let wrong = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, body: Data(#"{"username": "fieldworker-a", "password": "nope-nope-nope"}"#.utf8)
            )
            #expect(wrong.status == .unauthorized)
            let record = server.record(seed: 70, familyName: "Haddad", givenName: "Amina")
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            #expect(try await client.send(.get, "/v1/records/\(record.id)", as: "coordinator-a", in: server).status == .ok)
            #expect(try await client.send(.get, "/v1/records?familyName=Haddad", as: "fieldworker-a", in: server).status == .ok)
            #expect(try await client.send(.get, "/v1/exports?format=csv", as: "coordinator-a", in: server).status == .ok)

            let listed = try await client.send(.get, "/v1/audit", as: "admin", in: server)
            #expect(listed.status == .ok, "\(listed.text)")
            let events = listed.json["events"] as? [[String: Any]] ?? []
            let actions = events.compactMap { $0["action"] as? String }
            #expect(actions == ["sign_in.failed", "record.create", "record.read", "lookup", "export"], "\(actions)")
            #expect(
                events[0]["subject"] as? String == "fieldworker-a"
                    && (events[0]["details"] as? [String: String])?["reason"] == "bad_credentials")
            #expect((events[3]["details"] as? [String: String])?["fields"] == "familyName")
            #expect((events[4]["details"] as? [String: String])?["records"] == "1")
            #expect(
                !listed.text.contains("Haddad") && !listed.text.contains("Amina") && !listed.text.contains("nope-nope"),
                "no patient data, no password")
            // The trail counts what an export sent: a codebook holds no record, a refused export is not on it.
            #expect(try await client.send(.get, "/v1/exports?format=codebook", as: "coordinator-a", in: server).status == .ok)
            #expect(
                try await client.send(.get, "/v1/exports?format=removed", as: "coordinator-a", in: server).status == .unprocessableContent)
            let exports = try await client.send(.get, "/v1/audit?action=export", as: "admin", in: server)
            let sent = (exports.json["events"] as? [[String: Any]] ?? []).map { ($0["details"] as? [String: String])?["records"] ?? "?" }
            #expect(sent == ["1", "0"], "\(exports.text)")
            let filtered = try await client.send(.get, "/v1/audit?action=record&actor=coordinator-a", as: "admin", in: server)
            #expect((filtered.json["events"] as? [[String: Any]])?.compactMap { $0["action"] as? String } == ["record.read"])
            let paged = try await client.send(.get, "/v1/audit?limit=2", as: "admin", in: server)
            #expect(paged.json["next"] as? String == "2")

            let verified = try await client.send(.get, "/v1/audit/verify", as: "admin", in: server)
            #expect(verified.json["sound"] as? Bool == true && verified.json["checked"] as? Int == 10, "\(verified.text)")
            // Reading the trail is itself on it, as every other read with a token: what was read, never the query.
            let reads = try await client.send(.get, "/v1/audit?action=token.read", as: "admin", in: server)
            let paths = (reads.json["events"] as? [[String: Any]])?.compactMap { $0["subject"] as? String } ?? []
            #expect(paths == ["/v1/audit", "/v1/audit", "/v1/audit", "/v1/audit", "/v1/audit/verify"], "\(paths)")
            #expect(!reads.text.contains("limit=2") && !reads.text.contains("actor=coordinator-a"))
            let head = try #require(verified.json["head"] as? [String: Any])
            let kept = try await client.send(
                .get, "/v1/audit/verify?seq=\(head["seq"] as? Int ?? 0)&hash=\(head["hash"] as? String ?? "")", as: "admin", in: server)
            #expect(kept.json["sound"] as? Bool == true)
            let wrongHead = try await client.send(
                .get, "/v1/audit/verify?seq=5&hash=\(String(repeating: "a", count: 64))", as: "admin", in: server)
            #expect(
                wrongHead.json["sound"] as? Bool == false
                    && (wrongHead.json["problem"] as? [String: Any])?["kind"] as? String == "head_missing")
            #expect(try await client.send(.get, "/v1/audit/verify?seq=5", as: "admin", in: server).errorCode == "incomplete_head")
            #expect(try await client.send(.get, "/v1/audit?limit=0", as: "admin", in: server).status == .badRequest)
            for user in ["coordinator-a", "researcher", "fieldworker-a"] {
                #expect(try await client.send(.get, "/v1/audit", as: user, in: server).status == .forbidden)
            }
        }
    }
}

/// `GET /v1/records/{id}?asOf=` and the device each revision came from.
struct HistoryRoutesTests {
    @Test func aRecordReadsAsItWasAtATimeAndEachRevisionNamesItsDevice() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let record = server.record(seed: 80)
            var headers: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(server.tokens["fieldworker-a"]!)"]
            headers[HTTPField.Name("Intake-Device-Id")!] = "tablet-3"
            let posted = try await client.execute(
                uri: "/v1/records", method: .post, headers: headers, body: ByteBuffer(bytes: record.jsonData()))
            #expect(posted.status == .created)
            // A time after the first save and before the edit: the clock has moved on past it
            // (times are kept to the millisecond).
            let between = Date()
            #expect(await eventually { Date().timeIntervalSince(between) >= 0.002 })
            var edited = record
            edited.patient.externalId = "E-77"
            let body = Data(#"{"baseRevision": 1, "record": "#.utf8) + edited.jsonData() + Data("}".utf8)
            headers[.authorization] = "Bearer \(server.tokens["coordinator-a"]!)"
            headers[HTTPField.Name("Intake-Device-Id")!] = "laptop-1"
            let put = try await client.execute(
                uri: "/v1/records/\(record.id)", method: .put, headers: headers, body: ByteBuffer(bytes: body))
            #expect(put.status == .ok, "\(put.text)")

            let revisions = try await client.send(.get, "/v1/records/\(record.id)/revisions", as: "coordinator-a", in: server)
            let list = revisions.json["revisions"] as? [[String: Any]] ?? []
            #expect(list.compactMap { $0["deviceId"] as? String } == ["tablet-3", "laptop-1"])
            #expect(list.compactMap { $0["savedBy"] as? String } == ["fieldworker-a", "coordinator-a"])
            func asOf(_ time: Date) async throws -> TestResponse {
                try await client.send(
                    .get, "/v1/records/\(record.id)?asOf=\(Timestamp.string(from: time))", as: "coordinator-a", in: server)
            }
            let then = try await asOf(between)
            #expect(then.status == .ok && then.json["revision"] as? Int == 1, "\(then.text)")
            #expect(((then.json["record"] as? [String: Any])?["patient"] as? [String: Any])?["externalId"] == nil)
            let now = try await asOf(Date().addingTimeInterval(1))
            #expect(now.json["revision"] as? Int == 2)
            let before = try await asOf(Date(timeIntervalSince1970: 1_000_000))
            #expect(before.status == .notFound && before.text.contains("first received"), "\(before.text)")
            #expect(
                try await client.send(.get, "/v1/records/\(record.id)?asOf=yesterday", as: "coordinator-a", in: server).status
                    == .badRequest)
            headers[HTTPField.Name("Intake-Device-Id")!] = "no spaces allowed"
            let bad = try await client.execute(
                uri: "/v1/records", method: .post, headers: headers, body: ByteBuffer(bytes: server.record(seed: 81).jsonData()))
            #expect(bad.status == .badRequest && bad.text.contains("Intake-Device-Id"))
            // Reading it as it was is on the audit trail, with the time asked for.
            let audit = try await client.send(.get, "/v1/audit?action=record.read", as: "admin", in: server)
            #expect((audit.json["events"] as? [[String: Any]])?.contains { ($0["details"] as? [String: String])?["asOf"] != nil } == true)
        }
    }
}
