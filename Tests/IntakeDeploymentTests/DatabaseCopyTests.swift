import Foundation
import IntakeCore
import IntakeDeployment
import IntakePostgres
import IntakeSQLite
import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

@testable import IntakeServer
@testable import IntakeService

/// `intake admin copy-database`: a SQLite deployment moved to PostgreSQL keeps everything,
/// down to its export cursors and the secret patient keys are made with.
struct DatabaseCopyTests {
    @Test func aCopiedDeploymentHoldsTheSameRecordsAccountsAndSecrets() async throws {
        let path = try StoreKind.sqlite.newDatabase()
        let source = try SQLiteRecordStore(path: path)
        let team = try await source.createTeam(name: "clinic", at: Date(timeIntervalSince1970: 100))
        let cora = try await source.createUser(
            NewUser(username: "cora", passwordHash: "h", role: .coordinator, teamId: team.id), at: Date())
        try await source.createToken(NewToken(userId: cora.id, hash: "token-hash", name: "laptop", expiresAt: nil), at: Date())
        _ = try await source.publish(
            PublishedQuestionnaire(
                id: "refugee-health", version: RecordStoreContract.questionnaire.version, title: "T", questionCount: 3,
                files: ["1-a.txt": "A"], lists: [:], publishedAt: Date()))
        let records = (0..<1_200).map { RecordStoreContract.record(UInt64(500 + $0)) }
        _ = try await source.ingest(try records.map(IngestItem.init), owner: RecordOwner(teamId: team.id, username: "cora"), at: Date())
        var edit = try IngestItem(record: records[3].with { $0.patient.externalId = "E-1" })
        edit.deviceId = "laptop-7"
        #expect(try await source.update(edit, baseRevision: 1, teamId: team.id, savedBy: "cora", at: Date()) == .updated(revision: 2))
        // The team's own life: a member, an announcement (notifications), a referral and its thread, a webhook.
        let amina = try await source.createUser(
            NewUser(username: "amina", passwordHash: "h", role: .fieldworker, teamId: team.id), at: Date())
        let other = try await source.createTeam(name: "ward", at: Date())
        _ = try await source.announce(teamId: team.id, author: "cora", text: "Closed Friday", at: Date())
        guard
            case .referral(let referral) = try await source.createReferral(
                NewReferral(
                    recordId: records[0].id, fromTeamId: team.id, referrer: "cora", toTeamId: other.id, assignee: nil, reason: "r",
                    priority: .urgent, allowEdit: false, createdAt: Date()))
        else { throw CancellationError() }
        _ = try await source.addReferralMessage(id: referral.id, author: "cora", text: "hello", at: Date())
        guard
            case .created(let webhook) = try await source.createWebhook(
                NewWebhook(
                    ownerId: amina.id, createdBy: "amina", url: "https://hooks.example.org/x", types: ["announcement"], secret: "whsec_s",
                    createdAt: Date()))
        else { throw CancellationError() }
        guard
            case .deleted(let tombstone) = try await source.deleteRecord(
                id: records[9].id, teamId: team.id, reason: "twice", by: "cora", at: Date())
        else { throw CancellationError() }
        let notes = try await source.notifications(NotificationQuery(userId: amina.id))
        let secret = try await source.secret(named: "patient-key")
        let cursor = try await source.exportSnapshot(teamId: nil).cursor
        let teamCursor = try await source.exportSnapshot(teamId: team.id).cursor

        let target = try StoreKind.postgres.newDatabase()
        let tables = try await DatabaseCopy.copy(sqlite: path, to: target)
        #expect(tables.first { $0.name == "record" }?.rows == 1_200)
        #expect(tables.first { $0.name == "recordRevision" }?.rows == 1_200, "a deleted record's revision is gone")
        #expect(tables.first { $0.name == "account" }?.rows == 2)

        let copy = try await StoreKind.postgres.open(database: target)
        #expect(try await copy.secret(named: "patient-key") == secret, "patient keys stay the same")
        #expect(try await copy.exportSnapshot(teamId: nil).cursor == cursor, "export cursors stay valid")
        #expect(try await copy.exportSnapshot(teamId: team.id).cursor == teamCursor, "a team's export cursors stay valid")
        #expect(try await copy.record(id: records[3].id)?.record.patient.externalId == "E-1")
        #expect(try await copy.revisions(of: records[3].id).map(\.revision) == [1, 2])
        #expect(try await copy.revisions(of: records[3].id).map(\.deviceId) == [nil, "laptop-7"], "the device of each revision")
        #expect(tables.first { $0.name == "auditEvent" }?.rows == 1_202, "1,200 records created, one edited, one deleted")
        let audit = try await AuditLog(store: copy).verify()
        #expect(audit.isSound && audit.checked == 1_202, "the audit trail verifies in the copy")
        #expect(try await copy.tombstone(id: records[9].id) == tombstone, "a tombstone stays one")
        #expect(try await copy.record(id: records[9].id) == nil)
        #expect(try await copy.user(tokenHash: "token-hash", now: Date())?.username == "cora")
        #expect(try await copy.teams() == source.teams())
        #expect(try await copy.notifications(NotificationQuery(userId: amina.id)) == notes && notes.count == 1)
        #expect(try await copy.referral(id: referral.id) == source.referral(id: referral.id))
        #expect(try await copy.referralMessages(id: referral.id).map(\.text) == ["hello"])
        #expect(try await copy.webhook(id: webhook.id) == webhook, "the webhook, its secret and its delivery cursor")
        let announced = try await copy.announce(teamId: team.id, author: "cora", text: "Open Monday", at: Date())
        #expect(
            try await copy.notifications(NotificationQuery(userId: amina.id)).last.map { $0.id > notes[0].id } == true
                && announced.recipients == 1)
        // New rows continue the copied ids and cursors rather than colliding with them.
        let next = try await copy.createTeam(name: "second", at: Date())
        #expect(next.id > team.id)
        _ = try await copy.ingest(
            [try IngestItem(record: RecordStoreContract.record(9_999))], owner: RecordOwner(teamId: team.id, username: "cora"), at: Date())
        #expect(try await copy.exportSnapshot(teamId: nil).cursor == cursor + 1)
        #expect(try await copy.exportSnapshot(teamId: team.id).cursor == teamCursor + 1)
    }

    @Test func aDatabaseThatHoldsDataIsLeftAlone() async throws {
        let path = try StoreKind.sqlite.newDatabase()
        let source = try SQLiteRecordStore(path: path)
        _ = try await source.createTeam(name: "clinic", at: Date())
        let target = try StoreKind.postgres.newDatabase()
        let existing = try await StoreKind.postgres.open(database: target)
        _ = try await existing.createTeam(name: "already-here", at: Date())
        await #expect {
            _ = try await DatabaseCopy.copy(sqlite: path, to: target)
        } throws: { "\($0)".contains("already holds Intake data") }
        #expect(try await existing.teams().map(\.name) == ["already-here"])
    }
}
