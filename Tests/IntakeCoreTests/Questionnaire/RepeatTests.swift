import Foundation
import Testing

@testable import IntakeCore

/// Repeat groups: read from question files with located errors, answered as instances by
/// question index (record format 2), calculated and validated per instance, and added up.
struct RepeatTests {
    static let form = """
        @title Household
        How many people? | id: size | integer 1..10 | required
        Members | id: members | repeat 0..10 | count: size - 1
        Name | id: member_name | text | identifying
        Age | id: member_age | integer 0..120 | required
        Pregnant? | id: pregnant | yesno | show if: member_age > 12
        Weeks | id: weeks | integer 0..45 | required if: pregnant = yes | constraint: . < member_age * 52
        Next year | id: next_age | integer | calculate: member_age + 1
        Vaccines | id: vaccines | repeat ..3
        Vaccine | id: vaccine | single: bcg=BCG, mmr=MMR | required
        @end vaccines
        @end
        Total age | id: total_age | integer | calculate: sum(member_age)
        Listed | id: listed | integer | calculate: count(members)
        Aged listed | id: aged | integer | calculate: count(member_age)
        """

    static func questionnaire() throws -> Questionnaire { try TestQuestionnaires.load(["1-household.txt": form]) }

    static func record(
        _ q: Questionnaire, size: Int, _ instances: [[String: Answer]], status: PatientResponse.Status = .complete
    ) -> PatientResponse {
        var response = PatientResponse(
            questionnaire: q.reference, patient: PatientIdentification(givenName: "A", familyName: "B", sex: .female), status: status,
            collector: "amina", deviceId: "d")
        response[q.question(id: "size")!.position] = .integer(size)
        response[q.question(id: "members")!.position] = .instances(
            instances.map { answers in
                Dictionary(uniqueKeysWithValues: answers.map { (q.question(id: $0.key)!.position.index, $0.value) })
            })
        return response
    }

    @Test func readsGroupsTheirQuestionsAndNesting() throws {
        let q = try Self.questionnaire()
        let members = try #require(q.question(id: "members"))
        #expect(members.type == .repeatGroup(ClosedBounds(lower: 0, upper: 10)) && members.isRepeat && !members.isAsked)
        #expect(members.repeatCount?.description == "size - 1")
        #expect(q.members(of: members.position).map(\.key) == ["member_name", "member_age", "pregnant", "weeks", "next_age", "vaccines"])
        #expect(q.question(id: "vaccine")?.group == q.question(id: "vaccines")?.position)
        #expect(q.question(id: "total_age")?.group == nil)
        #expect(q.question(id: "total_age")?.calculation?.repeated["member_age"] == .init(group: members.position, index: 4))
    }

    @Test func calculationsRunPerInstanceAndAddUp() throws {
        let q = try Self.questionnaire()
        let today = LocalDate(iso: "2026-11-25")!
        var response = Self.record(q, size: 3, [["member_age": .integer(30), "pregnant": .yesNo(false)], ["member_age": .integer(4)]])
        #expect(response.format == 2)
        response = q.calculated(response, today: today)
        guard case .instances(let list)? = response[q.question(id: "members")!.position] else {
            Issue.record("the instances stay")
            return
        }
        let next = q.question(id: "next_age")!.position.index
        #expect(list.map { $0[next] } == [.integer(31), .integer(5)])
        #expect(response[q.question(id: "total_age")!.position] == .integer(34))
        #expect(response[q.question(id: "listed")!.position] == .integer(2))
        #expect(response[q.question(id: "aged")!.position] == .integer(2))
        // Unanswered, a repeat has no total (not 0).
        let empty = q.calculated(Self.record(q, size: 1, []).with(position: q.question(id: "members")!.position, nil), today: today)
        #expect(empty[q.question(id: "total_age")!.position] == nil)
        #expect(Validator(questionnaire: q, today: today).validate(response).errors.isEmpty)
    }

    @Test func eachInstanceIsValidatedAndIssuesNameIt() throws {
        let q = try Self.questionnaire()
        let validator = Validator(questionnaire: q, today: LocalDate(iso: "2026-11-25")!)
        // Instance 2 misses its required age; instance 1 is pregnant without the weeks; instance 1's
        // pregnancy weeks break the constraint in instance 3.
        let response = Self.record(
            q, size: 4,
            [
                ["member_age": .integer(30), "pregnant": .yesNo(true)], ["member_name": .text("X")],
                ["member_age": .integer(13), "pregnant": .yesNo(true), "weeks": .integer(40)],
            ])
        let issues = validator.validate(response).errors
        let described = issues.map {
            "\($0.questionId ?? "-") \($0.instance.map { $0.map(String.init).joined(separator: ".") } ?? "-") \($0.kind)"
        }
        #expect(described.sorted() == ["member_age 2 missingRequired", "weeks 1 missingRequired"], "\(issues)")
        let broken = Self.record(q, size: 2, [["member_age": .integer(0), "pregnant": .yesNo(true)]])
        // A baby is not asked whether pregnant: the answers are dropped with a warning, not an error.
        let (warnings, cleaned) = validator.validateAndClean(broken)
        #expect(warnings.errors.isEmpty && warnings.contains { $0.kind == .hiddenAnswer && $0.instance == [1] }, "\(warnings)")
        guard case .instances(let list)? = cleaned[q.question(id: "members")!.position] else { return }
        #expect(list[0][q.question(id: "pregnant")!.position.index] == nil)
        #expect(list[0][q.question(id: "next_age")!.position.index] == .integer(1))
    }

    @Test func theCountBoundsAndStrayAnswersAreChecked() throws {
        let q = try Self.questionnaire()
        let validator = Validator(questionnaire: q, today: LocalDate(iso: "2026-11-25")!)
        let age: [String: Answer] = ["member_age": .integer(20)]
        #expect(validator.validate(Self.record(q, size: 3, [age, age])).errors.isEmpty)
        let short = validator.validate(Self.record(q, size: 3, [age])).errors
        #expect(short.map(\.message) == ["the repeat has 1 instances where its count (size - 1) says 2"])
        // A draft may hold fewer instances than its count says, never more than the maximum.
        #expect(validator.validate(Self.record(q, size: 3, [age], status: .draft)).errors.isEmpty)
        var tooMany = Self.record(q, size: 3, Array(repeating: age, count: 11), status: .draft)
        #expect(validator.validate(tooMany).errors.map(\.kind) == [.outOfRange])
        tooMany = Self.record(q, size: 2, [age])
        let members = q.question(id: "members")!.position
        tooMany[members] = .instances([[q.question(id: "member_age")!.position.index: .integer(20), 99: .text("stray")]])
        let stray = validator.validate(tooMany).errors
        #expect(stray.map(\.kind) == [.unknownQuestion] && stray.first?.instance == [1], "\(stray)")
        // An instance's answer at the top of the record is reported and dropped.
        var outside = Self.record(q, size: 2, [age])
        outside[q.question(id: "member_name")!.position] = .text("outside")
        let (issues, cleaned) = validator.validateAndClean(outside)
        #expect(issues.contains { $0.kind == .unknownQuestion && $0.severity == .warning })
        #expect(cleaned[q.question(id: "member_name")!.position] == nil)
    }

    @Test func aHugeCountIsAnIssueNotACrash() throws {
        let q = try Self.questionnaire()
        let validator = Validator(questionnaire: q, today: LocalDate(iso: "2026-11-25")!)
        for size in [Int.max, Int.min, 1 << 62] {
            let issues = validator.validate(Self.record(q, size: size, [["member_age": .integer(3)]])).errors
            #expect(issues.contains { $0.kind == .outOfRange && $0.questionId == "size" }, "\(issues)")
        }
        #expect(RepeatLimits.instances(for: .number(1e300)) == RepeatLimits.maxInstances)
        #expect(RepeatLimits.instances(for: .number(-4)) == 0 && RepeatLimits.instances(for: .number(.nan)) == nil)
    }

    @Test func nestedInstancesAreValidatedWithTheirPath() throws {
        let q = try Self.questionnaire()
        let validator = Validator(questionnaire: q, today: LocalDate(iso: "2026-11-25")!)
        let vaccine = q.question(id: "vaccine")!.position.index
        let response = Self.record(
            q, size: 3,
            [
                ["member_age": .integer(2), "vaccines": .instances([[vaccine: .choice("bcg")]])],
                ["member_age": .integer(3), "vaccines": .instances([[vaccine: .choice("mmr")], [:]])],
            ])
        let issues = validator.validate(response).errors
        #expect(issues.map(\.instance) == [[2, 2]] && issues.first?.questionId == "vaccine", "\(issues)")
    }

    @Test func recordsWithInstancesRoundTripTheCodecByteStable() throws {
        let q = try Self.questionnaire()
        var generator = SampleGenerator(questionnaire: q, seed: 7)
        let validator = Validator(questionnaire: q)
        for _ in 0..<200 {
            let record = generator.next()
            let bytes = RecordCodec.encode(record)
            let read = try RecordCodec.decode(bytes)
            #expect(read == record)
            #expect(RecordCodec.encode(read) == bytes)
            #expect(validator.validate(record).errors.isEmpty, "\(validator.validate(record))")
        }
        // Written plainly: instances in order, each by question index.
        let one = Self.record(q, size: 2, [["member_age": .integer(9)]])
        #expect(String(decoding: RecordCodec.encode(one), as: UTF8.self).contains(#""2":{"instances":[{"4":{"integer":9}}]}"#))
    }

    @Test(arguments: [
        ("R | id: r | repeat\nX | id: x | integer", "q/1-a.txt:1: error: the repeat that begins here has no '@end'"),
        ("X | id: x | integer\n@end", "q/1-a.txt:2:1: error: '@end' closes a repeat, and no repeat is open"),
        ("R | id: r | repeat\n@end", "q/1-a.txt:1: error: the repeat has no questions"),
        (
            "R | id: r | repeat\nX | id: x | integer\n@end\nY | id: y | integer | calculate: x + 1",
            "q/1-a.txt:4:34: error: 'x' is asked once per instance of a repeat, so it has no single answer here"
        ),
        (
            "R | id: r | repeat\nX | id: x | text\n@end\nY | id: y | integer | calculate: sum(x)",
            "q/1-a.txt:4:38: error: sum() adds numbers, and 'x' is a text question"
        ),
        (
            "X | id: x | integer\nY | id: y | integer | calculate: count(x)",
            "q/1-a.txt:2:40: error: count() goes over a repeat's instances, and 'x' is asked once"
        ),
        (
            "R | id: r | repeat | constraint: . > 1\nX | id: x | integer\n@end",
            "q/1-a.txt:1: error: a repeat holds questions and cannot have constraint"
        ),
        (
            "X | id: x | integer | count: 3",
            "q/1-a.txt:1: error: 'count' says how many instances a repeat has, and this is a integer question"
        ),
        (
            "R | id: r | repeat\nX | id: x | yesno | alert if: . = yes | alert: Help\n@end",
            "q/1-a.txt:2:21: error: an alert cannot be raised from inside a repeat"
        ),
        (
            "A | id: a | repeat\nB | id: b | repeat\nC | id: c | repeat\nX | id: x | text\n@end\n@end\n@end",
            "q/1-a.txt:3: error: repeats nest at most 2 deep"
        ),
        ("R | id: r | repeat ..900", "q/1-a.txt:1:20: error: a repeat has at most 500 instances"),
        ("R | id: r | repeat\nX | id: x | text\n@end s", "q/1-a.txt:3:1: error: '@end s' closes the repeat 'r' (line 1)"),
    ])
    func mistakesAreLocated(text: String, expected: String) throws {
        let problems = TestQuestionnaires.problems(["1-a.txt": text])
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first.map { String($0.description.prefix(while: { $0 != "\n" })) } == expected)
    }

    @Test func aRecordMovesToAVersionWithTheRepeatsQuestionsRenumbered() throws {
        let old = try Self.questionnaire()
        let newForm = Self.form.replacingOccurrences(
            of: "Name | id: member_name", with: "Relation | id: relation | text\nName | id: member_name")
        let new = try TestQuestionnaires.load(["1-household.txt": newForm])
        let record = Self.record(old, size: 2, [["member_name": .text("Lina"), "member_age": .integer(30)]])
        let moved = RecordMigration.migrate(record, from: old, to: new, today: LocalDate(iso: "2026-11-25")!)
        guard case .instances(let list)? = moved.record[new.question(id: "members")!.position] else {
            Issue.record("the instances are carried")
            return
        }
        #expect(
            list == [
                [
                    new.question(id: "member_name")!.position.index: .text("Lina"),
                    new.question(id: "member_age")!.position.index: .integer(30),
                ]
            ])
        #expect(moved.setAside.isEmpty)
    }
}

extension PatientResponse {
    fileprivate func with(position: QuestionPosition, _ answer: Answer?) -> PatientResponse {
        var copy = self
        copy[position] = answer
        return copy
    }
}
