import IntakeCore

/// The one entity an ODK form declares for a questionnaire's cases (the XLSForm's `entities`
/// sheet, the XForm's `meta/entity`): the list a follow-up updates (its case picked by a
/// question, ``XPath/Writing/picker``), or the one list a questionnaire opens, and the property
/// each question saves to. A questionnaire that opens several lists, or follows one and opens
/// others, declares the followed one only: ODK wants each of a form's entities in a group of its
/// own, and Intake opens its cases from its own rules (the settings' case lines carry them all).
struct ODKEntity {
    var list: String
    var follows: Bool
    var condition: Expression?
    /// By question id, the property its answer is saved to.
    var saves: [String: String]

    init?(_ questionnaire: Questionnaire) {
        let rules = questionnaire.cases
        func saves(_ assignments: [CaseRules.Assignment]) -> [String: String] {
            var saves: [String: String] = [:]
            for set in assignments {
                // A property set from one question's answer is that question's save_to.
                // ODK reserves `name`, `label` and names starting `__` (the settings' case lines carry those).
                let reserved = ["name", "label"].contains(set.property) || set.property.hasPrefix("__")
                if case .name(let id, _) = set.value.expression, questionnaire.question(id: id) != nil, saves[id] == nil, !reserved {
                    saves[id] = set.property
                }
            }
            return saves
        }
        if let follows = rules.follows {
            (list, self.follows, condition, self.saves) = (follows.list, true, nil, saves(follows.assignments))
        } else if rules.opens.count == 1, let opening = rules.opens.first {
            (list, follows, condition, self.saves) = (opening.list, false, opening.condition?.expression, saves(opening.assignments))
        } else {
            return nil
        }
    }
}

extension XPath.Writing {
    /// The writing of `questionnaire`'s expressions in an ODK form: a follow-up's `case.name`
    /// reads the entity its picker question names, and its yes/no and multiple-choice
    /// properties compare as the questions of those kinds do.
    init(odkForm questionnaire: Questionnaire) {
        self.init(questionnaire)
        guard let follows = questionnaire.cases.follows else { return }
        caseList = follows.list
        var picker = Self.casePicker
        while questionnaire.question(id: picker) != nil
            || questionnaire.sections.contains(where: { $0.name == picker || XFormWriter.elementName($0) == picker })
        {
            picker += "_"
        }
        self.picker = picker
        for property in follows.properties {
            if property.type == .yesNo { yesNo.insert("case.\(property.name)") }
            if case .multipleChoice = property.type { multiple.insert("case.\(property.name)") }
        }
    }
}
