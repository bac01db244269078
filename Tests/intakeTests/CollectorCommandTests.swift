import Foundation
import GRDB
import Testing

/// The collector is the signed-in account that filled a record, and the server checks it: a
/// coordinator who uploads a field worker's queue does not take the records away from them.
@Suite(.serialized)
struct CollectorCommandTests {
    let intake = IntakeProcess()

    @Test func aCoordinatorFlushesAFieldWorkersExportedQueueAndTheRecordsStayTheFieldWorkers() throws {
        let cora = try intake.prepareServerWithCoordinator()
        for name in ["fatima", "farid"] {
            _ = try intake.run(
                ["admin", "user", "create", name, "--role", "fieldworker", "--team", "clinic", "--password-stdin"], input: ["fieldworker-1"]
            )
        }
        #expect(try intake.run(["admin", "collector-only", "refugee-health", "on"]).status == 0)
        let fatimaToken = try intake.run(["admin", "token", "create", "fatima"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let faridToken = try intake.run(["admin", "token", "create", "farid"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // Fatima signs in on her laptop, then fills a record with the server out of reach.
        let field = IntakeProcess()
        var (server, port) = try intake.startServer()
        let signedIn = try field.run(
            ["login", "--server", "http://127.0.0.1:\(port)", "--username", "fatima", "--password-stdin"], input: ["fieldworker-1"])
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        server.terminate()
        server.waitUntilExit()
        let filled = try field.run(["fill"], input: Answers.all + [":finish"])
        #expect(filled.stdout.contains("Saved offline"), "\(filled.stdout)\(filled.stderr)")
        let backup = field.dataDirectory.appendingPathComponent("queue.backup").path
        #expect(try field.run(["queue", "export", backup, "--passphrase-stdin"], input: ["carried-on-usb"]).status == 0)

        // The coordinator carries it to the office and flushes it with her own token.
        (server, port) = try intake.startServer()
        defer { server.terminate() }
        let url = "http://127.0.0.1:\(port)"
        let office = IntakeProcess()
        #expect(try office.run(["queue", "import", backup, "--passphrase-stdin"], input: ["carried-on-usb"]).status == 0)
        let flushed = try office.run(["flush", "--server", url, "--token", cora])
        #expect(flushed.status == 0, "\(flushed.stdout)\(flushed.stderr)")
        let ids = Array(try intake.serverRevisionsById().keys)
        #expect(ids.count == 1)
        let id = try #require(ids.first)
        let stored = try Self.collectorAndUploader(of: id, in: intake)
        #expect(stored.collector == "fatima" && stored.receivedBy == "cora", "\(stored)")

        // On a collector-only questionnaire the record is still Fatima's, not Farid's.
        let hers = try intake.run(["history", id, "--server", url, "--token", fatimaToken])
        #expect(hers.status == 0, "\(hers.stderr)")
        let his = try intake.run(["history", id, "--server", url, "--token", faridToken])
        #expect(his.status != 0 && his.stderr.contains("not found"), "\(his.stdout)\(his.stderr)")

        // A record claiming a collector outside the team is refused, said why, and kept.
        let outsider = try office.run(
            ["fill", "--server", url, "--token", cora, "--collector", "someone-else"], input: Answers.all + [":finish"])
        let said = outsider.stdout + outsider.stderr
        #expect(said.contains("not a member of this team"), "\(said)")
        #expect(try intake.serverRevisionsById().count == 1, "nothing stored")
        // And the audit trail names the collector apart from who uploaded.
        let audit = try intake.run(["admin", "audit", "list", "--action", "record.create"])
        #expect(audit.stdout.contains("collector=fatima") && audit.stdout.contains("cora"), "\(audit.stdout)")
    }

    static func collectorAndUploader(of id: String, in intake: IntakeProcess) throws -> (collector: String, receivedBy: String) {
        let queue = try DatabaseQueue(path: intake.dataDirectory.appendingPathComponent("server.sqlite").path)
        return try queue.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT collector, receivedBy FROM record WHERE id = ?", arguments: [id]))
            return (row["collector"], row["receivedBy"])
        }
    }
}
