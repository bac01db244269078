import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

struct RecordRoutesTests {
    @Test func postingIsIdempotentByRecordId() async throws {
        let server = try await TestServer.make()
        let record = server.record()
        try await server.application().test(.router) { client in
            let first = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(first.status == .created)
            #expect(first.json["outcome"] as? String == "created")
            let again = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(again.status == .ok)
            #expect(again.json["outcome"] as? String == "duplicate")
            var changed = record
            changed.patient.externalId = "CASE-CHANGED"
            let conflict = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: changed)
            #expect(conflict.status == .conflict)
            #expect(conflict.errorCode == "conflict")
            #expect(conflict.text.contains("send changes with PUT /v1/records/"))
        }
        #expect(try await server.services.store.revisions(of: record.id).count == 1)
    }

    @Test func recordsAreValidatedServerSide() async throws {
        let server = try await TestServer.make()
        let record = server.record().with {
            $0[QuestionPosition(section: 1, index: 8)] = .integer(999)
            $0.patient.familyName = ""
        }
        let unknown = server.record(seed: 2).with { $0.questionnaire.version = "0000000000000000" }
        try await server.application().test(.router) { client in
            let invalid = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.errorCode == "invalid_record")
            let issues = ((invalid.json["error"] as? [String: Any])?["details"] as? [String: Any])?["issues"] as? [[String: Any]]
            // The household size out of range, the names missing, and the household members' repeat
            // no longer holding as many instances as its count (the size less one) says.
            #expect(issues?.compactMap { $0["kind"] as? String }.sorted() == ["invalidValue", "missingIdentification", "outOfRange"])
            #expect(!invalid.text.contains("999") && !invalid.text.contains(record.patient.givenName))
            let version = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: unknown)
            #expect(version.status == .unprocessableContent)
            #expect(version.errorCode == "unknown_questionnaire")
        }
    }

    /// A name or a text answer holding terminal control sequences would drive the terminal of
    /// whoever looks the patient up: refused, with what to do; tab and line feed stay allowed.
    @Test func answersAndNamesWithControlCharactersAreRefused() async throws {
        let server = try await TestServer.make()
        let escaped = server.record(seed: 3).with { $0.patient.givenName = "Lyla\u{1B}[D\u{1B}[Da" }
        let bell = server.record(seed: 4).with { $0.patient.externalId = "E-\u{07}1" }
        let c1 = server.record(seed: 5).with { $0.patient.familyName = "Had\u{9B}2Jdad" }
        try await server.application().test(.router) { client in
            for (record, field) in [(escaped, "givenName"), (bell, "externalId"), (c1, "familyName")] {
                let refused = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
                #expect(refused.status == .unprocessableContent && refused.errorCode == "invalid_record", "\(refused.text)")
                let issues = ((refused.json["error"] as? [String: Any])?["details"] as? [String: Any])?["issues"] as? [[String: Any]]
                #expect(
                    issues?.contains { $0["field"] as? String == field && ($0["message"] as? String ?? "").contains("control character") }
                        == true, "\(refused.text)")
                #expect(!refused.text.contains("\u{1B}") && !refused.text.contains("\\u001b"), "the answer is not echoed")
            }
            #expect(
                try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: server.record(seed: 6)).status
                    == .created)
        }
    }

    @Test func answersToHiddenQuestionsAreDroppedWithAWarning() async throws {
        let server = try await TestServer.make()
        let record = server.record().with {
            $0[QuestionPosition(section: 1, index: 13)] = .yesNo(false)
            $0[QuestionPosition(section: 1, index: 14)] = .integer(3)
        }
        try await server.application().test(.router) { client in
            let response = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(response.status == .created)
            #expect((response.json["warnings"] as? [[String: Any]])?.first?["kind"] as? String == "hiddenAnswer")
        }
        let stored = try #require(try await server.services.store.record(id: record.id))
        #expect(stored.record[QuestionPosition(section: 1, index: 14)] == nil)
    }

    @Test func badRequestsGetClearErrorsNever500() async throws {
        let server = try await TestServer.make { $0.maxBodyBytes = 16384 }
        try await server.application().test(.router) { client in
            let malformed = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, body: Data("{\"id\": ".utf8))
            #expect(malformed.status == .badRequest)
            #expect(malformed.text.contains("the record could not be read at byte 7 (id): expected a string"))
            var object = try JSONSerialization.jsonObject(with: try server.record().jsonData()) as! [String: Any]
            var patient = object["patient"] as! [String: Any]
            patient["givenName"] = 42
            object["patient"] = patient
            let wrongType = try await client.send(
                .post, "/v1/records", as: "fieldworker-a", in: server, body: try JSONSerialization.data(withJSONObject: object))
            #expect(wrongType.status == .badRequest)
            #expect(wrongType.text.contains("(patient.givenName): expected a string"))
            patient["givenName"] = "Amina"
            object["patient"] = patient
            object.removeValue(forKey: "status")
            let missing = try await client.send(
                .post, "/v1/records", as: "fieldworker-a", in: server, body: try JSONSerialization.data(withJSONObject: object))
            #expect(missing.text.contains("field 'status' is missing"))
            let huge = try await client.send(
                .post, "/v1/records", as: "fieldworker-a", in: server, body: Data(repeating: 0x20, count: 40_000))
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorCode == "body_too_large")
            let badId = try await client.send(.get, "/v1/records/not-a-uuid", as: "fieldworker-a", in: server)
            #expect(badId.status == .badRequest)
            let noRoute = try await client.send(.get, "/v1/nothing", as: "fieldworker-a", in: server)
            #expect(noRoute.status == .notFound && noRoute.errorCode == "not_found")
        }
    }

    @Test func batchReportsEachRecordAndStoresNothingTwice() async throws {
        let server = try await TestServer.make()
        let existing = server.record(seed: 1)
        let conflicting = existing.with { $0.patient.externalId = "OTHER" }
        let invalid = server.record(seed: 3).with { $0.patient.givenName = "" }
        let fresh = server.record(seed: 4)
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: existing)
            var body =
                try JSONSerialization.jsonObject(with: Batch(records: [fresh, existing, conflicting, invalid]).jsonBody) as! [String: Any]
            var records = body["records"] as! [Any]
            records.append(["id": "broken"])
            body["records"] = records
            let data = try JSONSerialization.data(withJSONObject: body)
            let response = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, body: data)
            #expect(response.status == .ok)
            let results = try #require(response.json["results"] as? [[String: Any]])
            #expect(results.compactMap { $0["outcome"] as? String } == ["created", "duplicate", "conflict", "invalid", "invalid"])
            #expect(results.compactMap { $0["index"] as? Int } == [0, 1, 2, 3, 4])
            #expect(results[4]["code"] as? String == "malformed_record")
            #expect(response.json["summary"] as? [String: Int] == ["created": 1, "duplicate": 1, "conflict": 1, "invalid": 2])
            let retried = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, body: data)
            #expect((retried.json["summary"] as? [String: Int])?["created"] == 0)
            #expect((retried.json["summary"] as? [String: Int])?["duplicate"] == 2)
        }
        #expect(try await server.services.store.revisions(of: fresh.id).count == 1)
    }

    @Test func batchesOverTheLimitAreRefused() async throws {
        let server = try await TestServer.make { $0.maxBatchRecords = 3 }
        try await server.application().test(.router) { client in
            let records = (1...4).map { server.record(seed: UInt64($0)) }
            let response = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, json: Batch(records: records))
            #expect(response.status == .contentTooLarge)
            #expect(response.text.contains("a batch holds at most 3 records; this one has 4; split it"))
        }
    }

    @Test func updatesKeepEveryRevisionAndRefuseStaleOnes() async throws {
        let server = try await TestServer.make()
        let record = server.record()
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            var edited = record
            edited.patient.externalId = "CASE-2"
            let saved = try await client.send(
                .put, "/v1/records/\(record.id)", as: "coordinator-a", in: server, json: Update(baseRevision: 1, record: edited))
            #expect(saved.status == .ok)
            #expect(saved.json["revision"] as? Int == 2)
            let stale = try await client.send(
                .put, "/v1/records/\(record.id)", as: "fieldworker-a", in: server, json: Update(baseRevision: 1, record: record))
            #expect(stale.status == .conflict)
            #expect(stale.errorCode == "stale_revision")
            #expect(((stale.json["error"] as? [String: Any])?["details"] as? [String: Any])?["currentRevision"] as? Int == 2)
            let current = try await client.send(.get, "/v1/records/\(record.id)", as: "fieldworker-a", in: server)
            #expect(current.json["revision"] as? Int == 2)
            #expect(((current.json["record"] as? [String: Any])?["patient"] as? [String: Any])?["externalId"] as? String == "CASE-2")
            let revisions = try await client.send(.get, "/v1/records/\(record.id)/revisions", as: "fieldworker-a", in: server)
            let list = try #require(revisions.json["revisions"] as? [[String: Any]])
            #expect(list.compactMap { $0["revision"] as? Int } == [1, 2])
            #expect(list.compactMap { $0["savedBy"] as? String } == ["fieldworker-a", "coordinator-a"])
            let mismatch = try await client.send(
                .put, "/v1/records/\(UUID())", as: "fieldworker-a", in: server, json: Update(baseRevision: 2, record: edited))
            #expect(mismatch.status == .unprocessableContent && mismatch.errorCode == "id_mismatch", "\(mismatch.text)")
            let reposted = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(reposted.json["outcome"] as? String == "duplicate", "re-sending an earlier revision is not a conflict")
        }
    }

    /// A record opened and saved again without a change (a later save time, another device)
    /// makes no revision: the history keeps only real changes.
    @Test func anEditThatChangesNothingMakesNoRevision() async throws {
        let server = try await TestServer.make()
        let record = server.record()
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            var again = record
            again.updatedAt = record.updatedAt.addingTimeInterval(60)
            again.deviceId = "another-device"
            let same = try await client.send(
                .put, "/v1/records/\(record.id)", as: "fieldworker-a", in: server, json: Update(baseRevision: 1, record: again))
            #expect(same.status == .ok, "\(same.text)")
            #expect(same.json["outcome"] as? String == "unchanged" && same.json["revision"] as? Int == 1, "\(same.text)")
            var edited = again
            edited.patient.externalId = "CASE-9"
            let changed = try await client.send(
                .put, "/v1/records/\(record.id)", as: "fieldworker-a", in: server, json: Update(baseRevision: 1, record: edited))
            #expect(changed.json["outcome"] as? String == "updated" && changed.json["revision"] as? Int == 2, "\(changed.text)")
            let revisions = try await client.send(.get, "/v1/records/\(record.id)/revisions", as: "fieldworker-a", in: server)
            #expect((revisions.json["revisions"] as? [[String: Any]])?.compactMap { $0["revision"] as? Int } == [1, 2])
        }
    }
}
