import Foundation

/// The questions show-if hides for a record, by ordinal (a question's place in
/// ``Questionnaire/allQuestions``, found from its position by arithmetic): what a settling pass
/// finds and what the checks after it ask, several times for every answer. A set of positions
/// would hash each position at every question; this reads a bit.
package struct HiddenQuestions: Sendable, Equatable {
    private let ordinals: QuestionOrdinals
    private var hidden: [Bool]

    /// None hidden, for a questionnaire of `count` questions.
    init(ordinals: QuestionOrdinals, count: Int) {
        self.ordinals = ordinals
        hidden = Array(repeating: false, count: count)
    }

    /// Whether show-if hides the question at `position` (false for a position no question has).
    package func contains(_ position: QuestionPosition) -> Bool {
        guard let ordinal = ordinals[position], ordinal < hidden.count else { return false }
        return hidden[ordinal]
    }

    mutating func insert(_ position: QuestionPosition) {
        guard let ordinal = ordinals[position], ordinal < hidden.count else { return }
        hidden[ordinal] = true
    }

    mutating func remove(_ position: QuestionPosition) {
        guard let ordinal = ordinals[position], ordinal < hidden.count, hidden[ordinal] else { return }
        hidden[ordinal] = false
    }

    /// Whether show-if hides the question at `ordinal`.
    package func contains(ordinal: Int) -> Bool { hidden[ordinal] }

    mutating func insert(ordinal: Int) { hidden[ordinal] = true }

    /// The positions hidden, of `questionnaire`'s questions.
    func positions(in questionnaire: Questionnaire) -> Set<QuestionPosition> {
        Set(hidden.indices.lazy.filter { hidden[$0] }.map { questionnaire.allQuestions[$0].position })
    }

    package static func == (lhs: HiddenQuestions, rhs: HiddenQuestions) -> Bool { lhs.hidden == rhs.hidden }
}

extension Questionnaire {
    /// No question hidden yet.
    var noneHidden: HiddenQuestions { HiddenQuestions(ordinals: ordinals, count: allQuestions.count) }

    /// ``hiddenPositions(in:)`` by ordinal.
    package func hiddenQuestions(in response: PatientResponse) -> HiddenQuestions {
        var hidden = noneHidden
        for step in checks where !step.inRepeat {
            guard let condition = step.showIf else { continue }
            if !condition.isSatisfied(by: { hidden.contains($0) ? nil : response[$0] }) { hidden.insert(step.position) }
        }
        return hidden
    }
}
