import Foundation
import Testing

/// scripts/validate_export.py, which `scripts/test` names in INTAKE_EXPORT_VALIDATOR (with the
/// validators it installs in .venv): tools Intake did not write, run on an export folder.
enum ExportValidator {
    /// Records an issue unless the folder passes; `versions`, when given, is how many
    /// questionnaire versions its records must span.
    static func check(_ folder: URL, versions: Int? = nil) throws {
        guard let validator = ProcessInfo.processInfo.environment["INTAKE_EXPORT_VALIDATOR"], !validator.isEmpty else {
            Issue.record("INTAKE_EXPORT_VALIDATOR is not set: run the tests with scripts/test, which installs the validators in .venv")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let versionsArgument = versions.map { " --versions \($0)" } ?? ""
        process.arguments = ["-c", "\(validator) '\(folder.path)'\(versionsArgument) 2>&1"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "validate_export.py: \(text)")
        #expect(text.contains("validate_export: ok"))
    }
}
