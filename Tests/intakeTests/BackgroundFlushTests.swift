import Foundation
import Testing

/// `intake fill --send-in-background` with the server down: the record is queued, a detached
/// `intake flush --watch` keeps trying (one per machine), and once the server is back the queue
/// empties by itself; `intake status` says when records last reached the server and why the last
/// try failed.
struct BackgroundFlushTests {
    @Test func aRecordQueuedOfflineIsSentByItselfWhenTheServerComesBack() throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        intake.environment["INTAKE_COLLECTOR"] = "cora"
        // A port the server will take once it comes back.
        let (probe, port) = try intake.startServer()
        probe.terminate()
        probe.waitUntilExit()
        let online = ["--server", "http://127.0.0.1:\(port)", "--token", cora, "--timeout", "2"]

        let filled = try intake.run(["fill", "--send-in-background"] + online, input: Answers.all + [":finish"])
        #expect(filled.status == 0 && filled.stdout.contains("Saved offline"), "\(filled.stdout)\(filled.stderr)")
        #expect(filled.stdout.contains("Sending in the background until the queue is empty"), "\(filled.stdout)")
        let status = try intake.run(["status"])
        #expect(status.stdout.contains("1 record waits") || status.stdout.contains("1 record"), "\(status.stdout)")
        #expect(status.stdout.contains("Last try,") && !status.stdout.contains("Last sent"), "\(status.stdout)")
        // One watcher per machine.
        let second = try intake.run(["flush", "--watch"] + online)
        #expect(
            second.status == 0 && second.stdout.contains("Another 'intake flush --watch' is already sending"),
            "\(second.stdout)\(second.stderr)")

        let server = try intake.startServer(port: port).process
        defer { server.terminate() }
        // The watcher's pauses grow from 5 s: it tries again within about 20 s, and its log says
        // when the record was sent.
        let logFile = intake.dataDirectory.appendingPathComponent("flush-watch.log")
        let deadline = Date().addingTimeInterval(120)
        var log = ""
        while Date() < deadline, !log.contains("Uploaded: 1") {
            Thread.sleep(forTimeInterval: 0.05)
            log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        }
        #expect(log.contains("Uploaded: 1"), "\(log)")
        let now = try intake.run(["status"])
        #expect(now.stdout.contains("Nothing waits to be sent.") && now.stdout.contains("Last sent to the server:"), "\(now.stdout)")
        // Its work done, it ends and lets go of its lock: another can start.
        #expect(Self.lockIsFree(in: intake.dataDirectory), "the watcher ended")
        #expect(!(try intake.run(["flush", "--watch"] + online).stdout.contains("Another")))
    }

    /// Whether the watcher's lock can be had (it is let go when the watcher ends), looked at until
    /// it can, for at most a minute; the test's own hold is let go at once.
    static func lockIsFree(in directory: URL) -> Bool {
        let descriptor = open(directory.appendingPathComponent("flush-watch.lock").path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                flock(descriptor, LOCK_UN)
                return true
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }
}
