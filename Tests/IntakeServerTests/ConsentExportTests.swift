import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// A researcher's export holds only what each patient agreed to share with their access level;
/// records without a registry patient stay out unless the server is told otherwise; coordinators
/// still export their whole team.
struct ConsentExportTests {
    /// One record per consent state and one unlinked; their ids by state (``ConsentFixture``).
    static func records(_ server: TestServer) async throws -> [String: UUID] { try await ConsentFixture.records(server) }

    static func exported(_ client: some TestClientProtocol, as user: String, in server: TestServer) async throws -> Set<UUID> {
        try await ConsentFixture.exported(client, as: user, in: server)
    }

    @Test func eachResearcherLevelGetsExactlyWhatConsentAllows() async throws {
        var made = try await TestServer.make()
        try await made.addUser("study-reader", role: .researcher, team: nil)
        let server = made
        let ids = try await Self.records(server)
        try await server.application().test(.router) { client in
            let set = try await client.send(
                .patch, "/v1/users/study-reader", as: "admin", in: server, body: Data(#"{"researchAccess": "study"}"#.utf8))
            #expect(set.status == .ok && set.json["researchAccess"] as? String == "study", "\(set.text)")
            let external = try await Self.exported(client, as: "researcher", in: server)
            #expect(external == [ids["all_qualified_researchers"]!], "external access (the default): only those who share with all")
            let study = try await Self.exported(client, as: "study-reader", in: server)
            #expect(study == [ids["sponsors_and_partners"]!, ids["all_qualified_researchers"]!])
            for never in ["no_sharing", "unconsented", "unlinked"] {
                #expect(!external.contains(ids[never]!) && !study.contains(ids[never]!), "\(never) reaches no researcher")
            }
            let team = try await Self.exported(client, as: "coordinator-a", in: server)
            #expect(team == Set(ids.values), "a coordinator exports the whole team")
            let shown = try await client.send(.get, "/v1/users", as: "admin", in: server)
            #expect(
                (shown.json["users"] as? [[String: Any]])?.first { $0["username"] as? String == "researcher" }?["researchAccess"] as? String
                    == "external")
        }
    }

    @Test func unlinkedRecordsReachResearchersOnlyWhenTheServerSaysSo() async throws {
        let server = try await TestServer.make { $0.unlinkedRecordsReachResearchers = true }
        let ids = try await Self.records(server)
        try await server.application().test(.router) { client in
            let external = try await Self.exported(client, as: "researcher", in: server)
            #expect(external == [ids["all_qualified_researchers"]!, ids["unlinked"]!])
        }
    }

    static func lines(_ text: String) -> [[String: Any]] { ConsentFixture.lines(text) }

    static func header(_ answer: TestResponse, _ name: String) -> String? { answer.headers[HTTPField.Name(name)!] }

    @Test func anIncrementalExportListsWithdrawnRecordsAsRemovedAndBringsWidenedOnes() async throws {
        let server = try await TestServer.make()
        let ids = try await Self.records(server)
        let withdraw = try #require(try await server.services.store.record(id: ids["all_qualified_researchers"]!)?.record.patientId)
        let widen = try #require(try await server.services.store.record(id: ids["sponsors_and_partners"]!)?.record.patientId)
        try await server.application().test(.router) { client in
            let first = try await client.send(.get, "/v1/exports?format=jsonl", as: "researcher", in: server)
            let cursor = try #require(Self.header(first, "Intake-Export-Cursor"))
            #expect(
                Set(Self.lines(first.text).compactMap { $0["id"] as? String }) == [
                    ids["all_qualified_researchers"]!.uuidString.lowercased()
                ])
            for (id, scope) in [(withdraw, "no_sharing"), (widen, "all_qualified_researchers")] {
                let put = try await client.send(
                    .put, "/v1/patients/\(id)/consent", as: "coordinator-a", in: server,
                    body: Data(#"{"scope": "\#(scope)", "method": "written"}"#.utf8))
                #expect(put.status == .ok, "\(put.text)")
            }
            let next = try await client.send(.get, "/v1/exports?format=jsonl&since=\(cursor)", as: "researcher", in: server)
            let nextCursor = try #require(Self.header(next, "Intake-Export-Cursor"))
            #expect(
                Self.lines(next.text).compactMap { $0["id"] as? String } == [ids["sponsors_and_partners"]!.uuidString.lowercased()],
                "widened: it comes now")
            let removed = try await client.send(
                .get, "/v1/exports?format=removed&since=\(cursor)&until=\(nextCursor)", as: "researcher", in: server)
            #expect(removed.status == .ok && Self.header(removed, "Content-Type")?.hasPrefix("text/csv") == true)
            #expect(
                removed.text == "record_id,reason\r\n\(ids["all_qualified_researchers"]!.uuidString.lowercased()),consent_withdrawn\r\n",
                "\(removed.text)")
            let again = try await client.send(.get, "/v1/exports?format=removed&since=\(nextCursor)", as: "researcher", in: server)
            #expect(again.text == "record_id,reason\r\n", "listed once, in the export after the change")
            let team = try await client.send(.get, "/v1/exports?format=removed&since=team-1", as: "coordinator-a", in: server)
            #expect(team.text == "record_id,reason\r\n", "a coordinator keeps the team's records whatever their consent")
            let noSince = try await client.send(.get, "/v1/exports?format=removed", as: "researcher", in: server)
            #expect(noSince.status == .unprocessableContent && noSince.errorCode == "since_required" && noSince.text.contains("since"))
            // Found by schemathesis (seed 493339988): every parameter valid, the combination asks for nothing.
            let withIdentifiers = try await client.send(
                .get, "/v1/exports?includeIdentifiers=true&format=removed", as: "coordinator-a", in: server)
            #expect(withIdentifiers.errorCode == "since_required")
            let ahead = try await client.send(.get, "/v1/exports?format=removed&since=\(cursor)&until=999999", as: "researcher", in: server)
            #expect(ahead.errorCode == "unknown_cursor")
            let wrongKind = try await client.send(
                .get, "/v1/exports?format=removed&since=\(cursor)&until=2026-01-01", as: "researcher", in: server)
            #expect(wrongKind.errorCode == "wrong_cursor")
        }
    }

    @Test func exportsCarryEachPatientsScopeAndGroupsAndFilterByGroup() async throws {
        let server = try await TestServer.make()
        let ids = try await Self.records(server)
        let shared = try #require(try await server.services.store.record(id: ids["all_qualified_researchers"]!)?.record.patientId)
        try await server.application().test(.router) { client in
            for group in ["arm_a", "arm_b"] {
                _ = try await client.send(
                    .post, "/v1/data-groups", as: "admin", in: server, body: Data(#"{"name": "\#(group)", "description": ""}"#.utf8))
            }
            let joined = try await client.send(
                .patch, "/v1/patients/\(shared)", as: "coordinator-a", in: server,
                body: Data(#"{"baseRevision": 1, "addGroups": ["arm_b"]}"#.utf8))
            #expect(joined.status == .ok, "\(joined.text)")
            let csv = try await client.send(.get, "/v1/exports?format=csv", as: "coordinator-a", in: server)
            #expect(Self.header(csv, "Intake-Export-Data-Groups") == "arm_a,arm_b")
            let rows = csv.text.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            let header = try #require(rows.first)
            for column in ["sharing_scope", "data_groups", "group_arm_a", "group_arm_b"] { #expect(header.contains(column), "\(column)") }
            func cell(_ record: UUID, _ column: String) -> String? {
                guard let row = rows.first(where: { $0.first == record.uuidString.lowercased() }), let index = header.firstIndex(of: column)
                else { return nil }
                return row[index]
            }
            let record = ids["all_qualified_researchers"]!
            #expect(cell(record, "sharing_scope") == "all_qualified_researchers")
            #expect(cell(record, "data_groups") == "arm_b" && cell(record, "group_arm_b") == "1" && cell(record, "group_arm_a") == "0")
            #expect(cell(ids["unconsented"]!, "sharing_scope") == "" && cell(ids["unconsented"]!, "group_arm_b") == "0")
            #expect(cell(ids["unlinked"]!, "group_arm_b") == "", "no registry patient: no group cell")

            let filtered = try await client.send(.get, "/v1/exports?format=jsonl&dataGroups=arm_a,arm_b", as: "coordinator-a", in: server)
            #expect(Self.lines(filtered.text).compactMap { $0["id"] as? String } == [record.uuidString.lowercased()])
            #expect(Self.lines(filtered.text).first?["dataGroups"] as? [String] == ["arm_b"])
            #expect(Self.lines(filtered.text).first?["patientId"] == nil, "the registry id is an identifier")
            let unknown = try await client.send(.get, "/v1/exports?format=jsonl&dataGroups=arm_z", as: "researcher", in: server)
            #expect(unknown.errorCode == "unknown_data_group" && unknown.text.contains("arm_a, arm_b"), "\(unknown.text)")

            let fhir = try await client.send(.get, "/v1/exports?format=fhir", as: "researcher", in: server)
            let bundle = try #require(try JSONSerialization.jsonObject(with: Data(fhir.text.utf8)) as? [String: Any])
            let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
            let patientResources = resources.filter { $0["resourceType"] as? String == "Patient" }
            let consents = resources.filter { $0["resourceType"] as? String == "Consent" }
            #expect(patientResources.count == 1 && consents.count == 1)
            #expect(patientResources.first?["name"] == nil, "de-identified: no name")
            #expect(((consents.first?["provision"] as? [String: Any])?["type"] as? String) == "permit")
            let response = try #require(resources.first { $0["resourceType"] as? String == "QuestionnaireResponse" })
            let tags = ((response["meta"] as? [String: Any])?["tag"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(Set(tags) == ["arm_b", "all_qualified_researchers"])
        }
    }

    @Test func reportsReachResearchersAsRecordsDoKeyedTheSameWay() async throws {
        let server = try await TestServer.make()
        let ids = try await Self.records(server)
        try await server.application().test(.router) { client in
            for (state, record) in ids where state != "unlinked" {
                let patient = try #require(try await server.services.store.record(id: record)?.record.patientId)
                for date in ["2026-01-01", "2026-02-01"] {
                    let put = try await client.send(
                        .put, "/v1/patients/\(patient)/reports/vitals/\(date)", as: "coordinator-a", in: server,
                        body: Data(#"{"weight": 61.5, "note": "=sum(A1)", "fasting": true}"#.utf8))
                    #expect(put.status == .ok || put.status == .created, "\(put.text)")
                }
            }
            let records = try await client.send(.get, "/v1/exports?format=jsonl", as: "researcher", in: server)
            let key = try #require(Self.lines(records.text).first?["patientKey"] as? String)
            let reports = try await client.send(.get, "/v1/exports?format=reports", as: "researcher", in: server)
            #expect(reports.status == .ok, "\(reports.text)")
            let lines = Self.lines(reports.text)
            #expect(
                lines.count == 2 && lines.allSatisfy { $0["patientKey"] as? String == key },
                "only the patient who shares with everyone, keyed as their record")
            #expect(lines.map { $0["date"] as? String } == ["2026-01-01", "2026-02-01"])
            #expect((lines.first?["values"] as? [String: Any])?["weight"] as? Double == 61.5)
            let long = try await client.send(.get, "/v1/exports?format=reports-long", as: "researcher", in: server)
            #expect(long.text.hasPrefix("patient_key,series,date,version,field,value\r\n"))
            #expect(long.text.contains("\(key),vitals,2026-01-01,1,fasting,1\r\n"))
            #expect(long.text.contains("\(key),vitals,2026-01-01,1,note,'=sum(A1)\r\n"), "escaped as every CSV is")
            let study = try await client.send(.get, "/v1/exports?format=reports", as: "coordinator-a", in: server)
            #expect(Self.lines(study.text).count == 8, "a coordinator: every patient of the team")
        }
    }
}
