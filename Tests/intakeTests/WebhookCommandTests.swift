import Crypto
import Foundation
import Testing

/// `intake webhook` against a real server process, delivering to a real receiver on 127.0.0.1
/// (scripts/lib/webhook_receiver.py, which writes down what it gets).
@Suite(.serialized)
struct WebhookCommandTests {
    @Test func aFieldWorkersWebhookGetsEachNotificationSignedAndCanBeListedAndRemoved() throws {
        var intake = IntakeProcess()
        intake.environment["INTAKE_SERVER_WEBHOOK_PRIVATE"] = "allow"
        let lead = try intake.prepareServerWithCoordinator()
        _ = try intake.run(
            ["admin", "user", "create", "amina", "--role", "fieldworker", "--team", "clinic", "--password-stdin"], input: ["amina-password"]
        )
        let amina = try intake.run(["admin", "token", "create", "amina"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let deliveries = intake.dataDirectory.appendingPathComponent("deliveries.jsonl")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/lib/webhook_receiver.py")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", script.path, deliveries.path]
        let portPipe = Pipe()
        python.standardOutput = portPipe
        python.standardError = FileHandle.nullDevice
        python.standardInput = FileHandle.nullDevice
        try python.run()
        // SIGKILL: a test runner may ignore SIGTERM, and its children inherit that.
        defer { kill(python.processIdentifier, SIGKILL) }
        let hookPort = try #require(
            String(decoding: portPipe.fileHandleForReading.availableData, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty)

        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        func run(_ arguments: [String], as token: String) throws -> IntakeProcess.Result {
            try intake.run(arguments + ["--server", "http://127.0.0.1:\(port)", "--token", token])
        }

        let added = try run(["webhook", "add", "http://127.0.0.1:\(hookPort)/hook", "--types", "announcement"], as: amina)
        #expect(added.status == 0, "\(added.stderr)")
        let secret = try #require(added.stdout.components(separatedBy: "receiver): ").last?.split(separator: "\n").first.map(String.init))
        #expect(secret.hasPrefix("whsec_"), "\(added.stdout)")

        #expect(try run(["announce", "Clinic closed on Friday"], as: lead).status == 0)
        let deadline = Date().addingTimeInterval(10)
        var lines: [String] = []
        while Date() < deadline {
            lines = (try? String(contentsOf: deliveries, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
            if !lines.isEmpty { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(lines.count == 1, "no delivery within 10 seconds")
        let delivery = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        let body = try #require(delivery["body"])
        #expect(body.contains(#""type":"announcement""#) && body.contains(#""recipient":"amina""#) && !body.contains("Clinic"), "\(body)")
        // The receiver's check, as its documentation gives it.
        let signature = try #require(delivery["signature"])
        let seconds = try #require(signature.split(separator: ",").first?.dropFirst(2))
        let expected = HMAC<SHA256>.authenticationCode(for: Data("\(seconds).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
        #expect(signature == "t=\(seconds),v1=\(expected)")

        let listed = try run(["webhook", "list"], as: amina)
        #expect(
            listed.stdout.contains("active") && listed.stdout.contains("[announcement]") && listed.stdout.contains("amina"),
            "\(listed.stdout)")
        let id = try #require(listed.stdout.split(separator: "\n").dropFirst().first?.prefix(8)).description
        #expect(try run(["webhook", "remove", id], as: lead).status != 0, "another's webhook is not found")
        let removed = try run(["webhook", "remove", String(id.prefix(4))], as: amina)
        #expect(removed.status == 0 && removed.stdout == "Removed webhook \(id).\n", "\(removed.stderr)")
        #expect(try run(["webhook", "list"], as: amina).stdout.hasPrefix("No webhooks."))

        let refused = try run(["webhook", "add", "http://hooks.example.org/x"], as: amina)
        #expect(refused.status != 0 && refused.stderr.contains("must use https://"), "\(refused.stderr)")
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
