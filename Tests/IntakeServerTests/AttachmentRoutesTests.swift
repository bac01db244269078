import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import NIOCore
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Files answering photo, audio, document and signature questions: uploaded in chunks that
/// resume, checked by hash and by bytes, taken by the record that names them (a record naming a
/// file the server lacks is refused), read under the record-access policy, exported under consent
/// (never an identifying question's file to a researcher), and deleted with the record. On the
/// store the tests run on (scripts/test runs them on SQLite and on PostgreSQL).
struct AttachmentRoutesTests {
    private func put(
        _ client: some TestClientProtocol, _ server: TestServer, _ sha: String, _ bytes: Data, range: String? = nil,
        as user: String = "fieldworker-a"
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/octet-stream", .authorization: "Bearer \(server.tokens[user]!)"]
        if let range { headers[.contentRange] = range }
        return try await client.execute(uri: "/v1/uploads/\(sha)", method: .put, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    private func photographed(_ server: TestServer, seed: UInt64, _ ref: AttachmentRef) -> PatientResponse {
        server.record(seed: seed).with { $0[server.questionnaire.question(id: "document_photo")!.position] = .attachment(ref) }
    }

    @Test func aFileUploadedInChunksResumesAndIsTakenByItsRecord() async throws {
        let server = try await TestServer.make()
        let photo = AttachmentFixture.png(size: 3000, seed: 7)
        let sha = AttachmentFixture.digest(of: photo)
        let ref = AttachmentRef(sha256: sha, size: photo.count, mediaType: "image/png")
        try await server.application().test(.router) { client in
            let first = try await put(client, server, sha, photo.prefix(1000), range: "bytes 0-999/3000")
            #expect(first.status == .accepted && first.json["received"] as? Int == 1000, "\(first.text)")
            // The same chunk again (a retry after a lost answer): the server says where it stands.
            let again = try await put(client, server, sha, photo.prefix(1000), range: "bytes 0-999/3000")
            #expect(again.status == .conflict && again.errorCode == "wrong_offset", "\(again.text)")
            let status = try await client.send(.get, "/v1/uploads/\(sha)", as: "fieldworker-a", in: server)
            #expect(status.json["state"] as? String == "partial" && status.json["received"] as? Int == 1000)
            // Another team's upload of the same file is its own.
            let theirs = try await client.send(.get, "/v1/uploads/\(sha)", as: "fieldworker-b", in: server)
            #expect(theirs.json["received"] as? Int == 0)
            let rest = try await put(client, server, sha, photo.suffix(2000), range: "bytes 1000-2999/3000")
            #expect(rest.status == .created && rest.json["mediaType"] as? String == "image/png", "\(rest.text)")

            let record = photographed(server, seed: 61, ref)
            let posted = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(posted.status == .created, "\(posted.text)")
            let id = record.id.uuidString.lowercased()
            let read = try await client.send(.get, "/v1/records/\(id)/attachments/\(sha)", as: "fieldworker-a", in: server)
            #expect(read.status == .ok && Data(buffer: read.body) == photo && read.headers[.contentType] == "image/png")
            let outsider = try await client.send(.get, "/v1/records/\(id)/attachments/\(sha)", as: "fieldworker-b", in: server)
            #expect(outsider.status == .notFound)
            let exported = try await client.send(.get, "/v1/exports/attachments/\(id)/\(sha)", as: "coordinator-a", in: server)
            #expect(exported.status == .ok && Data(buffer: exported.body) == photo)
            // A file of another record, or none, is not found.
            let other = AttachmentFixture.digest
            #expect(
                try await client.send(.get, "/v1/records/\(id)/attachments/\(other)", as: "fieldworker-a", in: server).status == .notFound)
        }
    }

    @Test func aRecordNamingAFileTheServerLacksIsRefusedSayingWhich() async throws {
        let server = try await TestServer.make()
        let photo = AttachmentFixture.png(size: 500, seed: 9)
        let ref = AttachmentRef(sha256: AttachmentFixture.digest(of: photo), size: photo.count, mediaType: "image/png")
        try await server.application().test(.router) { client in
            let record = photographed(server, seed: 62, ref)
            let refused = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(refused.status == .unprocessableContent && refused.errorCode == "attachment_missing", "\(refused.text)")
            #expect(refused.text.contains("PUT /v1/uploads/{sha256}"))
            // Uploaded by another team, it is still missing for this one.
            #expect(try await put(client, server, ref.sha256, photo, as: "fieldworker-b").status == .created)
            #expect(
                try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .unprocessableContent)
            #expect(try await put(client, server, ref.sha256, photo).status == .created)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            // A file of the wrong size or type for its question is refused by validation.
            let wrong = photographed(server, seed: 63, AttachmentRef(sha256: ref.sha256, size: ref.size, mediaType: "audio/mpeg"))
            let invalid = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: wrong)
            #expect(
                invalid.status == .unprocessableContent && invalid.text.contains("a photo is JPEG, PNG, WEBP, not audio/mpeg"),
                "\(invalid.text)")
        }
    }

    @Test func badUploadsAreRefusedClearlyAndLeaveNothing() async throws {
        let server = try await TestServer.make()
        let photo = AttachmentFixture.png(size: 800, seed: 3)
        let sha = AttachmentFixture.digest(of: photo)
        try await server.application().test(.router) { client in
            let mismatch = try await put(client, server, String(repeating: "a", count: 64), photo)
            #expect(mismatch.status == .unprocessableContent && mismatch.errorCode == "digest_mismatch", "\(mismatch.text)")
            let left = try await client.send(.get, "/v1/uploads/\(String(repeating: "a", count: 64))", as: "fieldworker-a", in: server)
            #expect(left.json["received"] as? Int == 0, "a refused upload is dropped")
            let text = Data("just some text, not a file Intake takes".utf8)
            let unknown = try await put(client, server, AttachmentFixture.digest(of: text), text)
            #expect(unknown.status == .unprocessableContent && unknown.errorCode == "unknown_file_type")
            #expect(try await put(client, server, "not-a-digest", photo).status == .badRequest)
            let short = try await put(client, server, sha, photo, range: "bytes 0-10/800")
            #expect(short.status == .unprocessableContent && short.errorCode == "invalid_upload", "the range must cover the body")
            #expect(try await put(client, server, sha, photo, range: "rows 0-799/800").status == .unprocessableContent)
            #expect(try await put(client, server, sha, Data()).status == .unprocessableContent)
            let huge = try await put(client, server, sha, photo.prefix(10), range: "bytes 0-9/\(AttachmentKind.largest + 1)")
            #expect(huge.status == .contentTooLarge && huge.errorCode == "file_too_large")
            #expect(try await put(client, server, sha, photo, as: "researcher").status == .forbidden)
            #expect(try await put(client, server, sha, photo).status == .created)
        }
    }

    @Test func aResearcherNeverReceivesAnIdentifyingFileAndDeletionTakesTheFiles() async throws {
        let server = try await TestServer.make()
        let photo = AttachmentFixture.png(size: 600, seed: 5)
        let ref = AttachmentRef(sha256: AttachmentFixture.digest(of: photo), size: photo.count, mediaType: "image/png")
        let patient = UUID()
        _ = try await server.services.store.registerPatients([
            NewPatient(
                id: patient, teamId: 1, identification: PatientIdentification(givenName: "P", familyName: "Q"), createdBy: "x",
                createdAt: Date())
        ])
        _ = try await server.services.store.recordConsent(
            Consent(patientId: patient, scope: .allQualifiedResearchers, method: .written, recordedBy: "x", recordedAt: Date()))
        var linked = photographed(server, seed: 64, ref)
        linked.patientId = patient
        let record = linked
        let id = record.id.uuidString.lowercased()
        try await server.application().test(.router) { client in
            #expect(try await put(client, server, ref.sha256, photo).status == .created)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            // The patient shares with every researcher, but the photo of a document is identifying.
            let researcher = try await client.send(.get, "/v1/exports/attachments/\(id)/\(ref.sha256)", as: "researcher", in: server)
            #expect(researcher.status == .notFound)
            #expect(
                try await client.send(.get, "/v1/exports/attachments/\(id)/\(ref.sha256)", as: "coordinator-b", in: server).status
                    == .notFound)

            let deleted = try await client.send(
                .delete, "/v1/records/\(id)", as: "coordinator-a", in: server, body: Data(#"{"reason": "entered twice"}"#.utf8))
            #expect(deleted.status == .ok, "\(deleted.text)")
            #expect(
                server.services.records.attachments?.read(record: record.id, sha256: ref.sha256) == nil, "the file went with the record")
            let upload = try await client.send(.get, "/v1/uploads/\(ref.sha256)", as: "fieldworker-a", in: server)
            #expect(upload.json["received"] as? Int == 0, "and the team's upload of it")
            #expect(
                try await client.send(.get, "/v1/records/\(id)/attachments/\(ref.sha256)", as: "fieldworker-a", in: server).status == .gone)
        }
    }

    @Test func anUploadWhoseLastWriteWasNotFinishedIsFinishedWhenAsked() async throws {
        let server = try await TestServer.make()
        let photo = AttachmentFixture.png(size: 900, seed: 11)
        let sha = AttachmentFixture.digest(of: photo)
        // The server stopped between the last write and the rename: the whole file is the partial one.
        let team = try #require(try await server.services.accounts.team(named: "team-a")).id
        let folder = server.services.records.attachments!.folder.appendingPathComponent("uploads/\(team)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try photo.write(to: folder.appendingPathComponent(sha + ".partial"))
        try await server.application().test(.router) { client in
            let status = try await client.send(.get, "/v1/uploads/\(sha)", as: "fieldworker-a", in: server)
            #expect(status.json["state"] as? String == "complete" && status.json["size"] as? Int == 900, "\(status.text)")
        }
    }

    /// `intake export --database` with only the wide CSV: the repeat tables are written from the
    /// same rows (no whole record needed).
    @Test func aDatabaseExportOfTheWideCSVAloneWritesTheRepeatTables() async throws {
        let server = try await TestServer.make()
        let records = (70..<76).map { server.record(seed: UInt64($0)) }
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-wide-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await server.services.exports.writeFolder(
            questionnaireId: nil, since: nil, options: .init(), formats: [.wideCSV], to: folder)
        let table = try String(contentsOf: folder.appendingPathComponent("repeat_household_members.csv"), encoding: .utf8)
        let members = records.reduce(0) { total, record in
            guard case .instances(let list)? = record[server.questionnaire.question(id: "household_members")!.position] else {
                return total
            }
            return total + list.count
        }
        #expect(members > 0 && table.split(separator: "\r\n").count == members + 1, "\(members) members")
    }

    /// The rule itself: a coordinator's team; a researcher's consent; never an identifying file to a researcher.
    @Test func whoMayExportAFile() {
        let coordinator = ExportReach(teamId: 1, consent: nil)
        let researcher = ExportReach(teamId: nil, consent: ConsentFilter(scopes: [.allQualifiedResearchers], includeUnlinked: false))
        #expect(RecordAccessPolicy.exportsFile(coordinator, recordTeam: 1, linked: false, scope: nil, identifying: true))
        #expect(!RecordAccessPolicy.exportsFile(coordinator, recordTeam: 2, linked: false, scope: nil, identifying: false))
        #expect(
            RecordAccessPolicy.exportsFile(researcher, recordTeam: 2, linked: true, scope: .allQualifiedResearchers, identifying: false))
        #expect(
            !RecordAccessPolicy.exportsFile(researcher, recordTeam: 2, linked: true, scope: .allQualifiedResearchers, identifying: true))
        #expect(!RecordAccessPolicy.exportsFile(researcher, recordTeam: 2, linked: true, scope: .sponsorsAndPartners, identifying: false))
        #expect(!RecordAccessPolicy.exportsFile(researcher, recordTeam: 2, linked: true, scope: nil, identifying: false))
        #expect(!RecordAccessPolicy.exportsFile(researcher, recordTeam: 2, linked: false, scope: nil, identifying: false))
    }
}
