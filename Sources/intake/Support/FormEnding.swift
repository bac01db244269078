import ArgumentParser
import IntakeFieldwork

/// How a field worker's session ends the process: its problem on standard error, its status.
enum FormEnding {
    /// Runs `session`; a ``FieldworkError`` becomes the command's error message.
    static func run(_ session: () async throws -> FormRun.Ending) async throws {
        let ending: FormRun.Ending
        do {
            ending = try await session()
        } catch let error as FieldworkError {
            throw ValidationError(sentence: error.description)
        }
        if let problem = ending.problem { printError(problem) }
        if ending.exitStatus != 0 { throw ExitCode(ending.exitStatus) }
    }
}

extension ValidationError {
    /// A library's message ("there is no …; do …") as the command's error sentence.
    init(sentence description: String) {
        self.init(description.prefix(1).uppercased() + description.dropFirst() + (description.hasSuffix(".") ? "" : "."))
    }
}
