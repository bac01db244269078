import Foundation
import Testing

@testable import IntakeCore

/// Random and mutated input must give a questionnaire or diagnostics: never a crash or a hang.
struct QuestionnaireFuzzTests {
    private static let alphabet: [UInt8] =
        Array("|:=,;.()\"\\#@ \n\r\t-*0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        + [0x00, 0xFF, 0xC3, 0xA9, 0xE2, 0x80, 0xEF, 0xBB, 0xBF, 0xD8, 0xB9]

    @Test(arguments: 0..<8)
    func randomBytesNeverCrashTheParser(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<250 {
            let length = Int.random(in: 0..<400, using: &random)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &random) ? Self.alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            var files = TestQuestionnaires.files([:])
            files.files["1-fuzz.txt"] = QuestionnaireFiles.File(path: "q/1-fuzz.txt", bytes: bytes)
            check(files)
        }
    }

    @Test(arguments: 0..<4)
    func mutatedBundledFilesNeverCrashTheParser(seed: UInt64) throws {
        let root = TestQuestionnaires.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")
        let original = try QuestionnaireFiles(directory: root)
        var random = SeededGenerator(seed: seed)
        let names = original.files.keys.sorted()
        for _ in 0..<60 {
            var files = original
            let name = names.randomElement(using: &random)!
            var bytes = files.files[name]!.bytes
            for _ in 0..<Int.random(in: 1...12, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = Self.alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(Self.alphabet.randomElement(using: &random)!, at: index)
                }
            }
            files.files[name]!.bytes = bytes
            check(files)
        }
    }

    private func check(_ files: QuestionnaireFiles) {
        do {
            let questionnaire = try QuestionnaireLoader.load(files)
            #expect(!questionnaire.sections.isEmpty)
        } catch {
            #expect(!error.diagnostics.isEmpty)
            for diagnostic in error.diagnostics {
                #expect(!diagnostic.message.isEmpty)
            }
        }
    }
}
