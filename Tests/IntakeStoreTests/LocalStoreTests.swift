import Foundation
import IntakeCore
import Testing

@testable import IntakeStore

struct LocalStoreTests {
    let directory: URL
    let store: LocalStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-store-\(UUID().uuidString)")
        store = try LocalStore(directory: directory)
    }

    static func record(given: String = "Amina", answers: [Int: [Int: Answer]] = [:]) -> PatientResponse {
        PatientResponse(
            questionnaire: QuestionnaireReference(id: "q", version: "v1"),
            patient: PatientIdentification(givenName: given, familyName: "Haddad"), answers: answers, collector: "c", deviceId: "d")
    }

    private func draft(given: String = "Amina", answers: [Int: [Int: Answer]] = [:]) -> Draft {
        Draft(
            response: PatientResponse(
                questionnaire: QuestionnaireReference(id: "q", version: "v1"),
                patient: PatientIdentification(givenName: given, familyName: "Haddad"),
                answers: answers, collector: "c", deviceId: "d"),
            cursor: QuestionPosition(section: 2, index: 3))
    }

    /// Two commands started at once on a machine's first use (a fill, and a list in another
    /// terminal) both open the new store: the one that did not make it finds it made, rather than
    /// failing on a table the other created or the log's mode the other was setting.
    @Test func twoOpensOfANewStoreAtOnceBothSucceed() async throws {
        for _ in 0..<20 {
            let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("intake-store-race-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: fresh) }
            let opened = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<3 {
                    group.addTask { (try? LocalStore(directory: fresh).summaries()) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(opened == [true, true, true])
        }
    }

    /// A saved answer survives a power cut: the connection syncs each commit (`synchronous =
    /// FULL`; GRDB's own WAL set-up would turn it down to NORMAL).
    @Test func theWriterSyncsEveryCommit() throws {
        let level = try store.database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(level == 2, "synchronous is \(String(describing: level)), not FULL (2)")
    }

    /// The store keeps the write-ahead log (readers in other processes do not wait for a
    /// writer), and opening it writes nothing: no commit before a command's first question
    /// (GRDB's pool made a table and dropped it at every open the log was not on disk).
    @Test func theStoreIsInWALModeAndOpeningItWritesNothing() throws {
        let folder = directory.appendingPathComponent("reopened")
        do { try LocalStore(directory: folder).save(draft()) }  // closed here: SQLite removes its log
        let log = folder.appendingPathComponent(LocalStore.fileName + "-wal").path
        func logSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: log))?[.size] as? Int) ?? 0 }
        #expect(logSize() == 0)
        let reopened = try LocalStore(directory: folder)
        #expect(logSize() == 0, "opening the store wrote \(logSize()) bytes to its log")
        #expect(try reopened.database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        #expect(try reopened.database.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
        #expect(try reopened.summaries().count == 1)
    }

    @Test func savedDraftsSurviveReopeningTheStore() throws {
        let saved = draft(answers: [1: [1: .text("a")]])
        try store.save(saved)
        let reopened = try LocalStore(directory: directory)
        #expect(try reopened.draft(id: saved.response.id) == saved)
    }

    @Test func savingAgainReplacesTheDraft() throws {
        var saved = draft()
        try store.save(saved)
        saved.response[QuestionPosition(section: 1, index: 2)] = .yesNo(true)
        saved.cursor = QuestionPosition(section: 1, index: 3)
        try store.save(saved)
        #expect(try store.draft(id: saved.response.id) == saved)
        #expect(try store.summaries().count == 1)
    }

    @Test func summariesShowInitialsAndProgressButNoNames() throws {
        let saved = draft(answers: [1: [1: .text("a"), 2: .text("b")]])
        try store.save(saved)
        var complete = draft(given: "Omar")
        complete.response.status = .complete
        try store.enqueue(complete.response)
        let drafts = try store.summaries()
        #expect(drafts.count == 1)
        #expect(drafts[0].initials == "A. H.")
        #expect(drafts[0].answerCount == 2)
        #expect(drafts[0].cursor == QuestionPosition(section: 2, index: 3))
        #expect(try store.queueEntries().count == 1)
    }

    @Test func findsRecordsByIdPrefix() throws {
        let saved = draft()
        try store.save(saved)
        let prefix = String(saved.response.id.uuidString.lowercased().prefix(8))
        #expect(try store.draft(idPrefix: prefix.uppercased()) == saved)
        #expect(throws: LocalStoreError.self) { try store.draft(idPrefix: "ab") }
        #expect(throws: LocalStoreError.self) { try store.draft(idPrefix: "00000000") }
    }

    @Test func discardDeletesForGood() throws {
        let saved = draft()
        try store.save(saved)
        #expect(try store.discard(id: saved.response.id))
        #expect(try store.draft(id: saved.response.id) == nil)
        #expect(try !store.discard(id: saved.response.id))
    }

    @Test func deviceIdIsMadeOnceAndKept() throws {
        let id = try store.deviceId()
        #expect(try LocalStore(directory: directory).deviceId() == id)
    }

    @Test func dataDirectoryIsPrivateToItsOwner() throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        let file = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(LocalStore.fileName).path)
        #expect((file[.posixPermissions] as? Int) == 0o600)
    }

    @Test func aFileThatIsNotADatabaseGivesAClearError() throws {
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("intake-broken-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("this is not sqlite".utf8).write(to: broken.appendingPathComponent(LocalStore.fileName))
        #expect {
            _ = try LocalStore(directory: broken)
        } throws: { error in
            (error as? LocalStoreError)?.message.hasPrefix("cannot open the local store") == true
        }
    }

    @Test func defaultDirectoryFollowsTheEnvironment() {
        #expect(LocalStore.defaultDirectory(environment: ["INTAKE_DATA_DIR": "/x/y"]).path == "/x/y")
        #expect(LocalStore.defaultDirectory(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]).path == "/d/intake")
        #expect(LocalStore.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.local/share/intake")
    }
}
