import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// `DELETE /v1/records/{id}` and what a deleted record answers afterwards; `POST /v1/tombstones/purge`.
struct RecordDeletionTests {
    static func header(_ answer: TestResponse, _ name: String) -> String? { answer.headers[HTTPField.Name(name)!] }

    @Test func aCoordinatorDeletesWithAReasonAndTheRecordAnswers410AfterwardsWithWhenAndByWhom() async throws {
        let server = try await TestServer.make()
        let records = [server.record(seed: 31, familyName: "Haddad"), server.record(seed: 32)]
        try await server.application().test(.router) { client in
            for record in records {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            }
            let first = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            let cursor = try #require(Self.header(first, "Intake-Export-Cursor"))
            let path = "/v1/records/\(records[0].id.uuidString.lowercased())"

            // Who may delete: the record's team's coordinators, with a reason.
            #expect(try await client.send(.delete, path, as: "fieldworker-a", in: server, json: ["reason": "x"]).status == .forbidden)
            #expect(try await client.send(.delete, path, as: "coordinator-b", in: server, json: ["reason": "x"]).status == .notFound)
            #expect(
                try await client.send(.delete, path, as: "coordinator-a", in: server, json: ["reason": " \u{FEFF}\t"]).errorCode
                    == "invalid_reason")
            #expect(
                try await client.send(.delete, path, as: "coordinator-a", in: server, json: ["reason": String(repeating: "é", count: 501)])
                    .errorCode == "invalid_reason")
            #expect(try await client.send(.delete, path, as: "coordinator-a", in: server).status == .badRequest, "no body")
            #expect(
                try await client.send(.delete, path, as: "coordinator-a", in: server, json: ["reason": "x", "why": "y"]).status
                    == .badRequest)
            #expect(try await client.send(.get, path, as: "fieldworker-a", in: server).status == .ok, "nothing deleted yet")

            let deleted = try await client.send(.delete, path, as: "coordinator-a", in: server, json: ["reason": " entered twice "])
            #expect(deleted.status == .ok, "\(deleted.text)")
            #expect(deleted.json["id"] as? String == records[0].id.uuidString.lowercased())
            #expect(deleted.json["deletedBy"] as? String == "coordinator-a" && deleted.json["reason"] as? String == "entered twice")
            #expect(deleted.json["revision"] as? Int == 1)
            let deletedAt = try #require(deleted.json["deletedAt"] as? String)

            for (method, uri) in [(HTTPRequest.Method.get, path), (.get, path + "/revisions"), (.get, path + "?asOf=2026-01-01T00:00:00Z")]
            {
                let gone = try await client.send(method, uri, as: "fieldworker-a", in: server)
                #expect(gone.status == .gone && gone.errorCode == "deleted", "\(uri)")
                let details = (gone.json["error"] as? [String: Any])?["details"] as? [String: Any]
                #expect(details?["deletedAt"] as? String == deletedAt && details?["deletedBy"] as? String == "coordinator-a")
                #expect(!gone.text.contains("Haddad") && !gone.text.contains("entered twice"))
            }
            #expect(try await client.send(.get, path, as: "fieldworker-b", in: server).status == .notFound, "another team learns nothing")
            let edit = try await client.send(
                .put, path, as: "fieldworker-a", in: server,
                json: Update(baseRevision: 1, record: records[0].with { $0.patient.externalId = "E" }))
            #expect(edit.status == .gone && edit.errorCode == "deleted")
            let again = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: records[0])
            #expect(again.status == .conflict && again.errorCode == "deleted", "\(again.text)")
            let batch = try await client.send(
                .post, "/v1/records/batch", as: "fieldworker-a", in: server, json: Batch(records: [records[0]]))
            let result = (batch.json["results"] as? [[String: Any]])?.first
            #expect(result?["outcome"] as? String == "conflict" && result?["code"] as? String == "deleted")
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-b", in: server, json: records[0]).errorCode == "id_taken")
            #expect(try await client.send(.delete, path, as: "coordinator-a", in: server, json: ["reason": "again"]).status == .gone)
            let lookup = try await client.send(.get, "/v1/records?familyName=Haddad", as: "fieldworker-a", in: server)
            #expect((lookup.json["results"] as? [Any])?.isEmpty == true, "\(lookup.text)")

            // The next incremental export lists it once; the full one no longer holds it.
            let next = try await client.send(.get, "/v1/exports?format=jsonl&since=\(cursor)", as: "coordinator-a", in: server)
            let nextCursor = try #require(Self.header(next, "Intake-Export-Cursor"))
            let removed = try await client.send(
                .get, "/v1/exports?format=removed&since=\(cursor)&until=\(nextCursor)", as: "coordinator-a", in: server)
            #expect(
                removed.text == "record_id,reason\r\n\(records[0].id.uuidString.lowercased()),deleted\r\n"
                    || removed.text == "record_id,reason\n\(records[0].id.uuidString.lowercased()),deleted\n", "\(removed.text)")
            let later = try await client.send(.get, "/v1/exports?format=removed&since=\(nextCursor)", as: "coordinator-a", in: server)
            #expect(!later.text.contains(records[0].id.uuidString.lowercased()))
            let whole = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            #expect(
                !whole.text.contains(records[0].id.uuidString.lowercased()) && whole.text.contains(records[1].id.uuidString.lowercased()))

            // On the audit trail once, as a deletion, without the reason (the read is the one before it).
            let audit = try await client.send(.get, "/v1/audit?subject=\(records[0].id.uuidString.lowercased())", as: "admin", in: server)
            let actions = (audit.json["events"] as? [[String: Any]])?.compactMap { $0["action"] as? String }
            #expect(actions == ["record.create", "record.read", "record.delete"], "\(audit.text)")
            #expect(!audit.text.contains("entered twice"))

            // Purging: admins only; a tombstone just made is not old enough.
            #expect(
                try await client.send(.post, "/v1/tombstones/purge", as: "coordinator-a", in: server, json: ["olderThanDays": 1]).status
                    == .forbidden)
            #expect(
                try await client.send(.post, "/v1/tombstones/purge", as: "admin", in: server, json: ["olderThanDays": 0]).errorCode
                    == "invalid_retention")
            let purge = try await client.send(.post, "/v1/tombstones/purge", as: "admin", in: server, json: ["olderThanDays": 1])
            #expect(purge.status == .ok && purge.json["purged"] as? Int == 0 && purge.json["kept"] as? Int == 0, "\(purge.text)")
            #expect(try await client.send(.get, path, as: "fieldworker-a", in: server).status == .gone)
        }
    }
}
