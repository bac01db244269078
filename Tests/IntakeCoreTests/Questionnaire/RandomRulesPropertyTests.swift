import Foundation
import Testing

@testable import IntakeCore

/// Property: random questionnaires with calculations, constraints, `required if`, filters and
/// places load; their random valid records pass the validator with nothing recomputed and
/// round-trip the codec byte for byte; a record that breaks a constraint is refused with an issue
/// naming the question and saying the questionnaire's message, never the answer.
struct RandomRulesPropertyTests {
    /// A questionnaire of `count` questions, each built only on those before it.
    static func questionnaireText(_ random: inout SeededGenerator, count: Int) -> String {
        var lines = ["@title Random"]
        var numbers: [String] = []
        var choices: [String] = []
        // An open repeat: what was readable outside it, and its number questions (summed after it).
        var open: (numbers: [String], choices: [String], members: [String], left: Int)?
        for index in 1...count {
            let id = "q\(index)"
            var line = "Question \(index) | id: \(id)"
            if open == nil, index < count - 1, Int.random(in: 0..<6, using: &random) == 0 {
                lines.append(line + " | repeat 0..\(Int.random(in: 1...4, using: &random))")
                open = (numbers, choices, [], Int.random(in: 1...4, using: &random))
                continue
            }
            defer {
                if var group = open {
                    if numbers.last == id { group.members.append(id) }
                    group.left -= 1
                    open = group
                    if group.left == 0 || index == count {
                        lines.append("@end")
                        (numbers, choices) = (group.numbers, group.choices)
                        if let member = group.members.randomElement(using: &random) {
                            lines.append("Total \(index) | id: t\(index) | decimal | calculate: sum(\(member)) + count(\(member))")
                            numbers.append("t\(index)")
                        }
                        open = nil
                    }
                }
            }
            switch Int.random(in: 0..<7, using: &random) {
            case 0:
                line += " | integer 0..50"
                numbers.append(id)
            case 1:
                line += " | decimal 0.5..20"
                numbers.append(id)
            case 2 where numbers.count >= 2:
                let a = numbers.randomElement(using: &random)!, b = numbers.randomElement(using: &random)!
                let expression = [
                    "\(a) + \(b)", "round(\(a) * \(b) / 3, 1)", "if(\(a) > \(b), \(a) - \(b), 0)", "coalesce(\(a), 0) + 1",
                    "max(\(a), \(b))",
                ].randomElement(using: &random)!
                line += " | decimal | calculate: \(expression)"
                numbers.append(id)
            case 3 where !numbers.isEmpty:
                let a = numbers.randomElement(using: &random)!
                line += " | integer 0..100 | constraint: . >= \(a) or \(a) > 90 | message: at least \(a)"
                numbers.append(id)
            case 4:
                line += " | single: a=A, b=B, c=C"
                choices.append(id)
            case 5 where !choices.isEmpty:
                let parent = choices.randomElement(using: &random)!
                line += " | single: a:x=X, b:y=Y, c:z=Z, a:w=W | filter: \(parent)"
                if Bool.random(using: &random) { line += " | required if: \(parent) = a" }
            default:
                line += Bool.random(using: &random) ? " | geopoint" : " | yesno"
            }
            if index > 2, Int.random(in: 0..<5, using: &random) == 0, let a = numbers.first, a != id {
                line += " | show if: \(a) > 3"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The random questionnaires do hold repeats, and load with them.
    @Test func theRandomQuestionnairesHoldRepeats() throws {
        var withRepeats = 0
        for seed in 0..<6 {
            var random = SeededGenerator(seed: 0x5EED_0000 &+ UInt64(seed))
            let text = Self.questionnaireText(&random, count: Int.random(in: 4...24, using: &random))
            if try TestQuestionnaires.load(["1-random.txt": text]).hasRepeats { withRepeats += 1 }
        }
        #expect(withRepeats >= 2)
    }

    @Test(arguments: 0..<6)
    func randomRulesHoldForRandomRecords(seed: UInt64) throws {
        var random = SeededGenerator(seed: 0x5EED_0000 &+ seed)
        let text = Self.questionnaireText(&random, count: Int.random(in: 4...24, using: &random))
        let questionnaire = try TestQuestionnaires.load(["1-random.txt": text])
        let validator = Validator(questionnaire: questionnaire, today: LocalDate(iso: "2026-11-25")!)
        var samples = SampleGenerator(questionnaire: questionnaire, seed: seed)
        for _ in 0..<max(40, TestSeed.count(240) / 6) {
            var record = samples.next()
            record.status = .draft  // required answers are the sample's luck; the rules are what is checked
            let issues = validator.validate(record)
            #expect(issues.isEmpty, "\(issues)\n\(text)")
            let bytes = RecordCodec.encode(record)
            #expect(RecordCodec.encode(try RecordCodec.decode(bytes)) == bytes)
            // Break a constraint where one can be broken: the question is named, the value is not.
            for question in questionnaire.allQuestions {
                guard let constraint = question.constraint?.expression, let reads = constraint.positions.first(where: { $0.key != "." }),
                    case .integer(let other)? = record[reads.value].map({ $0 }) ?? nil, other >= 1, other <= 90,
                    record[question.position] != nil, !questionnaire.hiddenPositions(in: record).contains(question.position)
                else { continue }
                var broken = record
                broken[question.position] = .integer(other - 1)
                let refused = validator.validate(broken).filter { $0.position == question.position }
                // Exactly the questionnaire's message: the answer given is not in it.
                #expect(refused.map(\.message) == ["at least \(reads.key)"], "\(text)")
            }
        }
    }
}
