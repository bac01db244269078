import Foundation
import IntakeCore
import Testing

@testable import IntakeStore

/// Questionnaire versions pulled from the server: kept as they came, the newest published one
/// offered for new records, and a copy that is not the version it claims refused.
struct PulledQuestionnaireTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-pulled-\(UUID().uuidString)")

    func pulled(title: String, state: String, publishedAt: String, version: String? = nil) throws -> PulledQuestionnaire {
        let files = ["manifest.txt": "id: q\ntitle: \(title)\n", "1-a.txt": "Age | id: age | integer 0..120\n"]
        let actual = try QuestionnaireLoader.load(
            QuestionnaireFiles(
                directory: "q",
                files: Dictionary(
                    uniqueKeysWithValues: files.map { ($0.key, QuestionnaireFiles.File(path: "q/\($0.key)", bytes: Array($0.value.utf8))) })
            )
        ).version
        return PulledQuestionnaire(
            id: "q", version: version ?? actual, title: title, state: state, files: files, lists: [:], publishedAt: publishedAt,
            pulledAt: Date(), server: "http://127.0.0.1:1")
    }

    @Test func theNewestPublishedVersionIsOfferedAndACopyThatIsNotItsVersionIsRefused() throws {
        let store = try LocalStore(
            directory: directory,
            configuration: EncryptionTests.fastConfiguration(passphrase: "a long passphrase", newStorePassphrase: "a long passphrase"))
        let one = try pulled(title: "One", state: "published", publishedAt: "2026-01-01T00:00:00Z")
        let two = try pulled(title: "Two", state: "published", publishedAt: "2026-02-01T00:00:00Z")
        try store.savePulled(one)
        try store.savePulled(two)
        #expect(try store.currentPulled(id: "q")?.version == two.version)
        try store.setPulledState(id: "q", version: two.version, state: "retired")
        #expect(try store.currentPulled(id: "q")?.version == one.version, "a retired version is not offered")
        #expect(try store.pulled(one.reference)?.load().title.base == "One")

        let forged = try pulled(title: "Three", state: "published", publishedAt: "2026-03-01T00:00:00Z", version: one.version + "0")
        #expect(throws: QuestionnaireLoadError.self) { try forged.load() }
    }
}
