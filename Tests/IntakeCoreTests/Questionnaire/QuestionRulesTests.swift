import Foundation
import Testing

@testable import IntakeCore

/// Calculations, constraints, `required if`, defaults, notes, alerts and show-if in the
/// expression language: read from question files, checked with located errors, and applied the
/// same way by the form's helpers, the validator and the server.
struct QuestionRulesTests {
    static let form = """
        @title Visit
        Weight in kg | id: weight | decimal 1..300
        Height in cm | id: height | decimal 30..250
        BMI | id: bmi | calculate: round(weight / ((height / 100) * (height / 100)), 1)
        Systolic | id: sys | integer 50..260
        Diastolic | id: dia | integer 30..160 | constraint: . < sys | message: Diastolic must be below systolic
        Patient id | id: pid | pattern: [A-Z]{3}-[0-9]{4} | message: Write it like ABC-1234
        Pregnant? | id: pregnant | yesno
        Weeks of pregnancy | id: weeks | integer 0..45 | required if: pregnant = yes
        Visit date | id: visit | date | default: today()
        Feeling | id: mood | single: 0=Fine, 1=Low, 2=Very low
        Sleep | id: sleep | single: 0=Fine, 1=Poor, 2=Very poor
        Score | id: score | integer 0..4 | calculate: number(mood) + number(sleep)
        Your score is {score}: refer for a full assessment | note | show if: score >= 3
        Heavy? | id: heavy | yesno | show if: weight / 2 > 50
        Harm? | id: harm | yesno | alert if: . = yes | alert: Urgent: follow the protocol
        """

    private func questionnaire() throws -> Questionnaire { try TestQuestionnaires.load(["1-visit.txt": Self.form]) }

    private func record(_ q: Questionnaire, _ answers: [String: Answer], status: PatientResponse.Status = .draft) -> PatientResponse {
        var response = PatientResponse(questionnaire: q.reference, status: status, collector: "amina", deviceId: "d")
        for (id, answer) in answers { response[q.question(id: id)!.position] = answer }
        return response
    }

    @Test func readsEveryRule() throws {
        let q = try questionnaire()
        #expect(q.question(id: "bmi")?.calculation?.description == "round(weight / (height / 100 * (height / 100)), 1)")
        #expect(q.question(id: "bmi")?.type == .decimal(.unbounded))
        #expect(q.question(id: "bmi")?.isAsked == false)
        #expect(q.question(id: "dia")?.constraint?.message?.base == "Diastolic must be below systolic")
        #expect(q.question(id: "pid")?.constraint?.pattern == "[A-Z]{3}-[0-9]{4}")
        #expect(q.question(id: "weeks")?.requiredIf != nil)
        #expect(q.question(id: "visit")?.defaultValue?.usesToday == true)
        let note = q.allQuestions[12]
        #expect(note.type == .note && !note.takesAnswer && note.showIf != nil)
        #expect(q.question(id: "harm")?.alert?.message.base == "Urgent: follow the protocol")
        guard case .expression = q.question(id: "heavy")?.showIf else {
            Issue.record("arithmetic in show-if is an expression condition")
            return
        }
    }

    @Test func calculationsFollowTheirInputsAndShowIf() throws {
        let q = try questionnaire()
        let today = LocalDate(iso: "2026-11-25")!
        var response = record(q, ["weight": .decimal(70), "height": .decimal(175), "mood": .choice("2"), "sleep": .choice("1")])
        response = q.calculated(response, today: today)
        #expect(response[q.question(id: "bmi")!.position] == .decimal(22.9))
        #expect(response[q.question(id: "score")!.position] == .integer(3))
        #expect(!q.hiddenPositions(in: response).contains(q.allQuestions[12].position), "the note shows for a score of 3")
        // An input taken away: the calculation has no value, and no stale one stays.
        response[q.question(id: "height")!.position] = nil
        response = q.calculated(response, today: today)
        #expect(response[q.question(id: "bmi")!.position] == nil)
        // Division by zero is no value, not a crash.
        let zero = try TestQuestionnaires.load(["1-a.txt": "A | id: a | integer\nB | id: b | decimal | calculate: 10 / a\n"])
        let divided = zero.calculated(record(zero, ["a": .integer(0)]), today: today)
        #expect(divided[QuestionPosition(section: 1, index: 2)] == nil)
    }

    @Test func theValidatorRecomputesCalculationsAndKeepsConstraints() throws {
        let q = try questionnaire()
        let validator = Validator(questionnaire: q, today: LocalDate(iso: "2026-11-25")!)
        let forged = record(q, ["weight": .decimal(70), "height": .decimal(175), "bmi": .decimal(40)])
        let (issues, cleaned) = validator.validateAndClean(forged)
        #expect(issues.map(\.kind) == [.recalculated] && issues[0].severity == .warning)
        #expect(cleaned[q.question(id: "bmi")!.position] == .decimal(22.9))

        let broken = record(q, ["sys": .integer(110), "dia": .integer(120), "pid": .text("abc-12")])
        let problems = validator.validate(broken)
        #expect(problems.map(\.message) == ["Diastolic must be below systolic", "Write it like ABC-1234"])
        // A constraint reading an unanswered question is not checked: nothing to compare with.
        #expect(validator.validate(record(q, ["dia": .integer(120)])).isEmpty)

        let pregnant = record(q, ["pregnant": .yesNo(true)], status: .complete)
        #expect(validator.validate(pregnant).contains { $0.kind == .missingRequired && $0.questionId == "weeks" })
        let notPregnant = record(q, ["pregnant": .yesNo(false)], status: .complete)
        #expect(!validator.validate(notPregnant).contains { $0.questionId == "weeks" })

        let noted = record(q, [:]).with(position: q.allQuestions[12].position, .text("x"))
        let (noteIssues, noteCleaned) = validator.validateAndClean(noted)
        #expect(noteIssues.map(\.severity) == [.warning] && noteCleaned.answerCount == 0)
    }

    /// The patient's date of birth and sex are read by name where identities are at hand (not in
    /// show-if, which de-identified exports settle without them).
    @Test func calculationsReadThePatientsDateOfBirthAndSex() throws {
        let text = """
            Visit | id: visit | date
            Age at the visit | id: age_at_visit | integer | calculate: years-between(date_of_birth, visit)
            Pregnant? | id: pregnant | yesno | constraint: . = no or sex = female | message: Only for women
            """
        let q = try TestQuestionnaires.load(["1-a.txt": text])
        var response = record(q, ["visit": .date(LocalDate(iso: "2026-11-25")!), "pregnant": .yesNo(true)])
        response.patient.dateOfBirth = LocalDate(iso: "1990-12-01")
        response.patient.sex = .male
        response = q.calculated(response, today: LocalDate(iso: "2026-11-25")!)
        #expect(response[q.question(id: "age_at_visit")!.position] == .integer(35))
        #expect(Validator(questionnaire: q).validate(response).map(\.message) == ["Only for women"])
        response.patient.sex = .female
        #expect(Validator(questionnaire: q).validate(response).isEmpty)
        let problems = TestQuestionnaires.problems(["1-a.txt": "Q | id: q | yesno | show if: sex = female"])
        #expect(problems.first?.message == "show-if cannot read the patient's sex", "\(problems)")
        #expect(
            TestQuestionnaires.problems(["1-a.txt": "Q | id: q | yesno | required if: sex = woman"]).first?.message
                == "'woman' is not a choice of 'sex'")
    }

    /// Choices are codes: a number or yes/no compared with a choice question means that code.
    @Test func numbersAndYesNoComparedWithChoicesAreTheirCodes() throws {
        let text = """
            Interest | id: interest | single: 0=Not at all, 1=Several days, 2=Most days, 3=Every day
            Known? | id: known | single: yes=Yes, no=No, unknown=Not known
            Why | id: why | text | required if: interest = 3 or known = yes | alert if: selected(interest, 3) | alert: High
            """
        let q = try TestQuestionnaires.load(["1-a.txt": text])
        let validator = Validator(questionnaire: q)
        let every = record(q, ["interest": .choice("3")], status: .complete)
        #expect(validator.validate(every).contains { $0.questionId == "why" && $0.kind == .missingRequired })
        #expect(q.raisedAlerts(by: every, today: LocalDate(iso: "2026-11-25")!).map(\.key) == ["why"])
        let known = record(q, ["known": .choice("yes")], status: .complete)
        #expect(validator.validate(known).contains { $0.questionId == "why" && $0.kind == .missingRequired })
        #expect(!validator.validate(record(q, ["interest": .choice("1")], status: .complete)).contains { $0.questionId == "why" })
        let wrong = TestQuestionnaires.problems(["1-a.txt": "I | id: i | single: 0=A, 1=B\nW | id: w | text | required if: i = 5"])
        #expect(wrong.first?.message == "5 is not a choice of 'i'", "\(wrong)")
    }

    @Test func showIfCannotReadTheDayAndLongChainsAreRefusedNotCrashed() throws {
        let day = TestQuestionnaires.problems(["1-a.txt": "D | id: d | date\nQ | id: q | yesno | show if: days-between(d, today()) > 14"])
        #expect(day.first?.message == "show-if cannot read the day (today(), age())", "\(day)")
        let chain = (0..<900).map { _ in "1" }.joined(separator: " + ")  // within the 4096 characters of a line
        let long = TestQuestionnaires.problems(["1-a.txt": "Q | id: q | integer | calculate: \(chain)"])
        #expect(long.first?.message.contains("deeper than") == true, "\(long.first?.message ?? "")")
        // A 90-item inventory's total reads.
        let items = (1...90).map { "Item \($0) | id: i\($0) | integer 0..3" }.joined(separator: "\n")
        let total = (1...90).map { "i\($0)" }.joined(separator: " + ")
        let inventory = try TestQuestionnaires.load(["1-a.txt": items + "\nTotal | id: total | integer | calculate: \(total)\n"])
        #expect(inventory.question(id: "total")?.calculation != nil)
        let barren = TestQuestionnaires.problems([
            "1-a.txt": "R | id: r | single: a=A, b=B\nD | id: d | single: a:x=X | filter: r | required"
        ])
        #expect(barren.first?.message == "the question is required, but no choice is tagged for 'b' of 'r'", "\(barren)")
        // Hidden for the answers that offer nothing, as the hint says: fine.
        _ = try TestQuestionnaires.load([
            "1-a.txt": "R | id: r | single: a=A, b=B\nD | id: d | single: a:x=X | filter: r | required | show if: r = a"
        ])
    }

    @Test func defaultsAndAlerts() throws {
        let q = try questionnaire()
        let today = LocalDate(iso: "2026-11-25")!
        #expect(q.defaultAnswer(for: q.question(id: "visit")!, in: record(q, [:]), today: today) == .date(today))
        #expect(q.raisedAlerts(by: record(q, ["harm": .yesNo(true)]), today: today).map(\.key) == ["harm"])
        #expect(q.raisedAlerts(by: record(q, ["harm": .yesNo(false)]), today: today).isEmpty)
    }

    @Test(arguments: [
        (
            "X | id: x | integer\nY | id: y | decimal | calculate: x + z",
            "q/1-a.txt:2:38: error: calculate refers to an unknown question id 'z'"
        ),
        (
            "X | id: x | integer\nY | id: y | decimal | calculate: . + x",
            "q/1-a.txt:2:34: error: '.' stands for the answer itself, which a calculate cannot read"
        ),
        (
            "X | id: x | integer | constraint: . < y\nY | id: y | integer",
            "q/1-a.txt:1:39: error: constraint refers to 'y' (question 1.2), which does not come before this question"
        ),
        ("C | id: c | single: a=A, b=B\nY | id: y | yesno | required if: c = d", "q/1-a.txt:2:38: error: 'd' is not a choice of 'c'"),
        ("X | id: x | integer | calculate: 1 +", "q/1-a.txt:1:37: error: a value is missing before end of the expression"),
        ("X | id: x | text | pattern: [a-", "q/1-a.txt:1:29: error: '[a-' is not a valid regular expression"),
        ("X | id: x | yesno | alert if: . = yes", "q/1-a.txt:1: error: 'alert if' needs a message for the coordinators"),
        ("N | note | required", "q/1-a.txt:1: error: a note takes no answer, so it cannot have required"),
        (
            "X | id: x | integer | default: \"many\"",
            "q/1-a.txt:1:23: error: the default \"many\" is not a possible answer to a integer question"
        ),
        ("X | id: x | integer | calculate: nofunction(1)", "q/1-a.txt:1:34: error: there is no function nofunction()"),
        ("X | id: x | integer\nYou said {y} | note", "q/1-a.txt:2: error: the note shows '{y}', which is no question's id"),
        (
            "You said {x} | note\nX | id: x | integer",
            "q/1-a.txt:1: error: the note shows '{x}', which is not an earlier question with an answer"
        ),
    ])
    func mistakesAreLocated(text: String, expected: String) throws {
        let problems = TestQuestionnaires.problems(["1-a.txt": text])
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first.map { String($0.description.prefix(while: { $0 != "\n" })) } == expected)
    }

    @Test func theBundledQuestionnaireScoresAndAlerts() throws {
        let q = try TestQuestionnaires.bundled()
        let today = LocalDate(iso: "2026-11-25")!
        var response = record(q, ["phq_interest": .choice("2"), "phq_down": .choice("3"), "self_harm": .yesNo(true)], status: .complete)
        response = q.calculated(response, today: today)
        #expect(response[q.question(id: "phq2_score")!.position] == .integer(5))
        #expect(RecordAlertKeys.of(q, response, today) == ["self_harm"])
        #expect(q.question(id: "self_harm")?.alert?.message.text(in: "ar").hasPrefix("عاجل") == true)
        #expect(q.question(id: "bp_diastolic")?.constraint?.message?.text(in: "ar").isEmpty == false)
    }

    @Test func cascadingChoicesOfferOnlyTheChildrenOfTheAnswerGiven() throws {
        let text = """
            Region | id: region | single: north=North, south=South
            District | id: district | single: north:n1=North one, north:n2=North two, south:s1=South one | filter: region
            Towns | id: towns | multiple from towns | filter: region
            """
        let towns = "north:ta = Town A\nsouth:tb = Town B\nsouth:tc = Town C\n"
        let q = try TestQuestionnaires.load(["1-a.txt": text], lists: ["towns.txt": towns])
        let district = try #require(q.question(id: "district"))
        #expect(district.choiceFilter == q.question(id: "region")?.position)
        var response = record(q, [:])
        #expect(q.offeredType(of: district, in: response).choices?.choices.count == 3, "everything while the region is unanswered")
        response = record(q, ["region": .choice("south")])
        #expect(q.offeredType(of: district, in: response).choices?.choices.map(\.code) == ["s1"])
        #expect(q.offeredType(of: q.question(id: "towns")!, in: response).choices?.choices.map(\.code) == ["tb", "tc"])
        let validator = Validator(questionnaire: q)
        #expect(validator.validate(record(q, ["region": .choice("south"), "district": .choice("s1"), "towns": .choices(["tb"])])).isEmpty)
        let wrong = validator.validate(
            record(q, ["region": .choice("south"), "district": .choice("n1"), "towns": .choices(["tb", "ta"])]))
        #expect(wrong.map(\.kind) == [.unknownChoice, .unknownChoice])
        #expect(wrong.first?.message == "the answer is not one of the choices offered for the answer to 'region'")
        // The samples keep to the filter too.
        var samples = SampleGenerator(questionnaire: q, seed: 3)
        for _ in 0..<50 { #expect(validator.validate(samples.next()).errors.isEmpty) }
    }

    @Test(arguments: [
        (
            "R | id: r | single: a=A, b=B\nD | id: d | single: a:x=X, y=Y | filter: r",
            "q/1-a.txt:2:42: error: the choice 'y' has no 'r' code in front of it"
        ),
        (
            "R | id: r | single: a=A, b=B\nD | id: d | single: a:x=X, c:y=Y | filter: r",
            "q/1-a.txt:2:44: error: the choice 'y' is tagged 'c', which is not a choice of 'r'"
        ),
        (
            "R | id: r | single: a=A\nD | id: d | single: a:x=X | filter: q",
            "q/1-a.txt:2:37: error: filter refers to an unknown question id 'q'"
        ),
        (
            "R | id: r | text\nD | id: d | single: a:x=X | filter: r",
            "q/1-a.txt:2:37: error: filter needs a single-choice question; 'r' is a text question"
        ),
    ])
    func filterMistakesAreLocated(text: String, expected: String) throws {
        let problems = TestQuestionnaires.problems(["1-a.txt": text])
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first.map { String($0.description.prefix(while: { $0 != "\n" })) } == expected)
    }

    @Test func anExpressionPrintsAsItParses() throws {
        for text in [
            "a + b * c", "(a + b) * c", "-(a - b)", "not (a = 1 or b = 2) and c", "if(a > 1, \"x\", 'y \" z')", "a - (b - c)",
            "x is not answered or days-between(d, today()) >= 14", "a / (b / c) mod 2",
        ] {
            let parsed = try Expression.parse(text)
            #expect(try Expression.parse(parsed.description).description == parsed.description, "\(text)")
        }
        #expect(try Expression.parse("(a + b) * c").description == "(a + b) * c")
        #expect(try Expression.parse("a - (b - c)").description == "a - (b - c)")
    }
}

private enum RecordAlertKeys {
    static func of(_ q: Questionnaire, _ r: PatientResponse, _ today: LocalDate) -> [String] {
        q.raisedAlerts(by: r, today: today).map(\.key)
    }
}

extension PatientResponse {
    fileprivate func with(position: QuestionPosition, _ answer: Answer) -> PatientResponse {
        var copy = self
        copy[position] = answer
        return copy
    }
}
