import Foundation
import IntakeClient
import IntakeCore
import IntakeStore
import Testing

@testable import IntakeFieldwork

struct FlushRunTests {
    @Test func anEmptyQueueSaysSoAndSucceedsWithoutTouchingTheNetwork() async throws {
        let store = try LocalStore(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("intake-flush-\(UUID().uuidString)"))
        // Port 9 on loopback: nothing listens, and nothing must be asked.
        let client = IntakeClient(baseURL: URL(string: "http://127.0.0.1:9")!, token: "t", timeout: 1)
        let io = ScriptedIO()
        let emptied = try await FlushRun(flusher: QueueFlusher(store: store, client: client), io: io).run(progress: nil)
        #expect(emptied)
        #expect(io.output == ["The queue is empty; nothing to upload."])
    }

    @Test func aDeadServerLeavesEveryRecordQueuedAndSaysHowToRetry() async throws {
        let store = try LocalStore(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("intake-flush-\(UUID().uuidString)"))
        try store.enqueue(FieldworkSessionTests.record())
        let client = IntakeClient(baseURL: URL(string: "http://127.0.0.1:9")!, token: "t", timeout: 1)
        let io = ScriptedIO()
        let flusher = QueueFlusher(store: store, client: client, retry: .init(attempts: 1, baseDelay: 0.01, maxDelay: 0.01))
        let emptied = try await FlushRun(flusher: flusher, io: io).run(progress: nil)
        #expect(!emptied)
        #expect(
            io.output.first?.hasPrefix("Sending 1 record to 127.0.0.1: each try waits at most 1 s, 1 try at most") == true, "\(io.output)")
        #expect(io.output.contains { $0.hasSuffix("Still queued: 1.") }, "\(io.output)")
        #expect(io.errors.count == 1 && io.errors[0].contains("run 'intake flush' again later"))
        #expect(try store.pendingCount() == 1)
    }
}

extension FieldworkSessionTests {
    static func record() -> PatientResponse {
        PatientResponse(
            questionnaire: QuestionnaireReference(id: "q", version: "v1"),
            patient: PatientIdentification(givenName: "Amina", familyName: "Haddad"), collector: "c", deviceId: "d")
    }
}
