import Foundation

/// Loads questionnaires from their text files, reporting every problem in one pass.
public enum QuestionnaireLoader {
    /// Reads and parses the questionnaire folder at `directory`.
    public static func load(directory: URL) throws(QuestionnaireLoadError) -> Questionnaire {
        try load(QuestionnaireFiles(directory: directory))
    }

    /// Parses questionnaire files already in memory.
    public static func load(_ files: QuestionnaireFiles) throws(QuestionnaireLoadError) -> Questionnaire {
        let parser = QuestionnaireParser(files: files)
        let questionnaire = parser.parse()
        if !parser.diagnostics.isEmpty || questionnaire == nil {
            throw QuestionnaireLoadError(parser.diagnostics.sorted(by: QuestionnaireParser.order))
        }
        return questionnaire!
    }
}
