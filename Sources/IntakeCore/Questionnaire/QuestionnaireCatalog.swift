import Foundation

/// Finds questionnaire folders: the bundled one by default, others by id or path.
///
/// It is handed where to look (``init(searchPath:)``): the first folder of the search path that
/// exists is the root that ids are found under. The command line builds that path from
/// `INTAKE_QUESTIONNAIRES`, the current directory and the executable's folder.
public struct QuestionnaireCatalog: Sendable {
    public static let defaultId = "refugee-health"

    public var root: URL?

    public init(root: URL?) {
        self.root = root
    }

    /// The first folder of `searchPath` that exists becomes the root.
    public init(searchPath: [URL]) {
        root = searchPath.first { candidate in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// `Questionnaires/` in `folder` and in each folder above it (at most eight levels), nearest
    /// first: a search path that finds the repository's folder from anywhere inside it.
    public static func upward(from folder: URL) -> [URL] {
        var candidates: [URL] = []
        var folder = folder.standardizedFileURL
        for _ in 0..<8 {
            candidates.append(folder.appendingPathComponent("Questionnaires"))
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return candidates
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
