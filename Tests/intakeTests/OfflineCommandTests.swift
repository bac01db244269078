import Foundation
import GRDB
import IntakeStore
import Testing

/// Issue 4's walkthrough with the built binary: three records finished offline wait encrypted;
/// the coordinator starts the server and flushes; all three arrive exactly once.
@Suite(.serialized)
struct OfflineCommandTests {
    let intake = IntakeProcess()

    @Test func recordsFinishedOfflineWaitEncryptedAndArriveOnceAfterAFlush() throws {
        for _ in 0..<3 {
            let fill = try intake.run(["fill"], input: Answers.all + [":finish"])
            #expect(fill.status == 0)
        }
        let list = try intake.run(["queue", "list"])
        #expect(list.stdout.contains("3 waiting, 0 set aside."))
        var onDisk = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: intake.dataDirectory.path) where name.hasPrefix("intake.sqlite") {
            onDisk += try Data(contentsOf: intake.dataDirectory.appendingPathComponent(name))
        }
        let text = String(decoding: onDisk, as: UTF8.self)
        for secret in ["Amina", "Haddad", "Metformin", "1990-05-01"] { #expect(!text.contains(secret), "'\(secret)' is readable on disk") }

        // The records' collector (INTAKE_COLLECTOR here) is test.worker, a field worker of the team, checked by the server.
        try intake.prepareClinic()
        let (server, port) = try intake.startServer(arguments: ["--publish", "refugee-health"])
        defer { server.terminate() }
        _ = try intake.run(
            ["login", "--server", "http://127.0.0.1:\(port)", "--username", "cora", "--password-stdin"], input: ["coordinator-1"])
        let flush = try intake.run(["flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        #expect(flush.stdout.contains("Uploaded: 3. Already on the server: 0. Set aside: 0. Still queued: 0."))
        let again = try intake.run(["flush"])
        #expect(again.stdout.contains("The queue is empty; nothing to upload."))
        let db = try DatabaseQueue(path: intake.dataDirectory.appendingPathComponent("server.sqlite").path)
        #expect(try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM record") } == 3)
        #expect(try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM recordRevision") } == 3)
    }

    /// `intake flush --watch` waits for a server that is down, pausing longer each time, and
    /// sends the queue once the server is back, then ends.
    @Test func aWatchingFlushWaitsForTheServerAndEndsWhenTheQueueIsEmpty() throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        var (server, port) = try intake.startServer()
        server.terminate()
        server.waitUntilExit()
        intake.environment["INTAKE_COLLECTOR"] = "cora"
        let online = ["--server", "http://127.0.0.1:\(port)", "--token", cora, "--timeout", "2"]
        for _ in 0..<2 { #expect(try intake.run(["fill"] + online, input: Answers.all + [":finish"]).stdout.contains("Saved offline")) }

        let watching = intake.process(["flush", "--watch", "--pause", "1", "--attempts", "1"] + online)
        let output = Pipe()
        let log = LogBuffer()
        watching.standardOutput = output
        watching.standardError = output
        output.fileHandleForReading.readabilityHandler = { log.append($0.availableData) }
        try watching.run()
        defer { if watching.isRunning { watching.terminate() } }
        // It says it waits, at least twice (1 s, then 2 s), while the server is down.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, log.text.components(separatedBy: "Trying again in").count < 3 { Thread.sleep(forTimeInterval: 0.1) }
        #expect(log.text.contains("Trying again in 1 s") && log.text.contains("Trying again in 2 s"), "\(log.text)")
        server = try intake.startServer(port: port).process
        defer { server.terminate() }
        #expect(IntakeProcess.waitForExit(watching, seconds: 60), "\(log.text)")
        #expect(watching.terminationStatus == 0, "\(log.text)")
        #expect(log.text.contains("Uploaded: 2."), "\(log.text)")
        #expect(try intake.run(["status"]).stdout.contains("Nothing waits to be sent."))
    }
}
