import Foundation
import IntakeCore

/// Builds questionnaires from text in memory.
enum TestQuestionnaires {
    static let manifest = "id: test\ntitle: Test form\nformat: 1\nlanguages: en\n"

    static func files(
        _ sections: [String: String], manifest: String? = TestQuestionnaires.manifest, lists: [String: String] = [:]
    ) -> QuestionnaireFiles {
        var files: [String: QuestionnaireFiles.File] = [:]
        if let manifest { files["manifest.txt"] = file("manifest.txt", manifest) }
        for (name, text) in sections { files[name] = file(name, text) }
        let listFiles = lists.mapValues { QuestionnaireFiles.File(path: "Data/list.txt", bytes: Array($0.utf8)) }
        return QuestionnaireFiles(directory: "q", files: files, lists: listFiles)
    }

    static func file(_ name: String, _ text: String) -> QuestionnaireFiles.File {
        QuestionnaireFiles.File(path: "q/\(name)", bytes: Array(text.utf8))
    }

    static func load(_ sections: [String: String], lists: [String: String] = [:]) throws -> Questionnaire {
        try QuestionnaireLoader.load(files(sections, lists: lists))
    }

    /// The diagnostics for files that must fail to load.
    static func problems(_ files: QuestionnaireFiles) -> [QuestionnaireDiagnostic] {
        do {
            _ = try QuestionnaireLoader.load(files)
            return []
        } catch {
            return error.diagnostics
        }
    }

    static func problems(_ sections: [String: String], lists: [String: String] = [:]) -> [QuestionnaireDiagnostic] {
        problems(files(sections, lists: lists))
    }

    /// The repository's bundled questionnaire.
    static func bundled() throws -> Questionnaire {
        try QuestionnaireLoader.load(directory: repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }
}
