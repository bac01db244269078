import Foundation

/// The raw files a questionnaire is loaded from: its folder's files and the shared choice lists
/// it may refer to. Tests build one in memory; ``init(directory:)`` reads one from disk.
public struct QuestionnaireFiles: Sendable {
    /// A file's path for messages and its bytes.
    public struct File: Sendable {
        public var path: String
        public var bytes: [UInt8]

        public init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }
    }

    /// The questionnaire folder as shown in messages.
    public var directory: String
    /// The `.txt` files of the questionnaire folder, by file name.
    public var files: [String: File]
    /// Shared choice-list files (`countries.txt`, `countries.ar.txt`), by file name.
    public var lists: [String: File]

    public init(directory: String, files: [String: File], lists: [String: File] = [:]) {
        self.directory = directory
        self.files = files
        self.lists = lists
    }

    /// A questionnaire held as texts by file name (as the server publishes it and machines pull
    /// it), with the shared lists it uses.
    public init(directory: String, texts: [String: String], lists: [String: String]) {
        func file(_ entry: (key: String, value: String)) -> (String, File) {
            (entry.key, File(path: "\(directory)/\(entry.key)", bytes: Array(entry.value.utf8)))
        }
        self.init(
            directory: directory, files: Dictionary(uniqueKeysWithValues: texts.map(file)),
            lists: Dictionary(uniqueKeysWithValues: lists.map(file)))
    }

    /// The files as texts by file name, and the lists the questionnaire uses: what is published.
    public func texts(usedBy questionnaire: Questionnaire) -> (files: [String: String], lists: [String: String]) {
        (
            files.mapValues { String(decoding: $0.bytes, as: UTF8.self) },
            lists.filter { questionnaire.uses(listFile: $0.key) }.mapValues { String(decoding: $0.bytes, as: UTF8.self) }
        )
    }

    /// Reads the `.txt` files of a questionnaire folder, and the list files of the nearest `Data/`
    /// folder found beside it or above it (`Questionnaires/x/` uses the `Data/` next to
    /// `Questionnaires/`).
    public init(directory url: URL) throws(QuestionnaireLoadError) {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw QuestionnaireLoadError([
                QuestionnaireDiagnostic(
                    path: path, message: "no questionnaire folder here",
                    hint: "pass the folder that holds manifest.txt and the section files, e.g. Questionnaires/refugee-health")
            ])
        }
        var problems: [QuestionnaireDiagnostic] = []
        self.directory = path
        self.files = Self.readTextFiles(in: url, problems: &problems)
        self.lists = [:]
        if let dataFolder = Self.dataFolder(near: url) {
            lists = Self.readTextFiles(in: dataFolder, problems: &problems)
        }
        for (name, file) in files where !Self.isQuestionnaireFile(name) {
            lists[name] = file
        }
        if !problems.isEmpty { throw QuestionnaireLoadError(problems) }
    }

    static func isQuestionnaireFile(_ name: String) -> Bool {
        name == "manifest.txt" || name == CaseRules.fileName || name.first?.isNumber == true
    }

    private static func dataFolder(near url: URL) -> URL? {
        var candidate = url.standardizedFileURL
        for _ in 0..<3 {
            candidate.deleteLastPathComponent()
            let data = candidate.appendingPathComponent("Data")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: data.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return data
            }
        }
        return nil
    }

    private static func readTextFiles(in folder: URL, problems: inout [QuestionnaireDiagnostic]) -> [String: File] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: File] = [:]
        for name in names where name.hasSuffix(".txt") {
            let fileURL = folder.appendingPathComponent(name)
            // One stat: Foundation's attribute lookups also read the user and group databases.
            var info = stat()
            // Only regular files (or links to them): a FIFO or device named *.txt would block a read.
            guard stat(fileURL.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if info.st_size > TextFile.maxFileSize {
                problems.append(
                    QuestionnaireDiagnostic(
                        path: fileURL.path,
                        message: "file is \(info.st_size) bytes; a questionnaire file may be at most \(TextFile.maxFileSize)",
                        hint: "split it into smaller files"))
                continue
            }
            do {
                let data = try Data(contentsOf: fileURL)
                files[name] = File(path: fileURL.path, bytes: [UInt8](data))
            } catch {
                problems.append(
                    QuestionnaireDiagnostic(
                        path: fileURL.path, message: "cannot read the file",
                        hint: "check that it exists and that you may read it"))
            }
        }
        return files
    }
}
