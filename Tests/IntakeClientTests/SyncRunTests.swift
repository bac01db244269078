import Foundation
import IntakeCore
import IntakeServer
import IntakeService
import IntakeStore
import Testing

@testable import IntakeClient
@testable import IntakeFieldwork

/// `intake sync` against a real server: the sealed copy follows the team's records, drops
/// deletions, starts again when the server asks, and goes when access goes.
@Suite(.serialized)
struct SyncRunTests {
    @Test func theCopyFollowsSavesEditsAndDeletionsAndIsFoundOffline() async throws {
        let server = try await ClientTestServer.make()
        var seeded = (1...3).map { server.record(seed: $0) }
        seeded[0].patient.familyName = "Haddad"
        let records = seeded
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: 1, username: "cora"))
        // One server throughout: a copy belongs to a server (its URL).
        try await server.serving { port in
            let first = try await SyncRun(store: server.store, client: server.client(port: port)).catchUp()
            #expect(first.saved == 3 && first.removed == 0 && first.total == 3 && first.team == "clinic" && !first.rebuilt)
            #expect(try server.store.syncedRecord(id: records[0].id)?.response == records[0])

            var edited = records[1]
            edited.patient.externalId = "E-1"
            #expect(
                try await server.services.store.update(
                    try IngestItem(record: edited), baseRevision: 1, teamId: 1, savedBy: "cora", at: Date()) == .updated(revision: 2))
            _ = try await server.services.store.deleteRecord(id: records[0].id, teamId: 1, reason: "twice", by: "cora", at: Date())
            let second = try await SyncRun(store: server.store, client: server.client(port: port)).catchUp()
            #expect(second.saved == 1 && second.removed == 1 && second.total == 2, "only what changed comes")
        }
        #expect(try server.store.syncedRecord(id: records[0].id) == nil, "a record deleted on the server leaves the copy")
        #expect(try server.store.syncedRecord(id: records[1].id)?.revision == 2)
        #expect(try server.store.syncedRecord(id: records[1].id)?.response.patient.externalId == "E-1")

        // Offline, the copy answers a lookup, and a match opens as a draft based on its revision.
        let finder = PatientFinder(store: server.store, client: nil)
        let found = try await finder.find(LookupCriteria(externalId: "e-1"))
        #expect(found.matches.map(\.source) == [.synced] && found.matches.first?.revision == 2)
        let draft = try await finder.open(try #require(found.matches.first))
        #expect(draft.baseRevision == 2 && draft.response.id == records[1].id)
        #expect(try await finder.find(LookupCriteria(familyName: "haddad")).matches.isEmpty, "the deleted record is not found")

        // The copy survives a key rotation, sealed with the new key.
        try server.store.rotateKey()
        #expect(try server.store.syncedRecords().count == 2)
    }

    @Test func aPurgeBehindTheCopyMakesItStartAgainAndLosingTheTeamDropsIt() async throws {
        let server = try await ClientTestServer.make()
        let records = (10...13).map { server.record(seed: UInt64($0)) }
        _ = try await server.services.records.ingest(Array(records.prefix(3)), owner: RecordOwner(teamId: 1, username: "cora"))
        // One server throughout: a copy belongs to a server (its URL), and a port given back
        // between runs may be taken by another test's connection meanwhile.
        try await server.serving { port in
            _ = try await SyncRun(store: server.store, client: server.client(port: port)).catchUp()
            // Deleted long ago (as far as the purge is concerned), purged, and something newer saved.
            let longAgo = Date().addingTimeInterval(-100 * 86_400)
            _ = try await server.services.store.deleteRecord(id: records[0].id, teamId: 1, reason: "x", by: "cora", at: longAgo)
            _ = try await server.services.records.ingest([records[3]], owner: RecordOwner(teamId: 1, username: "cora"))
            #expect(
                try await server.services.store.purgeTombstones(
                    deletedBefore: Date().addingTimeInterval(-30 * 86_400), by: "admin", at: Date()
                ).purged == 1)
            let rebuilt = try await SyncRun(store: server.store, client: server.client(port: port)).catchUp()
            #expect(rebuilt.rebuilt && rebuilt.total == 3, "\(rebuilt)")
            #expect(try server.store.syncedRecord(id: records[0].id) == nil, "the purged deletion is not missed")

            _ = try await server.services.accounts.updateUser(username: "cora", role: nil, team: .some(nil), password: nil, disabled: nil)
            await #expect(throws: FieldworkError.self) {
                try await SyncRun(store: server.store, client: server.client(port: port)).catchUp()
            }
        }
        #expect(try server.store.syncedRecords().isEmpty && server.store.syncState() == nil, "a copy that lost access is dropped")
    }
}
