import Foundation

/// Finds questionnaire folders: the bundled one by default, others by id or path.
///
/// The root folder is `INTAKE_QUESTIONNAIRES` when set; otherwise the first `Questionnaires/`
/// folder found in the current directory or above it, or beside the running executable or above
/// it (so `swift run intake` and `.build/debug/intake` find the repository's folder).
public struct QuestionnaireCatalog: Sendable {
    public static let defaultId = "refugee-health"

    public var root: URL?

    public init(root: URL?) {
        self.root = root
    }

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        executable: URL = URL(fileURLWithPath: CommandLine.arguments.first ?? ".")
    ) {
        if let explicit = environment["INTAKE_QUESTIONNAIRES"], !explicit.isEmpty {
            root = URL(fileURLWithPath: explicit)
            return
        }
        let executableFolder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        root = Self.searchUpward(from: currentDirectory) ?? Self.searchUpward(from: executableFolder)
    }

    private static func searchUpward(from start: URL) -> URL? {
        var folder = start.standardizedFileURL
        for _ in 0..<8 {
            let candidate = folder.appendingPathComponent("Questionnaires")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return candidate
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }

    /// The folder for `reference`: a path to a folder, or the id of one under the root.
    public func folder(for reference: String?) throws(QuestionnaireLoadError) -> URL {
        let name = reference ?? Self.defaultId
        let direct = URL(fileURLWithPath: name)
        if name.contains("/") || FileManager.default.fileExists(atPath: direct.appendingPathComponent(Manifest.fileName).path) {
            return direct
        }
        guard let root else {
            throw QuestionnaireLoadError([
                QuestionnaireDiagnostic(
                    path: name, message: "cannot find a Questionnaires/ folder",
                    hint: "run intake inside the Intake folder, set INTAKE_QUESTIONNAIRES, or pass --questionnaire PATH")
            ])
        }
        return root.appendingPathComponent(name)
    }

    /// The questionnaire folders under the root, by name.
    public func folders() -> [URL] {
        guard let root, let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return [] }
        return names.sorted().map { root.appendingPathComponent($0) }.filter {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent(Manifest.fileName).path)
        }
    }
}
