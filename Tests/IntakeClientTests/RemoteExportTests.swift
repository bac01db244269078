import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService
import Logging
import Testing

@testable import IntakeClient

struct RemoteExportTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-remote-export-\(UUID().uuidString)")

    @Test func exportsOverHTTPIntoAFolderThenOnlyWhatIsNew() async throws {
        let server = try await ClientTestServer.make()
        let team = try #require(try await server.services.store.team(named: "clinic"))
        let records = (1...30).map { server.record(seed: UInt64($0)) }
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: team.id, username: "cora"))
        let (first, second) = try await server.serving { [folder] port in
            let client = server.client(port: port)
            let first = try await RemoteExport(
                server: TestExportServer(client: client), questionnaireId: nil, since: nil, options: ExportOptions()
            )
            .write(to: folder.appendingPathComponent("one"))
            let second = try await RemoteExport(
                server: TestExportServer(client: client), questionnaireId: nil, since: first.cursor, options: ExportOptions()
            )
            .write(to: folder.appendingPathComponent("two"))
            return (first, second)
        }
        #expect(first.records == 30 && first.versions == [server.questionnaire.version] && first.cursor != nil)
        #expect(second.records == 0 && second.cursor == first.cursor)
        let csv = try String(contentsOf: folder.appendingPathComponent("one/records.csv"), encoding: .utf8)
        #expect(csv.components(separatedBy: "\r\n").count == 32)
        for record in records { #expect(!csv.contains(record.patient.familyName + ",")) }
        let header = try String(contentsOf: folder.appendingPathComponent("two/records.csv"), encoding: .utf8)
        #expect(header.components(separatedBy: "\r\n").count == 2, "a header and nothing else")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["one", "two"], "no download left behind")
    }

    @Test func aCutConnectionIsAnErrorAndLeavesNothing() async throws {
        // A server that announces five records and sends two, as a connection cut mid-export would.
        let router = Router()
        router.get("/v1/exports") { _, _ -> Response in
            let line = String(decoding: try ClientTestServer.sampleLine(), as: UTF8.self)
            return Response(
                status: .ok,
                headers: [
                    .contentType: "application/x-ndjson", HTTPField.Name("Intake-Export-Records")!: "5",
                    HTTPField.Name("Intake-Export-Cursor")!: "9", HTTPField.Name("Intake-Export-Versions")!: "7d0030df006a21e0",
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(string: line + "\n" + line + "\n")))
        }
        let port = ClientTestServer.closedPort()
        var logger = Logger(label: "intake.fake")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        try await IntakeServerApp.running(app, logger: logger) {
            let client = IntakeClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: "t", timeout: 5)
            var failure: (any Error)?
            for _ in 0..<100 {
                do {
                    _ = try await RemoteExport(
                        server: TestExportServer(client: client), questionnaireId: nil, since: nil, options: ExportOptions()
                    )
                    .write(to: folder.appendingPathComponent("cut"))
                    failure = nil
                    break
                } catch let error as ClientError where error.isTransient {
                    try await Task.sleep(nanoseconds: 50_000_000)  // not listening yet
                } catch {
                    failure = error
                    break
                }
            }
            #expect("\(failure.map { "\($0)" } ?? "no error")".contains("announced 5 records but 2 arrived"))
            #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] == [], "no folder, no download left")
        }
    }

    @Test func anUnreachableServerIsAClearError() async throws {
        let client = IntakeClient(baseURL: URL(string: "http://127.0.0.1:\(ClientTestServer.closedPort())")!, token: "t", timeout: 2)
        await #expect {
            _ = try await RemoteExport(server: TestExportServer(client: client), questionnaireId: nil, since: nil, options: ExportOptions())
                .write(to: folder)
        } throws: { error in
            guard let error = error as? ClientError, case .offline(let message) = error else { return false }
            return message.contains("127.0.0.1")
        }
    }
}

extension ClientTestServer {
    /// One valid record of the bundled questionnaire as a JSON line.
    static func sampleLine() throws -> Data {
        let questionnaire = try QuestionnaireLoader.load(directory: repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 1)
        return try generator.next().jsonData()
    }
}

/// The client as the server a remote export reads from (the command layer has the same joint).
struct TestExportServer: ExportServer {
    let client: IntakeClient

    func downloadExport(query: [String: String], into file: URL, idleTimeout: TimeInterval) async throws -> ExportDownload {
        let response = try await client.downloadExport(query: query, to: file, idleTimeout: idleTimeout)
        return ExportDownload(
            file: response.file, cursor: response.cursor, records: response.records, versions: response.versions,
            questionnaireId: response.questionnaireId)
    }

    func questionnaire(_ reference: QuestionnaireReference) async throws -> Questionnaire {
        try await client.questionnaire(reference)
    }
}
