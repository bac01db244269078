import Foundation

/// A record's answers laid out by question ordinal, as settling and checking read them: a read
/// or a write is an array's, where a ``PatientResponse`` hashes its section and then its index
/// (and copies a section's dictionary on a write). Settling a record writes each repeat
/// instance's answers into its members' places in turn, so one sheet serves every instance.
///
/// Answers the record holds for positions no question has are not on the sheet (the record keeps
/// them until it is cleaned); the patient's fields (section 0) are read from the identification,
/// as a record reads them (questionnaires are read from sections 1 on: no question is in 0).
package struct AnswerSheet {
    /// By ordinal (``Questionnaire/allQuestions``).
    package var answers: [Answer?]
    let patient: PatientIdentification
    /// The case's properties as the visit saw them (section -1).
    let caseProperties: [Int: Answer]
    let ordinals: QuestionOrdinals

    /// `response`'s answers placed by ordinal for `questionnaire`.
    package init(_ response: PatientResponse, for questionnaire: Questionnaire) {
        ordinals = questionnaire.ordinals
        patient = response.patient
        caseProperties = response.caseLink?.properties ?? [:]
        var answers = [Answer?].noAnswers(questionnaire.checks.count)
        for (section, byIndex) in response.answers {
            for (index, answer) in byIndex {
                if let ordinal = ordinals[QuestionPosition(section: section, index: index)] { answers[ordinal] = answer }
            }
        }
        self.answers = answers
    }

    /// The answer at `position` (nil for a position no question has), the patient's fields in
    /// section 0 as expressions read them.
    package subscript(position: QuestionPosition) -> Answer? {
        if position.section == 0 { return patient.expressionAnswer(position.index) }
        if position.section == CaseRules.section { return caseProperties[position.index] }
        guard let ordinal = ordinals[position] else { return nil }
        return answers[ordinal]
    }
}
