import ArgumentParser
import Foundation
import IntakeCore

/// `--questionnaire`: which questionnaire to use, by id or folder path.
struct QuestionnaireOptions: ParsableArguments {
    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "A questionnaire id under Questionnaires/, or a folder path (default: \(QuestionnaireCatalog.defaultId)).",
            valueName: "id-or-path"))
    var questionnaire: String?

    /// Loads the questionnaire, or prints every problem and exits with status 1.
    func load() throws -> Questionnaire {
        try QuestionnaireOptions.load(questionnaire)
    }

    static func load(_ reference: String?) throws -> Questionnaire {
        do {
            let folder = try QuestionnaireCatalog().folder(for: reference)
            return try QuestionnaireLoader.load(directory: folder)
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}

/// Writes to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
