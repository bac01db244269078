import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// The patient registry over HTTP: registration that is safe to send again, one patient per
/// external id, finding, optimistic changes, archive and restore, consent and its history, each
/// team seeing only its own patients.
struct PatientRoutesTests {
    struct Person: Encodable {
        var id: String?
        var givenName: String
        var familyName: String
        var dateOfBirth: String?
        var sex: String?
        var externalId: String?
    }

    @Test func aPatientIsRegisteredOnceFoundChangedArchivedAndGivenConsent() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let id = UUID().uuidString.lowercased()
            let amina = Person(
                id: id, givenName: "Amina", familyName: "Haddad", dateOfBirth: "1990-04-12", sex: "female", externalId: "UNHCR-1")
            let created = try await client.send(.post, "/v1/patients", as: "fieldworker-a", in: server, json: amina)
            #expect(
                created.status == .created && created.json["id"] as? String == id && created.json["revision"] as? Int == 1,
                "\(created.text)")
            #expect(created.json["sharingScope"] as? String == "no_sharing", "no consent yet: nothing shared")
            let again = try await client.send(.post, "/v1/patients", as: "fieldworker-a", in: server, json: amina)
            #expect(again.status == .ok && again.json["id"] as? String == id, "sent again: already registered")
            let twin = try await client.send(
                .post, "/v1/patients", as: "coordinator-b", in: server,
                json: Person(givenName: "Other", familyName: "Person", externalId: "UNHCR-1"))
            #expect(twin.status == .conflict && twin.errorCode == "external_id_taken", "\(twin.text)")
            #expect(((twin.json["error"] as? [String: Any])?["details"] as? [String: Any])?["existingPatientId"] as? String == id)
            #expect(!twin.text.contains("Amina"), "the refusal names the patient by id only")

            let found = try await client.send(.get, "/v1/patients?name=HADDAD", as: "coordinator-a", in: server)
            #expect((found.json["patients"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            #expect(
                (try await client.send(.get, "/v1/patients?name=haddad", as: "coordinator-b", in: server).json["patients"] as? [Any])?
                    .isEmpty == true)
            #expect(try await client.send(.get, "/v1/patients/\(id)", as: "fieldworker-b", in: server).status == .notFound)
            #expect(try await client.send(.get, "/v1/patients/\(id)", as: "admin", in: server).status == .ok)
            #expect(try await client.send(.get, "/v1/patients/\(id)", as: "researcher", in: server).status == .forbidden)
            #expect(try await client.send(.get, "/v1/patients", as: "fieldworker-a", in: server).errorCode == "no_criteria")
            #expect(
                try await client.send(.get, "/v1/patients?dateOfBirth=1990-02-30", as: "fieldworker-a", in: server).status == .badRequest)
            // Only white space (a form feed, a byte order mark) is no name: as the spec's \S pattern says.
            #expect(try await client.send(.get, "/v1/patients?name=%0C", as: "fieldworker-a", in: server).status == .badRequest)
            let invisible = try await client.send(
                .post, "/v1/patients", as: "fieldworker-a", in: server, json: Person(givenName: "\u{FEFF}", familyName: "Haddad"))
            #expect(invisible.status == .unprocessableContent, "\(invisible.text)")
            let byBirth = try await client.send(
                .get, "/v1/patients?dateOfBirth=1990-04-12&externalId=UNHCR-1", as: "fieldworker-a", in: server)
            #expect((byBirth.json["patients"] as? [Any])?.count == 1)

            let renamed = try await client.send(
                .patch, "/v1/patients/\(id)", as: "fieldworker-a", in: server,
                body: Data(#"{"baseRevision": 1, "familyName": "Haddad-Khan", "externalId": null}"#.utf8))
            #expect(renamed.status == .ok && renamed.json["revision"] as? Int == 2 && renamed.json["externalId"] == nil, "\(renamed.text)")
            #expect(renamed.json["dateOfBirth"] as? String == "1990-04-12", "left out: kept")
            let stale = try await client.send(
                .patch, "/v1/patients/\(id)", as: "fieldworker-a", in: server, body: Data(#"{"baseRevision": 1, "givenName": "A"}"#.utf8))
            #expect(stale.status == .conflict && stale.errorCode == "stale_revision", "\(stale.text)")
            #expect(((stale.json["error"] as? [String: Any])?["details"] as? [String: Any])?["currentRevision"] as? Int == 2)
            let blank = try await client.send(
                .patch, "/v1/patients/\(id)", as: "fieldworker-a", in: server, body: Data(#"{"baseRevision": 2, "givenName": "  "}"#.utf8))
            #expect(blank.status == .unprocessableContent && !blank.text.contains("Amina"))

            let archived = try await client.send(.post, "/v1/patients/\(id)/archive", as: "coordinator-a", in: server)
            #expect(archived.json["archived"] as? Bool == true)
            #expect(
                (try await client.send(.get, "/v1/patients?name=haddad", as: "coordinator-a", in: server).json["patients"] as? [Any])?
                    .isEmpty == true)
            #expect(
                (try await client.send(.get, "/v1/patients?name=haddad&includeArchived=true", as: "coordinator-a", in: server).json[
                    "patients"] as? [Any])?.count == 1)
            #expect(
                try await client.send(.post, "/v1/patients/\(id)/restore", as: "coordinator-a", in: server).json["archived"] as? Bool
                    == false)

            struct ConsentBody: Encodable { var scope: String; var method: String }
            let consented = try await client.send(
                .put, "/v1/patients/\(id)/consent", as: "fieldworker-a", in: server,
                json: ConsentBody(scope: "all_qualified_researchers", method: "written"))
            #expect(consented.status == .ok && consented.json["sharingScope"] as? String == "all_qualified_researchers")
            _ = try await client.send(
                .put, "/v1/patients/\(id)/consent", as: "coordinator-a", in: server,
                json: ConsentBody(scope: "no_sharing", method: "verbal"))
            let history = try await client.send(.get, "/v1/patients/\(id)/consent", as: "coordinator-a", in: server)
            #expect(history.json["scope"] as? String == "no_sharing")
            #expect(
                (history.json["history"] as? [[String: Any]])?.map { $0["recordedBy"] as? String } == ["fieldworker-a", "coordinator-a"])
            let badScope = try await client.send(
                .put, "/v1/patients/\(id)/consent", as: "fieldworker-a", in: server, json: ConsentBody(scope: "everyone", method: "verbal"))
            #expect(badScope.status == .badRequest)
            #expect(
                try await client.send(
                    .put, "/v1/patients/\(id)/consent", as: "fieldworker-b", in: server,
                    json: ConsentBody(scope: "no_sharing", method: "verbal")
                ).status == .notFound)
        }
    }

    @Test func aBatchRegistersEachPatientOrSaysWhyNot() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            struct Batch: Encodable { var patients: [Person] }
            let first = UUID().uuidString.lowercased()
            let batch = Batch(patients: [
                Person(id: first, givenName: "Amina", familyName: "Haddad", externalId: "S-1"),
                Person(givenName: "Bilal", familyName: "Khan", externalId: "S-1"),
                Person(givenName: "Chen", familyName: "Li"),
            ])
            let answer = try await client.send(.post, "/v1/patients/batch", as: "coordinator-a", in: server, json: batch)
            let results = try #require(answer.json["results"] as? [[String: Any]], "\(answer.text)")
            #expect(results.map { $0["outcome"] as? String } == ["created", "external_id_taken", "created"])
            #expect(results[1]["existingPatientId"] as? String == first && results[0]["id"] as? String == first)
            let again = try await client.send(
                .post, "/v1/patients/batch", as: "coordinator-a", in: server, json: Batch(patients: [batch.patients[0]]))
            #expect((again.json["results"] as? [[String: Any]])?.first?["outcome"] as? String == "existing", "idempotent")
            let future = try await client.send(
                .post, "/v1/patients/batch", as: "coordinator-a", in: server,
                json: Batch(patients: [
                    Person(givenName: "Dana", familyName: "Li"), Person(givenName: "Eve", familyName: "Li", dateOfBirth: "2999-01-01"),
                ]))
            #expect(
                future.status == .unprocessableContent && future.text.contains("patient 2: dateOfBirth is in the future"), "\(future.text)")
            #expect(
                (try await client.send(.get, "/v1/patients?name=dana", as: "coordinator-a", in: server).json["patients"] as? [Any])?.isEmpty
                    == true, "nothing half-done")
            for body in [
                #"{"patients": [{"givenName": "A", "familyName": "B", "externalId": null}]}"#,
                #"{"patients": [{"givenName": "A", "familyName": "B", "nickname": "C"}]}"#,
            ] {
                let strict = try await client.send(.post, "/v1/patients/batch", as: "coordinator-a", in: server, body: Data(body.utf8))
                #expect(
                    strict.status == .badRequest && strict.text.contains("patients[0]"), "each patient as strict as a body: \(strict.text)")
            }
            #expect(try await client.send(.get, "/v1/patients?externalId=", as: "coordinator-a", in: server).status == .badRequest)
            let empty = try await client.send(.post, "/v1/patients/batch", as: "coordinator-a", in: server, json: Batch(patients: []))
            #expect(empty.status == .unprocessableContent)
            #expect(try await client.send(.post, "/v1/patients/batch", as: "admin", in: server, json: batch).status == .forbidden)
        }
    }

    @Test func aRecordPointsOnlyToAPatientOfItsTeam() async throws {
        let server = try await TestServer.make()
        let ours = UUID(), theirs = UUID()
        for (id, team) in [(ours, Int64(1)), (theirs, Int64(2))] {
            _ = try await server.services.store.registerPatients([
                NewPatient(
                    id: id, teamId: team, identification: PatientIdentification(givenName: "A", familyName: "B"), createdBy: "x",
                    createdAt: Date())
            ])
        }
        try await server.application().test(.router) { client in
            var record = server.record(seed: 3)
            record.patientId = ours
            let stored = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(stored.status == .created, "\(stored.text)")
            let read = try await client.send(.get, "/v1/records/\(record.id.uuidString.lowercased())", as: "fieldworker-a", in: server)
            #expect((read.json["record"] as? [String: Any])?["patientId"] as? String == ours.uuidString.lowercased())
            for other in [theirs, UUID()] {
                var elsewhere = server.record(seed: 4)
                elsewhere.patientId = other
                let refused = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: elsewhere)
                #expect(refused.status == .unprocessableContent && refused.errorCode == "unknown_patient", "\(refused.text)")
            }
            var edited = record
            edited.patientId = theirs
            let moved = try await client.send(
                .put, "/v1/records/\(record.id.uuidString.lowercased())", as: "fieldworker-a", in: server,
                json: Update(baseRevision: 1, record: edited))
            #expect(moved.errorCode == "unknown_patient", "an edit cannot point the record elsewhere: \(moved.text)")
        }
    }

    @Test func dataGroupsAreDefinedByAnAdminAndPatientsJoinThemAllOrNothing() async throws {
        let server = try await TestServer.make()
        let id = UUID()
        _ = try await server.services.store.registerPatients([
            NewPatient(
                id: id, teamId: 1, identification: PatientIdentification(givenName: "Amina", familyName: "Haddad"), createdBy: "x",
                createdAt: Date())
        ])
        try await server.application().test(.router) { client in
            struct Group: Encodable { var name: String; var description: String? }
            #expect(
                try await client.send(.post, "/v1/data-groups", as: "admin", in: server, json: Group(name: "arm_a", description: "Arm A"))
                    .status == .created)
            #expect(try await client.send(.post, "/v1/data-groups", as: "admin", in: server, json: Group(name: "arm_b")).status == .created)
            #expect(
                try await client.send(.post, "/v1/data-groups", as: "admin", in: server, json: Group(name: "arm_a")).errorCode
                    == "data_group_exists")
            #expect(
                try await client.send(.post, "/v1/data-groups", as: "admin", in: server, json: Group(name: "Arm A")).status
                    == .unprocessableContent)
            #expect(
                try await client.send(.post, "/v1/data-groups", as: "coordinator-a", in: server, json: Group(name: "arm_c")).status
                    == .forbidden)

            let path = "/v1/patients/\(id.uuidString.lowercased())"
            let joined = try await client.send(
                .patch, path, as: "coordinator-a", in: server, body: Data(#"{"baseRevision": 1, "addGroups": ["arm_b", "arm_a"]}"#.utf8))
            #expect(joined.status == .ok && joined.json["dataGroups"] as? [String] == ["arm_a", "arm_b"], "\(joined.text)")
            let unknown = try await client.send(
                .patch, path, as: "coordinator-a", in: server,
                body: Data(#"{"baseRevision": 2, "givenName": "X", "addGroups": ["arm_z"]}"#.utf8))
            #expect(unknown.status == .unprocessableContent && unknown.errorCode == "unknown_data_group", "\(unknown.text)")
            #expect(
                ((unknown.json["error"] as? [String: Any])?["details"] as? [String: Any])?["defined"] as? [String] == ["arm_a", "arm_b"])
            #expect(unknown.text.contains("the data group 'arm_z' is not defined"), "the group is named: \(unknown.text)")
            #expect(((unknown.json["error"] as? [String: Any])?["details"] as? [String: Any])?["unknown"] as? [String] == ["arm_z"])
            // A change that changes nothing (groups it is in already) makes no revision.
            let same = try await client.send(
                .patch, path, as: "coordinator-a", in: server, body: Data(#"{"baseRevision": 2, "addGroups": ["arm_a"]}"#.utf8))
            #expect(same.status == .ok && same.json["revision"] as? Int == 2, "\(same.text)")
            #expect(
                try await client.send(.get, path, as: "coordinator-a", in: server).json["givenName"] as? String == "Amina",
                "nothing half-done")
            let both = try await client.send(
                .patch, path, as: "coordinator-a", in: server,
                body: Data(#"{"baseRevision": 2, "addGroups": ["arm_a"], "removeGroups": ["arm_a"]}"#.utf8))
            #expect(both.status == .unprocessableContent)

            let counts = try await client.send(.get, "/v1/data-groups", as: "coordinator-a", in: server)
            #expect((counts.json["dataGroups"] as? [[String: Any]])?.map { $0["patients"] as? Int } == [1, 1])
            let forResearchers = try await client.send(.get, "/v1/data-groups", as: "researcher", in: server)
            #expect(
                (forResearchers.json["dataGroups"] as? [[String: Any]])?.allSatisfy { $0["patients"] == nil } == true,
                "no counts for researchers")
            #expect(try await client.send(.delete, "/v1/data-groups/arm_a", as: "admin", in: server).errorCode == "data_group_in_use")
            let left = try await client.send(
                .patch, path, as: "coordinator-a", in: server, body: Data(#"{"baseRevision": 2, "removeGroups": ["arm_a"]}"#.utf8))
            #expect(left.json["dataGroups"] as? [String] == ["arm_b"])
            #expect(try await client.send(.delete, "/v1/data-groups/arm_a", as: "admin", in: server).status == .noContent)
            #expect(try await client.send(.delete, "/v1/data-groups/arm_a", as: "admin", in: server).status == .notFound)
        }
    }

    /// Groups and consent given at registration, the whole set of groups replaced, and the whole
    /// registry read a page at a time (what a machine's copy is made of).
    @Test func registrationCarriesGroupsAndConsentAndTheRegistryIsReadInPages() async throws {
        let server = try await TestServer.make()
        struct Group: Encodable { var name: String }
        try await server.application().test(.router) { client in
            for name in ["arm_a", "arm_b", "arm_c"] {
                #expect(
                    try await client.send(.post, "/v1/data-groups", as: "admin", in: server, json: Group(name: name)).status == .created)
            }
            let refused = try await client.send(
                .post, "/v1/patients", as: "fieldworker-a", in: server,
                body: Data(#"{"givenName": "Amina", "familyName": "Haddad", "dataGroups": ["arm_z"]}"#.utf8))
            #expect(refused.status == .unprocessableContent && refused.errorCode == "unknown_data_group", "\(refused.text)")
            #expect(refused.text.contains("'arm_z'"), "the group is named: \(refused.text)")
            let registered = try await client.send(
                .post, "/v1/patients", as: "fieldworker-a", in: server,
                body: Data(
                    #"{"givenName": "Amina", "familyName": "Haddad", "dataGroups": ["arm_b", "arm_a"], "consent": {"scope": "sponsors_and_partners", "method": "written"}}"#
                        .utf8))
            #expect(registered.status == .created, "\(registered.text)")
            #expect(
                registered.json["dataGroups"] as? [String] == ["arm_a", "arm_b"]
                    && registered.json["sharingScope"] as? String == "sponsors_and_partners")
            let id = try #require(registered.json["id"] as? String)
            let revision = try #require(registered.json["revision"] as? Int)
            let consent = try await client.send(.get, "/v1/patients/\(id)/consent", as: "fieldworker-a", in: server)
            #expect(((consent.json["history"] as? [[String: Any]])?.first)?["recordedBy"] as? String == "fieldworker-a", "\(consent.text)")

            // The whole set replaced, from the revision seen; an older revision is stale.
            let path = "/v1/patients/\(id)"
            let replaced = try await client.send(
                .patch, path, as: "coordinator-a", in: server,
                body: Data(#"{"baseRevision": \#(revision), "dataGroups": ["arm_c", "arm_a"]}"#.utf8))
            #expect(replaced.status == .ok && replaced.json["dataGroups"] as? [String] == ["arm_a", "arm_c"], "\(replaced.text)")
            let stale = try await client.send(
                .patch, path, as: "coordinator-a", in: server, body: Data(#"{"baseRevision": \#(revision), "dataGroups": []}"#.utf8))
            #expect(stale.errorCode == "stale_revision", "\(stale.text)")
            let emptied = try await client.send(
                .patch, path, as: "coordinator-a", in: server, body: Data(#"{"baseRevision": \#(revision + 1), "dataGroups": []}"#.utf8))
            #expect(emptied.status == .ok && (emptied.json["dataGroups"] as? [String] ?? []).isEmpty, "\(emptied.text)")
            let mixed = try await client.send(
                .patch, path, as: "coordinator-a", in: server,
                body: Data(#"{"baseRevision": \#(revision + 2), "dataGroups": ["arm_a"], "addGroups": ["arm_b"]}"#.utf8))
            #expect(mixed.status == .unprocessableContent, "\(mixed.text)")

            // The whole registry in pages, archived patients included, another team's never.
            var ids = [id]
            for n in 0..<4 {
                let more = try await client.send(
                    .post, "/v1/patients", as: "fieldworker-a", in: server, json: Person(givenName: "P\(n)", familyName: "Page"))
                ids.append(try #require(more.json["id"] as? String))
            }
            _ = try await client.send(
                .post, "/v1/patients", as: "fieldworker-b", in: server, json: Person(givenName: "Other", familyName: "Team"))
            _ = try await client.send(.post, "/v1/patients/\(ids[1])/archive", as: "coordinator-a", in: server)
            var pages: [[String]] = []
            var after: String?
            repeat {
                let page = try await client.send(
                    .get, "/v1/patients?all=true&includeArchived=true&limit=2" + (after.map { "&after=\($0)" } ?? ""), as: "fieldworker-a",
                    in: server)
                let got = (page.json["patients"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                pages.append(got)
                after = got.count == 2 ? got.last : nil
            } while after != nil
            #expect(pages.flatMap { $0 } == ids.sorted(), "\(pages)")
            #expect(try await client.send(.get, "/v1/patients?all=true&limit=501", as: "fieldworker-a", in: server).status == .badRequest)
            #expect(
                try await client.send(.get, "/v1/patients?after=\(id)", as: "fieldworker-a", in: server).status == .ok,
                "after alone pages too")
            let strict = try await client.send(
                .post, "/v1/patients", as: "fieldworker-a", in: server,
                body: Data(
                    #"{"givenName": "A", "familyName": "B", "consent": {"scope": "no_sharing", "method": "verbal", "extra": 1}}"#.utf8))
            #expect(strict.status == .badRequest && strict.text.contains("consent has no field 'extra'"), "\(strict.text)")
            #expect(
                try await client.send(.get, "/v1/patients?all=true", as: "fieldworker-a", in: server).json["patients"].map {
                    ($0 as? [Any])?.count
                } == 4, "archived left out unless asked")
        }
    }

    @Test func datedReportsAreStoredReplacedAndReadByRange() async throws {
        let server = try await TestServer.make()
        let id = UUID()
        _ = try await server.services.store.registerPatients([
            NewPatient(
                id: id, teamId: 1, identification: PatientIdentification(givenName: "Amina", familyName: "Haddad"), createdBy: "x",
                createdAt: Date())
        ])
        let base = "/v1/patients/\(id.uuidString.lowercased())/reports"
        try await server.application().test(.router) { client in
            func put(_ path: String, _ body: String, as user: String = "fieldworker-a") async throws -> TestResponse {
                try await client.send(.put, base + path, as: user, in: server, body: Data(body.utf8))
            }
            #expect(try await put("/vitals/2026-01-01", #"{"weight": 60}"#).status == .created)
            #expect(try await put("/vitals/2026-01-15", #"{"weight": 61}"#).status == .created)
            let replaced = try await put("/vitals/2026-01-15", #"{"weight": 61.5}"#, as: "coordinator-a")
            #expect(replaced.status == .ok && replaced.json["version"] as? Int == 2, "\(replaced.text)")
            let range = try await client.send(
                .get, base + "/vitals?startDate=2026-01-01&endDate=2026-01-15", as: "coordinator-a", in: server)
            let reports = try #require(range.json["reports"] as? [[String: Any]], "\(range.text)")
            #expect(reports.map { $0["date"] as? String } == ["2026-01-01", "2026-01-15"], "inclusive at both ends")
            #expect((reports[1]["values"] as? [String: Any])?["weight"] as? Double == 61.5)
            let latest = try await client.send(.get, base + "/vitals?latest=true", as: "fieldworker-a", in: server)
            #expect((latest.json["reports"] as? [[String: Any]])?.map { $0["date"] as? String } == ["2026-01-15"])
            let history = try await client.send(.get, base + "/vitals/2026-01-15", as: "admin", in: server)
            #expect(
                (history.json["history"] as? [[String: Any]])?.map { $0["recordedBy"] as? String } == ["fieldworker-a", "coordinator-a"])

            #expect(try await put("/glucose/2026-01-20T08%3A00%3A00Z", "{}").status == .created, "colons percent-encoded in the path")
            #expect(try await client.send(.get, base + "/glucose/2026-01-20T08:00:00.000Z", as: "fieldworker-a", in: server).status == .ok)
            let wrong = try await put("/vitals/2026-01-20T08:00:00Z", "{}")
            #expect(wrong.status == .unprocessableContent && wrong.errorCode == "wrong_date_kind", "\(wrong.text)")
            #expect(
                try await client.send(.get, base + "/vitals?startDate=2026-01-20T08:00:00Z", as: "fieldworker-a", in: server).errorCode
                    == "wrong_date_kind")
            #expect(try await put("/vitals/2026-02-30", "{}").status == .badRequest)
            #expect(try await put("/vitals/2026-02-01", "[1, 2]").status == .badRequest, "a report is an object")
            #expect(try await put("/Vitals!/2026-02-01", "{}").status == .unprocessableContent)
            #expect(try await client.send(.get, base + "/never", as: "fieldworker-a", in: server).status == .notFound)
            #expect(try await put("/vitals/2026-02-01", "{}", as: "fieldworker-b").status == .notFound, "another team's patient")
            #expect(try await client.send(.get, base + "/vitals", as: "researcher", in: server).status == .forbidden)
        }
    }
}
