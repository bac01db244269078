import Foundation
import IntakeCore
import IntakeService
import Testing

/// The behaviour every store must have for enrolment codes and devices, the same on every store
/// and when two servers on one database race.
public enum DeviceStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Two stores on one database, as two servers; team "t" with coordinator "lead" and field worker "ana".
    static func twoServers(_ kind: some RecordStoreFactory) async throws -> (any RecordStore, any RecordStore, Team) {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "t", at: start)
        _ = try await first.createUser(NewUser(username: "lead", passwordHash: "h", role: .coordinator, teamId: team.id), at: start)
        _ = try await first.createUser(NewUser(username: "ana", passwordHash: "h", role: .fieldworker, teamId: team.id), at: start)
        return (first, second, team)
    }

    static func enrolment(_ id: String, _ team: Team, secret: String = "SECRET", hours: Double = 72) -> NewEnrolment {
        NewEnrolment(
            id: id, teamId: team.id, username: "ana", secretHash: "hash:" + secret, createdBy: "lead", createdAt: start,
            expiresAt: start.addingTimeInterval(hours * 3600))
    }

    static func newDevice(_ id: String, token: String) -> NewDevice {
        NewDevice(deviceId: id, name: "laptop \(id)", tokenHash: "token:" + token, intakeVersion: "0.1.0")
    }

    static func matching(_ secret: String) -> @Sendable (String) -> Bool { { $0 == "hash:" + secret } }

    /// A code enrols one machine: two machines using it at once through two servers, one is
    /// enrolled and the other told it was used; a code id is never given twice.
    public static func aCodeEnrolsOneMachineEvenWhenTwoRace(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await twoServers(kind)
        let created = try await first.createEnrolment(enrolment("ABCD", team))
        #expect(
            created.state == .open && created.username == "ana" && created.failedAttempts == 0
                && created.expiresAt == start.addingTimeInterval(72 * 3600))
        await #expect(throws: RecordStoreError.alreadyExists("enrolment ABCD")) {
            try await second.createEnrolment(enrolment("ABCD", team))
        }
        let time = start.addingTimeInterval(60)
        async let a = first.redeemEnrolment(
            id: "ABCD", device: newDevice("m1", token: "1"), at: time, lockAfter: 5, matches: matching("SECRET"))
        async let b = second.redeemEnrolment(
            id: "ABCD", device: newDevice("m2", token: "2"), at: time, lockAfter: 5, matches: matching("SECRET"))
        let outcomes = try await [a, b]
        let enrolled = outcomes.compactMap { if case .enrolled(let device) = $0 { device } else { nil } }
        try #require(enrolled.count == 1, "\(outcomes)")
        #expect(outcomes.contains(.refused(.used)), "\(outcomes)")
        let device = enrolled[0]
        #expect(
            device.username == "ana" && device.teamId == team.id && device.enrolment == "ABCD" && device.revokedAt == nil
                && device.lastSeenAt == time)
        let used = try #require(try await second.enrolments(teamId: team.id).first)
        #expect(used.state == .used && used.usedAt == time && used.deviceId == device.deviceId)
        #expect(try await first.devices(teamId: team.id) == [device])
        #expect(try await second.devices(teamId: nil) == [device])
        #expect(
            try await first.redeemEnrolment(
                id: "WXYZ", device: newDevice("m3", token: "3"), at: time, lockAfter: 5, matches: matching("SECRET")) == .notFound)
        let audited =
            try await first.auditEvents(AuditQuery(action: "enrolment")) + (try await first.auditEvents(AuditQuery(action: "device")))
        #expect(
            audited.map(\.action) == ["enrolment.create", "device.enrol"] && audited.map(\.subject) == ["ABCD", "\(device.id)"],
            "\(audited)")
    }

    /// Wrong secrets are counted (every one, when they race) and lock the code at the limit; an
    /// expired code is refused, its secret right or wrong.
    public static func wrongSecretsLockTheCodeAndExpiredCodesAreRefused(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await twoServers(kind)
        _ = try await first.createEnrolment(enrolment("LOCK", team))
        let time = start.addingTimeInterval(60)
        async let a = first.redeemEnrolment(
            id: "LOCK", device: newDevice("m1", token: "1"), at: time, lockAfter: 5, matches: matching("WRONG"))
        async let b = second.redeemEnrolment(
            id: "LOCK", device: newDevice("m1", token: "2"), at: time, lockAfter: 5, matches: matching("WRONG"))
        let tries = try await [a, b]
        #expect(Set(tries.map { "\($0)" }) == ["wrongSecret(remaining: 4)", "wrongSecret(remaining: 3)"], "\(tries)")
        #expect(
            try await first.redeemEnrolment(
                id: "LOCK", device: newDevice("m1", token: "3"), at: time, lockAfter: 5, matches: matching("WRONG"))
                == .wrongSecret(remaining: 2))
        #expect(
            try await second.redeemEnrolment(
                id: "LOCK", device: newDevice("m1", token: "4"), at: time, lockAfter: 5, matches: matching("WRONG"))
                == .wrongSecret(remaining: 1))
        #expect(
            try await first.redeemEnrolment(
                id: "LOCK", device: newDevice("m1", token: "5"), at: time, lockAfter: 5, matches: matching("WRONG")) == .refused(.locked))
        #expect(
            try await second.redeemEnrolment(
                id: "LOCK", device: newDevice("m1", token: "6"), at: time, lockAfter: 5, matches: matching("SECRET")) == .refused(.locked))
        let locked = try #require(try await first.enrolments(teamId: team.id).first)
        #expect(locked.state == .locked && locked.failedAttempts == 5)
        #expect(try await first.devices(teamId: team.id).isEmpty)

        _ = try await first.createEnrolment(enrolment("LATE", team, hours: 1))
        let late = start.addingTimeInterval(3600)
        #expect(
            try await second.redeemEnrolment(
                id: "LATE", device: newDevice("m2", token: "7"), at: late, lockAfter: 5, matches: matching("SECRET")) == .refused(.expired))
        #expect(try await first.enrolments(teamId: team.id).first { $0.id == "LATE" }?.state(at: late) == .expired)
    }

    /// A device revoked through one server is seen revoked by the other at once; enrolling the
    /// same machine again revokes its earlier token; what a device reports is kept.
    public static func aRevocationIsSeenByEveryServerAndReportsAreKept(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await twoServers(kind)
        _ = try await first.createEnrolment(enrolment("AAAA", team))
        _ = try await first.createEnrolment(enrolment("BBBB", team))
        let time = start.addingTimeInterval(60)
        guard
            case .enrolled(let device) = try await first.redeemEnrolment(
                id: "AAAA", device: newDevice("m1", token: "1"), at: time, lockAfter: 5, matches: matching("SECRET"))
        else { Issue.record("not enrolled"); return }
        let found = try #require(try await second.device(tokenHash: "token:1"))
        #expect(found.device == device && found.user.username == "ana" && found.user.teamId == team.id && found.user.teamName == "t")
        #expect(try await second.device(tokenHash: "token:nope") == nil)

        try await second.noteDevice(id: device.id, DeviceReport(seenAt: time.addingTimeInterval(30), queueSize: 4, intakeVersion: "0.2.0"))
        try await first.noteDevice(id: device.id, DeviceReport(seenAt: time.addingTimeInterval(10), uploadAt: time.addingTimeInterval(10)))
        let reported = try #require(try await first.devices(teamId: team.id).first)
        #expect(reported.lastSeenAt == time.addingTimeInterval(30), "a report arriving late does not move last seen back")
        #expect(reported.lastUploadAt == time.addingTimeInterval(10) && reported.queueSize == 4 && reported.intakeVersion == "0.2.0")

        #expect(
            try await second.revokeDevice(id: device.id, teamId: team.id + 1, by: "other", at: time) == nil,
            "another team's device is not found")
        let revoked = try #require(
            try await first.revokeDevice(id: device.id, teamId: team.id, by: "lead", at: time.addingTimeInterval(120)))
        #expect(revoked.revokedAt == time.addingTimeInterval(120) && revoked.revokedBy == "lead")
        #expect(
            try await second.device(tokenHash: "token:1")?.device.revokedAt == time.addingTimeInterval(120),
            "the other server sees it at once")
        #expect(
            try await second.revokeDevice(id: device.id, teamId: nil, by: "admin", at: time.addingTimeInterval(500))?.revokedBy == "lead",
            "revoked once")
        #expect(try await first.auditEvents(AuditQuery(action: "device.revoke")).map(\.actor) == ["lead"])

        // The same machine enrolled again with another code: its earlier token stops.
        _ = try await first.createEnrolment(enrolment("CCCC", team))
        guard
            case .enrolled(let again) = try await second.redeemEnrolment(
                id: "BBBB", device: newDevice("m1", token: "2"), at: time, lockAfter: 5, matches: matching("SECRET"))
        else { Issue.record("not enrolled again"); return }
        guard
            case .enrolled = try await first.redeemEnrolment(
                id: "CCCC", device: newDevice("m1", token: "3"), at: time, lockAfter: 5, matches: matching("SECRET"))
        else { Issue.record("not enrolled a third time"); return }
        #expect(try await first.device(tokenHash: "token:2")?.device.revokedAt != nil && again.revokedAt == nil)
        #expect(try await first.device(tokenHash: "token:3")?.device.revokedAt == nil)
        #expect(try await first.devices(teamId: team.id).count == 3)
    }
}

/// Test records of draft questionnaire versions: kept apart, replaced by id, listed and deleted
/// per version and team, the same on every store.
public enum TestRecordContract {
    public static func testRecordsAreKeptApartPerVersionAndTeam(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open(database: try kind.newDatabase())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let a = try await store.createTeam(name: "a", at: start), b = try await store.createTeam(name: "b", at: start)
        func record(_ id: UUID, team: Team, version: String = "v2", at offset: Double, answers: Int = 3) -> TestRecord {
            TestRecord(
                id: id, questionnaireId: "q", version: version, teamId: team.id, collector: "ana", submittedBy: "lead",
                receivedAt: start.addingTimeInterval(offset), answerCount: answers, payload: Array(#"{"id":"x"}"#.utf8))
        }
        let first = UUID(), second = UUID(), third = UUID()
        #expect(try await store.storeTestRecord(record(first, team: a, at: 1)))
        #expect(try await store.storeTestRecord(record(second, team: a, at: 2)))
        #expect(try await store.storeTestRecord(record(third, team: b, at: 3)))
        #expect(try await !store.storeTestRecord(record(first, team: a, at: 4, answers: 9)), "the same id replaces")
        await #expect(throws: RecordStoreError.alreadyExists("test record \(first.uuidString.lowercased())"), "never another team's") {
            try await store.storeTestRecord(record(first, team: b, at: 5))
        }
        let listed = try await store.testRecords(questionnaireId: "q", version: "v2", teamId: a.id)
        #expect(listed.map(\.id) == [first, second] && listed[0].answerCount == 9 && listed[0].receivedAt == start.addingTimeInterval(4))
        #expect(listed.allSatisfy { $0.payload.isEmpty && $0.submittedBy == "lead" && $0.collector == "ana" })
        #expect(try await store.testRecords(questionnaireId: "q", version: "v2", teamId: nil).count == 3)
        #expect(try await store.testRecords(questionnaireId: "q", version: "v1", teamId: nil).isEmpty)
        #expect(try await store.record(id: first) == nil, "not a record")
        #expect(try await store.deleteTestRecords(questionnaireId: "q", version: "v2", teamId: b.id) == 1)
        #expect(try await store.deleteTestRecords(questionnaireId: "q", version: "v2", teamId: nil) == 2)
        #expect(try await store.testRecords(questionnaireId: "q", version: "v2", teamId: nil).isEmpty)
    }
}

/// A team's current dated reports read a page at a time, the same on every store.
public enum TeamReportsContract {
    public static func aTeamsCurrentReportsAreReadInPages(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open(database: try kind.newDatabase())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let a = try await store.createTeam(name: "a", at: start), b = try await store.createTeam(name: "b", at: start)
        func patient(_ team: Team, _ name: String) async throws -> UUID {
            let id = UUID()
            _ = try await store.registerPatients([
                NewPatient(
                    id: id, teamId: team.id, identification: PatientIdentification(givenName: name, familyName: "X"), createdBy: "ana",
                    createdAt: start)
            ])
            return id
        }
        let p1 = try await patient(a, "One"), p2 = try await patient(a, "Two"), other = try await patient(b, "Other")
        func put(_ id: UUID, _ series: String, _ day: String, _ value: Int) async throws {
            _ = try await store.putReport(
                patientId: id, series: series, date: ReportDate(day)!, values: #"{"v":\#(value)}"#, by: "ana",
                at: start.addingTimeInterval(Double(value)))
        }
        try await put(p1, "weight", "2026-01-02", 1)
        try await put(p1, "weight", "2026-01-01", 2)
        try await put(p1, "bp", "2026-01-01", 3)
        try await put(p2, "weight", "2026-01-01", 4)
        try await put(p2, "weight", "2026-01-01", 5)  // replaces: version 2
        try await put(other, "weight", "2026-01-01", 6)
        var pages: [[Report]] = []
        var after: (patientId: UUID, series: String, date: String)?
        repeat {
            let page = try await store.teamReports(teamId: a.id, after: after, limit: 2)
            pages.append(page)
            after = page.count == 2 ? page.last.map { ($0.patientId, $0.series, $0.date) } : nil
        } while after != nil
        let all = pages.flatMap { $0 }
        let expected = [(p1, "bp", "2026-01-01"), (p1, "weight", "2026-01-01"), (p1, "weight", "2026-01-02"), (p2, "weight", "2026-01-01")]
            .sorted { ($0.0.uuidString.lowercased(), $0.1, $0.2) < ($1.0.uuidString.lowercased(), $1.1, $1.2) }
        #expect(all.map { "\($0.patientId) \($0.series) \($0.date)" } == expected.map { "\($0.0) \($0.1) \($0.2)" })
        #expect(
            all.first { $0.patientId == p2 }?.version == 2 && all.first { $0.patientId == p2 }?.values == #"{"v":5}"#,
            "the current version only")
        #expect(try await store.teamReports(teamId: b.id, after: nil, limit: 10).map(\.patientId) == [other])
    }
}
