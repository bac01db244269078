import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import Testing

@testable import IntakeServer

/// A researcher's export holds only what each patient agreed to share with their access level;
/// records without a registry patient stay out unless the server is told otherwise; coordinators
/// still export their whole team.
struct ConsentExportTests {
    /// One record per consent state (none, no_sharing, sponsors_and_partners, all_qualified_researchers) and one unlinked; their ids by state.
    static func records(_ server: TestServer) async throws -> [String: UUID] {
        var ids: [String: UUID] = [:]
        for (index, scope) in [SharingScope?.none, .noSharing, .sponsorsAndPartners, .allQualifiedResearchers].enumerated() {
            let patient = UUID()
            _ = try await server.services.store.registerPatients([
                NewPatient(id: patient, teamId: 1, identification: PatientIdentification(givenName: "P", familyName: "\(index)"), createdBy: "x", createdAt: Date())
            ])
            if let scope {
                _ = try await server.services.store.recordConsent(Consent(patientId: patient, scope: scope, method: .written, recordedBy: "x", recordedAt: Date()))
            }
            var record = server.record(seed: UInt64(40 + index))
            record.patientId = patient
            _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
            ids[scope?.rawValue ?? "unconsented"] = record.id
        }
        let unlinked = server.record(seed: 50)
        _ = try await server.services.records.ingest([unlinked], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        ids["unlinked"] = unlinked.id
        return ids
    }

    static func exported(_ client: some TestClientProtocol, as user: String, in server: TestServer) async throws -> Set<UUID> {
        let answer = try await client.send(.get, "/v1/exports?format=jsonl", as: user, in: server)
        #expect(answer.status == .ok, "\(answer.text)")
        return Set(answer.text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"].flatMap { $0 as? String }.flatMap(UUID.init(uuidString:))
        })
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
            #expect((shown.json["users"] as? [[String: Any]])?.first { $0["username"] as? String == "researcher" }?["researchAccess"] as? String == "external")
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
}
