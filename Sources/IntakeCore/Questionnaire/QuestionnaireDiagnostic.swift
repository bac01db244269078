/// One problem found while loading a questionnaire, with where it is and how to fix it.
public struct QuestionnaireDiagnostic: Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var column: Int?
    public var message: String
    public var hint: String?

    public init(path: String, line: Int? = nil, column: Int? = nil, message: String, hint: String? = nil) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
    }

    /// `path:line:column: error: message`, then the hint on its own line.
    public var description: String {
        var location = path
        if let line { location += ":\(line)" }
        if let line, line > 0, let column { location += ":\(column)" }
        var text = "\(location): error: \(message)"
        if let hint { text += "\n    hint: \(hint)" }
        return text
    }
}

/// Every problem found in a questionnaire, reported together.
public struct QuestionnaireLoadError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [QuestionnaireDiagnostic]

    public init(_ diagnostics: [QuestionnaireDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String {
        let count = diagnostics.count
        return diagnostics.map(\.description).joined(separator: "\n")
            + "\n\(count) problem\(count == 1 ? "" : "s") found."
    }
}
