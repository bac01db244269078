import Foundation
import IntakeCore
import IntakeService
import Testing

/// What every store must do with grants: give read or edit access to one record, to a user or
/// a team outside the record's team, until it expires or is revoked, audited with it; and a
/// grant racing the record's deletion never outlives the record.
public enum GrantStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    public static func grantsGiveAccessUntilTheyExpireOrAreRevoked(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let clinic = try await store.createTeam(name: "clinic", at: start)
        let ward = try await store.createTeam(name: "ward", at: start)
        let lab = try await store.createTeam(name: "lab", at: start)
        _ = try await store.createUser(NewUser(username: "cora", passwordHash: "h", role: .coordinator, teamId: clinic.id), at: start)
        _ = try await store.createUser(NewUser(username: "wanda", passwordHash: "h", role: .fieldworker, teamId: ward.id), at: start)
        _ = try await store.createUser(NewUser(username: "liam", passwordHash: "h", role: .fieldworker, teamId: lab.id), at: start)
        let record = RecordStoreContract.record(3900)
        _ = try await store.ingest([IngestItem(record: record)], owner: RecordOwner(teamId: clinic.id, username: "cora"), at: start)
        let hour: TimeInterval = 3600

        func grant(
            _ user: String?, _ team: String?, _ access: GrantAccess, until: Date, from: Int64 = clinic.id, record id: UUID = record.id
        ) async throws -> GrantOutcome {
            try await store.createGrant(
                NewGrant(
                    recordId: id, fromTeamId: from, toUser: user, toTeam: team, access: access, expiresAt: until, grantedBy: "cora",
                    grantedAt: start))
        }
        guard case .created(let toWanda) = try await grant("wanda", nil, .read, until: start + hour) else {
            Issue.record("no grant"); return
        }
        #expect(toWanda.toUser == "wanda" && toWanda.access == .read && toWanda.expiresAt == start + hour && toWanda.grantedBy == "cora")
        guard case .created(let toLab) = try await grant(nil, "lab", .edit, until: start + 2 * hour) else {
            Issue.record("no grant"); return
        }
        #expect(toLab.toTeam == "lab" && toLab.toTeamId == lab.id)

        #expect(try await store.grantAccess(recordId: record.id, username: "wanda", teamId: ward.id, now: start + 1) == (true, false))
        #expect(
            try await store.grantAccess(recordId: record.id, username: "liam", teamId: lab.id, now: start + 1) == (true, true),
            "a team's grant reaches its members")
        #expect(try await store.grantAccess(recordId: record.id, username: "olga", teamId: nil, now: start + 1) == (false, false))
        #expect(
            try await store.grantAccess(recordId: record.id, username: "wanda", teamId: ward.id, now: start + hour) == (false, false),
            "expired at its time, not after")
        #expect(try await store.grantsReceived(username: "wanda", teamId: ward.id, now: start + 1).map(\.id) == [toWanda.id])
        #expect(try await store.grantsReceived(username: "wanda", teamId: ward.id, now: start + hour).isEmpty)

        let revoked = try await store.revokeGrant(id: toLab.id, recordId: record.id, by: "cora", at: start + 10)
        #expect(revoked?.revokedAt == start + 10 && revoked?.revokedBy == "cora")
        #expect(try await store.grantAccess(recordId: record.id, username: "liam", teamId: lab.id, now: start + 11) == (false, false))
        #expect(
            try await store.revokeGrant(id: toLab.id, recordId: record.id, by: "dan", at: start + 20)?.revokedBy == "cora", "revoked once")
        #expect(try await store.revokeGrant(id: UUID(), recordId: record.id, by: "cora", at: start + 20) == nil)
        #expect(
            try await store.revokeGrant(id: toWanda.id, recordId: UUID(), by: "cora", at: start + 20) == nil, "a grant of another record")
        #expect(Set(try await store.grants(recordId: record.id).map(\.id)) == [toLab.id, toWanda.id], "revoked ones are listed too")

        #expect(try await grant("nobody", nil, .read, until: start + hour) == .unknownUser("nobody"))
        #expect(try await grant(nil, "nowhere", .read, until: start + hour) == .unknownTeam("nowhere"))
        #expect(try await grant("cora", nil, .read, until: start + hour) == .alreadyInTeam("cora"))
        #expect(
            try await grant("wanda", nil, .read, until: start + hour, from: ward.id) == .recordNotFound, "only the record's team grants")
        _ = try await store.deleteRecord(id: record.id, teamId: clinic.id, reason: "x", by: "cora", at: start + 30)
        #expect(try await grant("wanda", nil, .read, until: start + hour) == .recordNotFound, "no grant on a deleted record")
        #expect(try await store.grantsReceived(username: "wanda", teamId: ward.id, now: start + 40).isEmpty)

        let audited = try await store.auditEvents(AuditQuery(action: "grant"))
        #expect(audited.map(\.action) == ["grant.create", "grant.create", "grant.revoke"])
        #expect(audited.first?.details["toUser"] == "wanda" && audited.first?.subject == record.id.uuidString.lowercased())
    }

    /// A grant racing the record's deletion on two servers: it is refused, or it was given
    /// before the deletion; either way nobody reaches the record afterwards.
    public static func aGrantRacingTheRecordsDeletionNeverOutlivesIt(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let clinic = try await first.createTeam(name: "clinic", at: start)
        let ward = try await first.createTeam(name: "ward", at: start)
        _ = try await first.createUser(NewUser(username: "wanda", passwordHash: "h", role: .fieldworker, teamId: ward.id), at: start)
        for round in 0..<6 {
            let record = RecordStoreContract.record(3950 + UInt64(round))
            _ = try await first.ingest([IngestItem(record: record)], owner: RecordOwner(teamId: clinic.id, username: "cora"), at: start)
            async let granted = first.createGrant(
                NewGrant(
                    recordId: record.id, fromTeamId: clinic.id, toUser: "wanda", toTeam: nil, access: .edit, expiresAt: start + 3600,
                    grantedBy: "cora", grantedAt: start))
            async let deleted = second.deleteRecord(id: record.id, teamId: clinic.id, reason: "x", by: "cora", at: start)
            let (grant, deletion) = try await (granted, deleted)
            guard case .deleted = deletion else { Issue.record("round \(round): \(deletion)"); continue }
            switch grant {
            case .created, .recordNotFound: break
            default: Issue.record("round \(round): \(grant)")
            }
            #expect(try await first.record(id: record.id) == nil)
            #expect(
                try await second.grantsReceived(username: "wanda", teamId: ward.id, now: start + 1).allSatisfy { $0.recordId != record.id })
        }
    }

    /// A grant goes to whoever is outside the record's team when it is given (as
    /// ``GrantRules/create(_:recordTeamId:recipient:)`` decides): a user of no team or of another
    /// team, a former member; not a member. A grant racing the recipient's move into the record's
    /// team (on two servers) is given or refused as already in the team, never anything else.
    public static func aGrantGoesToWhoeverIsOutsideTheRecordsTeamWhenGiven(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let clinic = try await first.createTeam(name: "clinic", at: start)
        let ward = try await first.createTeam(name: "ward", at: start)
        _ = try await first.createUser(NewUser(username: "cora", passwordHash: "h", role: .coordinator, teamId: clinic.id), at: start)
        _ = try await first.createUser(NewUser(username: "olga", passwordHash: "h", role: .fieldworker, teamId: nil), at: start)
        _ = try await first.createUser(NewUser(username: "fred", passwordHash: "h", role: .fieldworker, teamId: clinic.id), at: start)
        let record = RecordStoreContract.record(3990)
        _ = try await first.ingest([IngestItem(record: record)], owner: RecordOwner(teamId: clinic.id, username: "cora"), at: start)
        func grant(_ store: any RecordStore, _ user: String) async throws -> GrantOutcome {
            try await store.createGrant(
                NewGrant(
                    recordId: record.id, fromTeamId: clinic.id, toUser: user, toTeam: nil, access: .read, expiresAt: start + 3600,
                    grantedBy: "cora", grantedAt: start))
        }
        guard case .created = try await grant(first, "olga") else { Issue.record("no grant to a user of no team"); return }
        #expect(try await grant(first, "fred") == .alreadyInTeam("fred"))
        _ = try await first.updateUser(username: "fred", UserChange(teamId: .some(ward.id)))
        guard case .created = try await grant(first, "fred") else { Issue.record("no grant to a former member"); return }
        for round in 0..<6 {
            let name = "mover\(round)"
            _ = try await first.createUser(NewUser(username: name, passwordHash: "h", role: .fieldworker, teamId: ward.id), at: start)
            async let given = grant(first, name)
            async let moved = second.updateUser(username: name, UserChange(teamId: .some(clinic.id)))
            let (outcome, _) = try await (given, moved)
            switch outcome {
            case .created, .alreadyInTeam(name): break
            default: Issue.record("round \(round): \(outcome)")
            }
        }
    }
}
