import Foundation
import IntakeCore
import IntakeDeployment
import IntakeServer
import Logging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 16's must-hold, with real processes: two field workers of one team edit the same
/// record, one of them offline from the copy `intake sync` keeps; every conflict policy gives
/// its documented result and nothing is lost; a record deleted on the server leaves the copy.
@Suite(.serialized)
struct SyncEndToEndTests {
    let server = IntakeProcess()
    let amina = IntakeProcess()
    let bilal = IntakeProcess()

    private func record(_ port: Int, _ id: String, token: String) async throws -> (revision: Int, patient: [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records/\(id)")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let patient = (json["record"] as? [String: Any])?["patient"] as? [String: Any] ?? [:]
        return (json["revision"] as? Int ?? 0, patient)
    }

    private func externalIds(_ port: Int, _ id: String, token: String) async throws -> [String] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records/\(id)/revisions")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        let revisions = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["revisions"] as? [[String: Any]] ?? []
        return revisions.map { (($0["record"] as? [String: Any])?["patient"] as? [String: Any])?["externalId"] as? String ?? "" }
    }

    /// Runs blocking work (a command and its wait) on a thread of its own, off the concurrency pool.
    private static func detached<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// Edits the patient section of the one Haddad match: given name (nil: keep) and external id.
    private func edit(given: String?, externalId: String) -> [String] {
        ["1", ":go patient", given ?? "", "", "", "", externalId, ":finish"] + ["", "", "", ""]
    }

    @Test func twoFieldWorkersEditOneRecordAndEachPolicyGivesItsResultWithNothingLost() async throws {
        _ = try server.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        _ = try server.run(["admin", "team", "create", "clinic"])
        _ = try server.run(["admin", "team", "create", "ward"])
        for (name, role, team) in [
            ("amina", "fieldworker", "clinic"), ("bilal", "fieldworker", "clinic"), ("cora", "coordinator", "clinic"),
            ("wanda", "fieldworker", "ward"),
        ] {
            _ = try server.run(
                ["admin", "user", "create", name, "--role", role, "--team", team, "--password-stdin"], input: ["password-\(name)"])
        }
        let cora = try server.run(["admin", "token", "create", "cora"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let wanda = try server.run(["admin", "token", "create", "wanda"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var (serving, port) = try server.startServer(arguments: ["--publish", "refugee-health"])
        defer { serving.terminate() }
        let url = "http://127.0.0.1:\(port)"
        for (worker, name) in [(amina, "amina"), (bilal, "bilal")] {
            let login = try worker.run(["login", "--server", url, "--username", name, "--password-stdin"], input: ["password-\(name)"])
            #expect(login.status == 0, "\(login.stderr)")
        }
        func stopServer() {
            serving.terminate()
            serving.waitUntilExit()
        }
        func startServer() throws { serving = try server.startServer(port: port).process }

        // Amina records a patient; Bilal's machine gets a sealed copy of the team's records.
        #expect(try amina.run(["fill"], input: Answers.all + [":finish"]).stdout.contains("Sent to the server."))
        let id = try #require(try server.serverRevisionsById().keys.first)
        let synced = try bilal.run(["sync"])
        #expect(
            synced.status == 0 && synced.stdout.contains("1 record(s) saved") && synced.stdout.contains("holds 1 record(s)"),
            "\(synced.stdout)\(synced.stderr)")

        // 1. merge (the default): each changed another field; both changes are kept.
        stopServer()
        let offline = try bilal.run(["lookup", "--offline", "--family-name", "HADDAD"], input: edit(given: nil, externalId: "BILAL-1"))
        #expect(
            offline.stdout.contains("Offline: searching drafts, the queue and the synced copy of team 'clinic' (1 records"),
            "\(offline.stdout)")
        #expect(offline.stdout.contains("synced") && offline.stdout.contains("Saved offline"), "\(offline.stdout)\(offline.stderr)")
        try startServer()
        let online = try amina.run(["lookup", "--family-name", "HADDAD"], input: edit(given: "Amira", externalId: ""))
        #expect(online.stdout.contains("Saved on the server as revision 2."), "\(online.stdout)\(online.stderr)")
        let merged = try bilal.run(["flush"])
        #expect(
            merged.status == 0 && merged.stdout.contains("changed on the server meanwhile: merged with revision 2"),
            "\(merged.stdout)\(merged.stderr)")
        var now = try await record(port, id, token: cora)
        #expect(
            now.revision == 3 && now.patient["givenName"] as? String == "Amira" && now.patient["externalId"] as? String == "BILAL-1",
            "\(now)")

        // 2. Both change the external id. merge sets Bilal's edit aside; keep-server keeps it aside
        // and the server's value; ask, choosing his, saves it.
        #expect(try bilal.run(["sync"]).status == 0)
        stopServer()
        _ = try bilal.run(["lookup", "--offline", "--family-name", "HADDAD"], input: edit(given: nil, externalId: "BILAL-2"))
        try startServer()
        #expect(
            try amina.run(["lookup", "--family-name", "HADDAD"], input: edit(given: nil, externalId: "AMINA-2")).stdout.contains(
                "revision 4"))
        let conflict = try bilal.run(["flush", "--on-conflict", "merge"])
        #expect(
            conflict.status != 0 && conflict.stdout.contains("both you and the server (revision 4) changed external id"),
            "\(conflict.stdout)")
        #expect(try await record(port, id, token: cora).revision == 4, "nothing sent")
        _ = try bilal.run(["queue", "retry"])
        let keptServer = try bilal.run(["flush", "--on-conflict", "keep-server"])
        #expect(keptServer.status != 0 && keptServer.stdout.contains("the server's revision 4 was kept"), "\(keptServer.stdout)")
        #expect(try bilal.run(["queue", "list"]).stdout.contains("set aside"), "the edit is still here")
        _ = try bilal.run(["queue", "retry"])
        let asked = try bilal.run(["flush", "--on-conflict", "ask"], input: ["1"])
        #expect(
            asked.status == 0 && asked.stdout.contains("1) yours:  BILAL-2") && asked.stdout.contains("2) server: AMINA-2"),
            "\(asked.stdout)")
        now = try await record(port, id, token: cora)
        #expect(now.revision == 5 && now.patient["externalId"] as? String == "BILAL-2")

        // 3. keep-mine: Bilal's record as he saved it, over Amina's; hers stays in the history.
        #expect(try bilal.run(["sync"]).status == 0)
        stopServer()
        _ = try bilal.run(["lookup", "--offline", "--family-name", "HADDAD"], input: edit(given: nil, externalId: "BILAL-3"))
        try startServer()
        #expect(
            try amina.run(["lookup", "--family-name", "HADDAD"], input: edit(given: "Amal", externalId: "AMINA-3")).stdout.contains(
                "revision 6"))
        #expect(try bilal.run(["flush", "--on-conflict", "keep-mine"]).status == 0)
        now = try await record(port, id, token: cora)
        #expect(now.revision == 7 && now.patient["externalId"] as? String == "BILAL-3" && now.patient["givenName"] as? String == "Amira")
        let history = try await externalIds(port, id, token: cora)
        #expect(history.contains("AMINA-2") && history.contains("AMINA-3") && history.contains("BILAL-1"), "nothing is lost: \(history)")
        #expect(
            try bilal.run(["queue", "list"]).stdout.contains("0 waiting, 0 set aside")
                || bilal.run(["queue", "list"]).stdout.contains("empty"))

        // A grant to another team's field worker for a day works until its time, and not after:
        // the same database is served by this test's own server with its clock moved (a seam in
        // code: no variable of a field machine moves a server's clock).
        let granted = try bilal.run(["grant", id, "--to-user", "wanda", "--days", "1", "--token", cora])
        #expect(granted.status == 0 && granted.stdout.contains("Granted read access"), "\(granted.stdout)\(granted.stderr)")
        #expect(try bilal.run(["history", id, "--token", wanda]).status == 0, "now")
        stopServer()
        for (offset, reaches) in [(86_400 - 120, true), (86_400 + 60, false)] {
            var configuration = ServerConfiguration(
                database: server.serverDatabase ?? server.dataDirectory.appendingPathComponent("server.sqlite").path)
            configuration.clock = { Date().addingTimeInterval(TimeInterval(offset)) }
            let services = try await IntakeServices.open(configuration)
            var logger = Logger(label: "intake.sync-test")
            logger.logLevel = .critical
            let bilal = self.bilal
            // On a thread of its own: the other tests of this process block the shared pool's
            // threads waiting for their commands, and the server must answer meanwhile.
            let read = try await withTaskExecutorPreference(ServerThread.shared) {
                try await IntakeServerApp.serving(services, port: port, logger: logger) { _ in
                    try await Self.detached { try bilal.run(["history", id, "--token", wanda]) }
                }
            }
            #expect((read.status == 0) == reaches, "\(offset) s later: \(read.stderr)")
            if !reaches { #expect(read.stderr.contains("not found"), "after the expiry, as if it never was: \(read.stderr)") }
        }
        try startServer()

        // 4. Deleted on the server: the next sync drops it from Bilal's copy.
        let deleted = try bilal.run(["delete", id, "--reason", "entered twice", "--token", cora])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let after = try bilal.run(["sync"])
        #expect(after.stdout.contains("1 removed") && after.stdout.contains("holds 0 record(s)"), "\(after.stdout)\(after.stderr)")
        stopServer()
        let gone = try bilal.run(["lookup", "--offline", "--family-name", "HADDAD"], input: ["", "", "", ""])
        #expect(gone.stdout.contains("No patient matches."), "\(gone.stdout)")
    }
}

/// A thread that runs the jobs of the tasks that prefer it: a server in this test process answers
/// even while every thread of the shared pool is blocked waiting for a command to end.
final class ServerThread: TaskExecutor, @unchecked Sendable {
    static let shared = ServerThread()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        Thread { [unowned self] in self.run() }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
