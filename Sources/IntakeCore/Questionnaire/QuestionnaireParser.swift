import Crypto
import Foundation

/// Turns ``QuestionnaireFiles`` into a ``Questionnaire``, collecting every problem on the way.
final class QuestionnaireParser {
    let files: QuestionnaireFiles
    private(set) var diagnostics: [QuestionnaireDiagnostic] = []
    /// The decoded lines of every file the questionnaire is made of, by file name, for its version.
    var contentByFile: [String: [String]] = [:]
    var languages: [String] = ["en"]
    var listCache: [String: ChoiceSet?] = [:]

    /// A question whose show-if condition is not yet checked against the other questions.
    struct PendingCondition {
        var position: QuestionPosition
        var syntax: ConditionSyntax
        var path: String
        var line: Int
    }

    var pendingConditions: [PendingCondition] = []
    var pendingExpressions: [PendingExpression] = []
    /// `alert:` messages by question, joined to their `alert if:` once expressions are checked.
    var alertMessages: [QuestionPosition: LocalizedText] = [:]
    /// `filter:` annotations, checked once every question is read.
    var pendingFilters: [(position: QuestionPosition, id: String, path: String, line: Int, column: Int)] = []
    /// The repeat group each question in one is asked in (its header's position).
    var groupOf: [QuestionPosition: QuestionPosition] = [:]
    /// What `cases.txt` declares, its expressions bound once every question is read.
    var caseRules = CaseRules()
    var pendingCaseExpressions: [PendingCaseExpression] = []

    init(files: QuestionnaireFiles) {
        self.files = files
    }

    func report(_ diagnostic: QuestionnaireDiagnostic) {
        diagnostics.append(diagnostic)
    }

    func report(_ path: String, _ line: Int?, _ column: Int?, _ message: String, hint: String? = nil) {
        report(QuestionnaireDiagnostic(path: path, line: line, column: column, message: message, hint: hint))
    }

    static func order(_ a: QuestionnaireDiagnostic, _ b: QuestionnaireDiagnostic) -> Bool {
        (a.path, a.line ?? 0, a.column ?? 0) < (b.path, b.line ?? 0, b.column ?? 0)
    }

    func parse() -> Questionnaire? {
        guard !files.files.isEmpty else {
            report(
                files.directory, nil, nil, "the folder has no questionnaire files",
                hint: "a questionnaire folder holds manifest.txt and section files named 1-name.txt, 2-name.txt, …")
            return nil
        }
        let manifest = parseManifest()
        languages = manifest.languages
        var sections = parseSections()
        parseCases()
        let conditions = resolveConditions(in: sections)
        for s in sections.indices {
            for q in sections[s].questions.indices {
                sections[s].questions[q].showIf = conditions[sections[s].questions[q].position]
            }
        }
        resolveExpressions(in: &sections)
        resolveCaseExpressions(in: sections)
        let translated = applyTranslations(to: sections)
        var questionnaire = Questionnaire(
            id: manifest.id, title: manifest.title, version: version(), formatVersion: manifest.format,
            languages: manifest.languages, sections: translated)
        questionnaire.languageNames = manifest.languageNames
        questionnaire.cases = caseRules
        return questionnaire
    }

    /// Decodes a file and records its lines as part of the questionnaire's content.
    func textFile(_ file: QuestionnaireFiles.File) -> TextFile {
        let text = TextFile(path: file.path, bytes: file.bytes)
        text.diagnostics.forEach(report)
        let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
        contentByFile[name] = text.lines.map { String($0.number) + ":" + $0.text }
        return text
    }

    private func parseManifest() -> Manifest {
        guard let file = files.files[Manifest.fileName] else {
            report(
                files.directory + "/" + Manifest.fileName, nil, nil, "the questionnaire has no manifest.txt",
                hint: "create it with lines 'id: my-form', 'title: My form', 'format: 1', 'languages: en'")
            return Manifest()
        }
        return Manifest.parse(textFile(file), report: report)
    }

    /// The first 16 hex digits of SHA-256 over every file's name and decoded lines, in name order.
    private func version() -> String {
        var digest = SHA256()
        // A file's bytes are gathered and hashed at once (the same bytes as a line at a time).
        var bytes: [UInt8] = []
        for name in contentByFile.keys.sorted() {
            let lines = contentByFile[name]!
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: "\(name)\n\(lines.count)\n".utf8)
            for line in lines {
                bytes.append(contentsOf: line.utf8)
                bytes.append(0x0A)
            }
            digest.update(data: bytes)
        }
        return String(digest.finalize().hex.prefix(16))
    }
}
