import Foundation
import Testing

@testable import IntakeCore

/// Property: settling a record on its answers by ordinal (``AnswerSheet``) gives exactly what
/// settling it on the record itself gave (the plain definition, kept here as the oracle): the
/// same record, the same questions hidden, and each repeat instance seen with the same answers
/// and hidden questions. On random questionnaires with repeats, calculations and show-if, on the
/// bundled questionnaire and on one with a repeat inside a repeat; records are samples with
/// answers taken away, calculations sent wrong, answers sent outside their repeat and to
/// positions no question has.
struct SettleByOrdinalTests {
    /// What a visitor saw of one instance: the group, the path, every question's answer as the
    /// instance's rules read them, and whether each member was hidden.
    struct Seen: Equatable {
        var group: QuestionPosition
        var path: [Int]
        var answers: [Answer?]
        var hidden: [Bool]
    }

    /// The settling pass as it was written on the record: the oracle.
    static func plainSettle(
        _ questionnaire: Questionnaire, _ response: PatientResponse, today: LocalDate, recomputingToday: Bool, dropsHidden: Bool,
        seen: inout [Seen]
    ) -> (PatientResponse, Set<QuestionPosition>) {
        func settle(_ ordinals: [Int], _ start: PatientResponse, _ hiddenAtStart: Set<QuestionPosition>, path: [Int]) -> (
            PatientResponse, Set<QuestionPosition>
        ) {
            var result = start
            var hidden = hiddenAtStart
            for ordinal in ordinals {
                let question = questionnaire.allQuestions[ordinal]
                if let condition = question.showIf, !condition.isSatisfied(by: { hidden.contains($0) ? nil : result[$0] }) {
                    hidden.insert(question.position)
                    continue
                }
                if question.isRepeat {
                    guard case .instances(var list)? = result[question.position] else { continue }
                    if case .repeatGroup(let bounds) = question.type, list.count > (bounds.upper ?? RepeatLimits.maxInstances) { continue }
                    let members = questionnaire.repeatMembers[question.position] ?? []
                    var start = result
                    var hiddenAtStart = hidden
                    for member in members { hiddenAtStart.remove(questionnaire.allQuestions[member].position) }
                    for number in list.indices {
                        for member in members {
                            let position = questionnaire.allQuestions[member].position
                            start[position] = list[number][position.index]
                        }
                        let (scoped, scopedHidden) = settle(members, start, hiddenAtStart, path: path + [number + 1])
                        seen.append(
                            Seen(
                                group: question.position, path: path + [number + 1],
                                answers: questionnaire.allQuestions.map { scoped[$0.position] },
                                hidden: members.map { scopedHidden.contains(questionnaire.allQuestions[$0].position) }))
                        var instance: [Int: Answer] = [:]
                        for member in members {
                            let position = questionnaire.allQuestions[member].position
                            guard
                                !dropsHidden
                                    || (!scopedHidden.contains(position) && questionnaire.allQuestions[member].takesAnswer),
                                let answer = scoped[position]
                            else { continue }
                            instance[position.index] = answer
                        }
                        list[number] = instance
                    }
                    result[question.position] = .instances(list)
                    continue
                }
                guard let calculation = question.calculation, recomputingToday || !calculation.usesToday else { continue }
                let value = calculation.value(today: today) { hidden.contains($0) ? nil : result[$0] }
                result[question.position] = Answer(value, for: question.type)
            }
            return (result, hidden)
        }
        let topLevel = questionnaire.allQuestions.indices.filter { questionnaire.allQuestions[$0].group == nil }
        return settle(topLevel, response, [], path: [])
    }

    /// A repeat in a repeat, calculations that read the day and the patient, a repeat show-if hides.
    static let nested = """
        @title Nested
        How many people? | id: size | integer 1..10
        Patient's age | id: years | integer | calculate: age(date_of_birth)
        Members | id: members | repeat 0..6 | count: size
        Age | id: member_age | integer 0..120
        Pregnant? | id: pregnant | yesno | show if: member_age > 12
        Next year | id: next_age | integer | calculate: member_age + 1
        Visits | id: visits | repeat ..3
        Weight | id: weight | decimal 1..200
        Seen on | id: seen_on | date
        Days since | id: since | integer | calculate: days-between(seen_on, today())
        Heavier | id: heavier | decimal | calculate: weight + member_age
        Note | note | show if: weight > 50
        @end visits
        Visits made | id: visit_count | integer | calculate: count(weight)
        @end
        Total age | id: total_age | integer | calculate: sum(member_age)
        Others | id: others | repeat ..2 | show if: size > 5
        Other's age | id: other_age | integer 0..120
        Older | id: older | integer | calculate: other_age + 1
        @end
        Mothers | id: mothers | integer | show if: total_age > 30
        """

    /// Instances taken apart at random, inner ones too: an answer taken away or sent as another
    /// kind, an answer to an index the repeat does not ask, an instance more than the repeat holds.
    static func shaken(_ list: [[Int: Answer]], _ random: inout SeededGenerator) -> [[Int: Answer]] {
        var list = list
        for number in list.indices {
            // Keys in order: a dictionary's order changes from one process to the next.
            for key in list[number].keys.sorted() {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: list[number][key] = nil
                case 1: list[number][key] = .integer(Int.random(in: 0...60, using: &random))
                case 2: if case .instances(let inner)? = list[number][key] { list[number][key] = .instances(shaken(inner, &random)) }
                default: continue
                }
            }
            if Int.random(in: 0..<8, using: &random) == 0 { list[number][99] = .integer(Int.random(in: 0...60, using: &random)) }
        }
        if !list.isEmpty, Int.random(in: 0..<10, using: &random) == 0 { list += Array(repeating: list[0], count: 8) }
        return list
    }

    /// The record, taken apart at random the ways a field record may be.
    static func shaken(_ record: PatientResponse, _ questionnaire: Questionnaire, _ random: inout SeededGenerator) -> PatientResponse {
        var record = record
        for (position, answer) in record.allAnswers {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: record[position] = nil
            case 1: record[position] = .integer(Int.random(in: 0...60, using: &random))
            case 2, 3:
                guard case .instances(let list) = answer else { continue }
                record[position] = .instances(shaken(list, &random))
            default: continue
            }
        }
        // Answers sent outside their repeat, and to a position no question has.
        for question in questionnaire.allQuestions where question.group != nil && Int.random(in: 0..<4, using: &random) == 0 {
            record[question.position] = .integer(Int.random(in: 0...60, using: &random))
        }
        if Bool.random(using: &random) { record[QuestionPosition(section: 1, index: 999)] = .text("stray") }
        return record
    }

    static func compare(_ questionnaire: Questionnaire, _ records: [PatientResponse], label: String) {
        let today = LocalDate(iso: "2026-11-30")!
        for record in records {
            for (recomputing, drops) in [(false, true), (false, false), (true, false), (true, true)] {
                var expectedSeen: [Seen] = []
                let (expected, expectedHidden) = plainSettle(
                    questionnaire, record, today: today, recomputingToday: recomputing, dropsHidden: drops, seen: &expectedSeen)
                var seen: [Seen] = []
                let (settled, sheet, hidden) = questionnaire.settledSheet(
                    record, today: today, recomputingToday: recomputing, dropsHidden: drops
                ) { group, path, scoped, scopedHidden in
                    let position = questionnaire.allQuestions[group].position
                    let members = questionnaire.repeatMembers[position] ?? []
                    seen.append(
                        Seen(
                            group: position, path: path, answers: scoped.answers,
                            hidden: members.map { scopedHidden.contains(ordinal: $0) }))
                }
                #expect(settled == expected, "\(label)")
                #expect(hidden.positions(in: questionnaire) == expectedHidden, "\(label)")
                #expect(seen == expectedSeen, "\(label)")
                // The sheet is the settled record's, question by question.
                for (ordinal, question) in questionnaire.allQuestions.enumerated() {
                    #expect(sheet.answers[ordinal] == settled[question.position], "\(label) \(question.position)")
                }
            }
        }
    }

    @Test(arguments: 0..<8)
    func randomQuestionnairesSettleAsOnTheRecord(seed: UInt64) throws {
        var random = SeededGenerator(seed: 0x0DD1_0000 &+ seed)
        let text = RandomRulesPropertyTests.questionnaireText(&random, count: Int.random(in: 4...24, using: &random))
        let questionnaire = try TestQuestionnaires.load(["1-random.txt": text])
        var samples = SampleGenerator(questionnaire: questionnaire, seed: seed)
        let records = (0..<60).map { _ in Self.shaken(samples.next(), questionnaire, &random) }
        Self.compare(questionnaire, records, label: text)
        // Some of the random questionnaires hold repeats; those of this seed's that do are settled with instances.
        if questionnaire.hasRepeats {
            #expect(
                records.contains { record in
                    record.allAnswers.contains { if case .instances(let list) = $0.answer { !list.isEmpty } else { false } }
                })
        }
    }

    @Test func theBundledAndANestedQuestionnaireSettleAsOnTheRecord() throws {
        var random = SeededGenerator(seed: 0x0DD2)
        for questionnaire in [try TestQuestionnaires.bundled(), try TestQuestionnaires.load(["1-nested.txt": Self.nested])] {
            var samples = SampleGenerator(questionnaire: questionnaire, seed: 7)
            var records: [PatientResponse] = []
            var instances = 0
            for _ in 0..<150 {
                let record = Self.shaken(samples.next(), questionnaire, &random)
                for (_, answer) in record.allAnswers { if case .instances(let list) = answer { instances += list.count } }
                records.append(record)
            }
            #expect(instances > 20, "the samples hold instances to settle")
            Self.compare(questionnaire, records, label: questionnaire.id)
        }
    }
}
