import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeService
import Testing

/// Records whose patients agreed to each sharing scope (and none), for the tests of every door
/// that exports: what a researcher of each access level may read.
package enum ConsentFixture {
    /// One record per consent state (none, no_sharing, sponsors_and_partners, all_qualified_researchers) and one unlinked; their ids by state.
    package static func records(_ server: TestServer) async throws -> [String: UUID] {
        var ids: [String: UUID] = [:]
        for (index, scope) in [SharingScope?.none, .noSharing, .sponsorsAndPartners, .allQualifiedResearchers].enumerated() {
            let patient = UUID()
            _ = try await server.services.store.registerPatients([
                NewPatient(
                    id: patient, teamId: 1, identification: PatientIdentification(givenName: "P", familyName: "\(index)"), createdBy: "x",
                    createdAt: Date())
            ])
            if let scope {
                _ = try await server.services.store.recordConsent(
                    Consent(patientId: patient, scope: scope, method: .written, recordedBy: "x", recordedAt: Date()))
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

    /// The record ids of a JSON Lines export `user` makes.
    package static func exported(_ client: some TestClientProtocol, as user: String, in server: TestServer) async throws -> Set<UUID> {
        let answer = try await client.send(.get, "/v1/exports?format=jsonl", as: user, in: server)
        #expect(answer.status == .ok, "\(answer.text)")
        return Set(
            answer.text.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"].flatMap { $0 as? String }.flatMap(
                    UUID.init(uuidString:))
            })
    }

    package static func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
