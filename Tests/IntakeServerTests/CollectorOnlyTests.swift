import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// A collector-only questionnaire over HTTP: field workers see their own records of it only, in
/// every way in (read, edit, lookup, change feed); coordinators see the team's.
struct CollectorOnlyTests {
    @Test func fieldWorkersSeeOnlyTheRecordsTheyCollectedAndCoordinatorsSeeAll() async throws {
        var server = try await TestServer.make()
        try await server.addUser("fieldworker-a2", role: .fieldworker, team: "team-a")
        let mine = server.record(seed: 900, familyName: "Haddad"),
            theirs = server.record(seed: 901, familyName: "Haddad", collector: "fieldworker-a2")
        let qid = server.questionnaire.reference.id
        try await server.application().test(.router) { [server] client in
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: mine).status == .created)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a2", in: server, json: theirs).status == .created)
            let theirPath = "/v1/records/\(theirs.id.uuidString.lowercased())"
            #expect(try await client.send(.get, theirPath, as: "fieldworker-a", in: server).status == .ok, "team-wide by default")
            let feed = try await client.send(.get, "/v1/changes", as: "fieldworker-a", in: server)
            let cursor = try #require(feed.json["cursor"] as? String)

            #expect(
                try await client.send(
                    .put, "/v1/questionnaires/\(qid)/access", as: "coordinator-a", in: server, json: ["collectorOnly": true]
                ).status == .forbidden)
            let set = try await client.send(
                .put, "/v1/questionnaires/\(qid)/access", as: "admin", in: server, json: ["collectorOnly": true])
            #expect(set.status == .ok && set.json["changed"] as? Bool == true)
            #expect(
                try await client.send(.get, "/v1/questionnaires/\(qid)/access", as: "fieldworker-a", in: server).json["collectorOnly"]
                    as? Bool == true)
            #expect(
                try await client.send(.put, "/v1/questionnaires/nope/access", as: "admin", in: server, json: ["collectorOnly": true]).status
                    == .notFound)

            #expect(try await client.send(.get, theirPath, as: "fieldworker-a", in: server).status == .notFound)
            #expect(try await client.send(.get, theirPath + "/revisions", as: "fieldworker-a", in: server).status == .notFound)
            let edit = try await client.send(
                .put, theirPath, as: "fieldworker-a", in: server,
                json: Update(baseRevision: 1, record: theirs.with { $0.patient.externalId = "X" }))
            #expect(edit.status == .notFound)
            #expect(
                try await client.send(.get, "/v1/records/\(mine.id.uuidString.lowercased())", as: "fieldworker-a", in: server).status == .ok
            )
            #expect(try await client.send(.get, theirPath, as: "fieldworker-a2", in: server).status == .ok, "their own")
            #expect(try await client.send(.get, theirPath, as: "coordinator-a", in: server).status == .ok, "coordinators see the team's")
            let found = try await client.send(.get, "/v1/records?familyName=Haddad", as: "fieldworker-a", in: server)
            #expect(
                (found.json["results"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [mine.id.uuidString.lowercased()],
                "\(found.text)")
            let coordinatorFinds = try await client.send(.get, "/v1/records?familyName=Haddad", as: "coordinator-a", in: server)
            #expect((coordinatorFinds.json["results"] as? [Any])?.count == 2)

            // The feed re-sends every record of it: the other's record as out of reach, without its content.
            let next = try await client.send(.get, "/v1/changes?since=\(cursor)", as: "fieldworker-a", in: server)
            let changes = next.json["changes"] as? [[String: Any]] ?? []
            let byId = Dictionary(uniqueKeysWithValues: changes.compactMap { change in (change["id"] as? String).map { ($0, change) } })
            #expect(byId[theirs.id.uuidString.lowercased()]?["type"] as? String == "removed")
            #expect(byId[theirs.id.uuidString.lowercased()]?["reason"] as? String == "out_of_reach")
            #expect(byId[mine.id.uuidString.lowercased()]?["type"] as? String == "record")
            #expect(!next.text.contains(theirs.patient.givenName), "nothing of the other's record")
            // Nor can a field worker refer it.
            let refer: [String: String] = ["recordId": theirs.id.uuidString.lowercased(), "toTeam": "team-b", "reason": "second opinion"]
            #expect(try await client.send(.post, "/v1/referrals", as: "fieldworker-a", in: server, json: refer).status == .notFound)
            #expect(try await client.send(.post, "/v1/referrals", as: "coordinator-a", in: server, json: refer).status == .created)
            let coordinatorFeed = try await client.send(.get, "/v1/changes?since=\(cursor)", as: "coordinator-a", in: server)
            #expect((coordinatorFeed.json["changes"] as? [[String: Any]])?.allSatisfy { $0["type"] as? String == "record" } == true)
        }
    }

    @Test func theCollectorIsAMemberTheServerCheckedAndKeepsTheirRecordsWhoeverUploads() async throws {
        var server = try await TestServer.make()
        try await server.addUser("fieldworker-a2", role: .fieldworker, team: "team-a")
        let qid = server.questionnaire.reference.id
        _ = try await server.services.store.setCollectorOnly(questionnaireId: qid, true, by: "admin", at: Date())
        let hers = server.record(seed: 910, collector: "fieldworker-a")
        let path = "/v1/records/\(hers.id.uuidString.lowercased())"
        try await server.application().test(.router) { [server] client in
            // A coordinator uploads a field worker's record: it stays hers.
            #expect(try await client.send(.post, "/v1/records", as: "coordinator-a", in: server, json: hers).status == .created)
            let read = try await client.send(.get, path, as: "fieldworker-a", in: server)
            #expect(read.status == .ok && read.json["receivedBy"] as? String == "coordinator-a", "\(read.text)")
            #expect(try await client.send(.get, path, as: "fieldworker-a2", in: server).status == .notFound)
            let found = try await client.send(.get, "/v1/records?familyName=\(hers.patient.familyName)", as: "fieldworker-a", in: server)
            #expect(
                (found.json["results"] as? [[String: Any]])?.contains { $0["id"] as? String == hers.id.uuidString.lowercased() } == true)

            // A short id finds her record for her and the coordinator, not for another field worker.
            let short = String(hers.id.uuidString.lowercased().prefix(8))
            for (user, found) in [("fieldworker-a", true), ("coordinator-a", true), ("fieldworker-a2", false), ("coordinator-b", false)] {
                let ids = try await client.send(.get, "/v1/records/ids?prefix=\(short)", as: user, in: server)
                #expect((ids.json["ids"] as? [String]) == (found ? [hers.id.uuidString.lowercased()] : []), "\(user): \(ids.text)")
            }
            #expect(try await client.send(.get, "/v1/records/ids?prefix=xyz", as: "fieldworker-a", in: server).status == .badRequest)

            // A collector who is not, and never was, a member of the team: refused, one by one in a batch.
            for outsider in ["fieldworker-b", "nobody", ""] {
                let refused = try await client.send(
                    .post, "/v1/records", as: "coordinator-a", in: server, json: server.record(seed: 911, collector: outsider))
                #expect(refused.status == .unprocessableContent && refused.errorCode == "unknown_collector", "\(outsider): \(refused.text)")
            }
            let batch = try await client.send(
                .post, "/v1/records/batch", as: "coordinator-a", in: server,
                json: Batch(records: [
                    server.record(seed: 912, collector: "fieldworker-a2"), server.record(seed: 913, collector: "coordinator-b"),
                ]))
            let outcomes = (batch.json["results"] as? [[String: Any]])?.map { "\($0["outcome"] ?? "")/\($0["code"] ?? "")" }
            #expect(outcomes == ["created/", "invalid/unknown_collector"], "\(batch.text)")

            // An edit keeps the collector: changing it, even to a member, is refused.
            for other in ["fieldworker-b", "fieldworker-a2"] {
                let moved = try await client.send(
                    .put, path, as: "coordinator-a", in: server, json: Update(baseRevision: 1, record: hers.with { $0.collector = other }))
                #expect(moved.status == .unprocessableContent && moved.errorCode == "collector_changed", "\(other): \(moved.text)")
            }
            let edited = try await client.send(
                .put, path, as: "coordinator-a", in: server,
                json: Update(baseRevision: 1, record: hers.with { $0.patient.externalId = "E-1" }))
            #expect(edited.status == .ok, "\(edited.text)")
            #expect(try await client.send(.get, path, as: "fieldworker-a", in: server).status == .ok, "still hers after the edit")

            // A former member stays a valid collector of the team's records.
            #expect(
                try await client.send(.delete, "/v1/teams/team-a/members/fieldworker-a2", as: "coordinator-a", in: server).status
                    == .noContent)
            let late = try await client.send(
                .post, "/v1/records", as: "coordinator-a", in: server, json: server.record(seed: 914, collector: "fieldworker-a2"))
            #expect(late.status == .created, "\(late.text)")
        }
        // The audit trail names the collector beside who uploaded.
        let events = try await server.services.store.auditEvents(AuditQuery(action: "record.create"))
        #expect(
            events.contains {
                $0.subject == hers.id.uuidString.lowercased() && $0.actor == "coordinator-a" && $0.details["collector"] == "fieldworker-a"
            })
    }
}
