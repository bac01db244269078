import IntakeCore

/// Where the form stands: a patient field, a question, or the end of the questionnaire.
enum FormPlace: Hashable {
    case patient(PatientIdentification.Field)
    case question(QuestionPosition)
    case end

    /// How a place is stored in a draft: section 0 holds the patient fields, and the section
    /// after the last one is the end.
    init(cursor: QuestionPosition?, sectionCount: Int) {
        guard let cursor else {
            self = .patient(.givenName)
            return
        }
        if cursor.section == 0 {
            let fields = PatientIdentification.Field.allCases
            self = .patient(fields[min(max(cursor.index, 1), fields.count) - 1])
        } else if cursor.section > sectionCount {
            self = .end
        } else {
            self = .question(cursor)
        }
    }

    func cursor(sectionCount: Int) -> QuestionPosition {
        switch self {
        case .patient(let field):
            QuestionPosition(section: 0, index: PatientIdentification.Field.allCases.firstIndex(of: field)! + 1)
        case .question(let position): position
        case .end: QuestionPosition(section: sectionCount + 1, index: 1)
        }
    }
}
