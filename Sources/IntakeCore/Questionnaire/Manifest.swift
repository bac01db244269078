import Foundation

/// The `manifest.txt` of a questionnaire folder: `key: value` lines.
///
/// ```
/// id: refugee-health
/// title: Refugee health screening
/// title.ar: فحص صحة اللاجئين
/// format: 1
/// languages: en, ar
/// language.ar: العربية
/// ```
struct Manifest {
    static let fileName = "manifest.txt"
    static let supportedFormat = 1
    static let keys = ["id", "title", "format", "languages"]

    var id = ""
    var title = LocalizedText("")
    var format = 1
    var languages = ["en"]
    /// How the form names its languages, where it names them (`language.fr: Français`).
    var languageNames: [String: String] = [:]

    static func parse(_ file: TextFile, report: (QuestionnaireDiagnostic) -> Void) -> Manifest {
        var manifest = Manifest()
        var seen: Set<String> = []
        for line in file.lines {
            let trimmed = line.text.trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let colon = trimmed.firstIndex(of: ":") else {
                report(
                    QuestionnaireDiagnostic(
                        path: file.path, line: line.number, column: 1, message: "expected 'key: value'",
                        hint: "manifest lines are like 'title: Refugee health screening'"))
                continue
            }
            let key = trimmed[..<colon].trimmingSpaces().lowercased()
            let value = trimmed[trimmed.index(after: colon)...].trimmingSpaces()
            seen.insert(key)
            manifest.apply(key: key, value: value, line: line.number, path: file.path, report: report)
        }
        for key in ["id", "title"] where !seen.contains(key) {
            report(
                QuestionnaireDiagnostic(
                    path: file.path, message: "the manifest has no '\(key)'",
                    hint: key == "id" ? "add a line like 'id: refugee-health'" : "add a line like 'title: Refugee health screening'"))
        }
        return manifest
    }

    private mutating func apply(
        key: String, value: String, line: Int, path: String, report: (QuestionnaireDiagnostic) -> Void
    ) {
        let valueColumn = 1
        switch key {
        case "id":
            guard !value.isEmpty,
                value.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
                })
            else {
                report(
                    QuestionnaireDiagnostic(
                        path: path, line: line, column: valueColumn, message: "the id must be letters, digits, '-' or '_'",
                        hint: "for example 'id: refugee-health'"))
                return
            }
            id = value
        case "title":
            title.base = value
        case "format":
            guard let number = Int(value), number >= 1 else {
                report(
                    QuestionnaireDiagnostic(
                        path: path, line: line, column: valueColumn, message: "format must be a whole number, 1 or more",
                        hint: "write 'format: 1'"))
                return
            }
            if number > Self.supportedFormat {
                report(
                    QuestionnaireDiagnostic(
                        path: path, line: line, column: valueColumn,
                        message: "this questionnaire is written in format \(number); this Intake reads format \(Self.supportedFormat)",
                        hint: "update Intake to read it"))
            }
            format = number
        case "languages":
            let codes = value.split(separator: ",").map { $0.trimmingSpaces() }
            guard !codes.isEmpty, codes.allSatisfy(Self.isLanguageCode) else {
                report(
                    QuestionnaireDiagnostic(
                        path: path, line: line, column: valueColumn, message: "languages must be a comma-separated list of language codes",
                        hint: "base language first, e.g. 'languages: en, ar'"))
                return
            }
            languages = codes
        case _ where key.hasPrefix("title."):
            title.translations[String(key.dropFirst("title.".count))] = value
        case _ where key.hasPrefix("language."):
            let code = String(key.dropFirst("language.".count))
            guard Self.isLanguageCode(code), !value.isEmpty else {
                report(
                    QuestionnaireDiagnostic(
                        path: path, line: line, column: 1, message: "'\(key)' names no language code, or no name",
                        hint: "write 'language.fr: Français': the code, then how the form names the language"))
                return
            }
            languageNames[code] = value
        default:
            let suggestion = Suggestion.nearest(to: key, in: Self.keys).map { "did you mean '\($0)'?" }
            report(
                QuestionnaireDiagnostic(
                    path: path, line: line, column: 1, message: "unknown manifest key '\(key)'",
                    hint: suggestion ?? "manifest keys are \(Self.keys.joined(separator: ", ")), title.<language> and language.<language>"))
        }
    }

    /// `en`, `ar`, `fa-AF`, `prs`.
    static func isLanguageCode(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count),
            first.allSatisfy({ $0.isASCII && $0.isLowercase }), parts.count <= 2
        else { return false }
        return parts.count == 1 || (2...4).contains(parts[1].count) && parts[1].allSatisfy({ $0.isASCII && $0.isLetter })
    }
}
