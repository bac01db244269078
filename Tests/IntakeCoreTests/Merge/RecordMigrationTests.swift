import Foundation
import IntakeCore
import Testing

@Suite("Moving a record to another questionnaire version")
struct RecordMigrationTests {
    /// Version 1: two sections.
    static let one = [
        "1-about.txt": """
        Age in years | id: age | integer 0..120 | required
        Weight in kg | id: weight | integer 1..300
        Smoker? | id: smoker | yesno
        Comment
        Blood group | id: blood | single: a=A, b=B, o=O
        """,
        "2-health.txt": """
        Symptoms | id: symptoms | multiple: fever=Fever, cough=Cough, rash=Rash
        Main symptom | id: main | single: fever=Fever, cough=Cough
        Days ill | id: days | integer 0..365
        Notes | id: notes | text
        """,
    ]

    /// Version 2: every kind of change. Weight becomes a decimal (carried), smoker becomes
    /// text (set aside), the unnamed comment stays in place (carried), blood group loses `o`
    /// (set aside when chosen), symptoms loses `rash`, main becomes multiple (carried as a
    /// list), days moves to a new third section (section split), notes is removed, a required
    /// question is added and a question shown only for smokers hides the weight.
    static let two = [
        "1-about.txt": """
        Age in years | id: age | integer 0..120 | required
        Weight in kg | id: weight | decimal 1..300 | show if: age > 17
        Smoker? | id: smoker | text
        Comment
        Blood group | id: blood | single: a=A, b=B
        Phone reachable? | id: phone | yesno | required
        """,
        "2-health.txt": """
        Symptoms | id: symptoms | multiple: fever=Fever, cough=Cough
        Main symptoms | id: main | multiple: fever=Fever, cough=Cough
        """,
        "3-course.txt": """
        Days ill | id: days | integer 0..365
        """,
    ]

    @Test("answers follow their question ids across every kind of change; the rest is listed, not lost")
    func everyKindOfChange() throws {
        let old = try TestQuestionnaires.load(Self.one)
        let new = try TestQuestionnaires.load(Self.two)
        #expect(old.version != new.version)
        var record = PatientResponse(questionnaire: old.reference, collector: "amal", deviceId: "d1")
        record.status = .complete
        func at(_ id: String, in q: Questionnaire) -> QuestionPosition { q.question(id: id)!.position }
        record[at("age", in: old)] = .integer(12)
        record[at("weight", in: old)] = .integer(40)
        record[at("smoker", in: old)] = .yesNo(false)
        record[QuestionPosition(section: 1, index: 4)] = .text("seen at the clinic")
        record[at("blood", in: old)] = .choice("o")
        record[at("symptoms", in: old)] = .choices(["fever", "rash"])
        record[at("main", in: old)] = .choice("cough")
        record[at("days", in: old)] = .integer(3)
        record[at("notes", in: old)] = .text("none")

        let result = RecordMigration.migrate(record, from: old, to: new)
        #expect(result.record.questionnaire == new.reference)
        #expect(result.record.id == record.id && result.record.collector == "amal")

        // Carried.
        #expect(result.record[at("age", in: new)] == .integer(12))
        #expect(result.record[QuestionPosition(section: 1, index: 4)] == .text("seen at the clinic"))
        #expect(result.record[at("main", in: new)] == .choices(["cough"]))
        #expect(at("days", in: new) == QuestionPosition(section: 3, index: 1))
        #expect(result.record[at("days", in: new)] == .integer(3))
        let moved = try #require(result.carried.first { $0.question == "days" })
        #expect(moved.from == QuestionPosition(section: 2, index: 3) && moved.to == QuestionPosition(section: 3, index: 1))
        #expect(result.carried.first { $0.question == "main" }?.conversion == "one choice to a list of choices")

        // Set aside, each with its reason and its answer kept.
        let aside = Dictionary(uniqueKeysWithValues: result.setAside.map { ($0.question, $0) })
        #expect(aside["smoker"]?.reason == .typeChanged && aside["smoker"]?.answer == .yesNo(false))
        #expect(aside["blood"]?.reason == .notAccepted && aside["blood"]?.answer == .choice("o"))
        #expect(aside["symptoms"]?.reason == .notAccepted && aside["symptoms"]?.answer == .choices(["fever", "rash"]))
        #expect(aside["notes"]?.reason == .questionRemoved && aside["notes"]?.answer == .text("none"))
        // Weight converts to a decimal but is hidden for a 12-year-old on version 2.
        #expect(aside["weight"]?.reason == .hidden && aside["weight"]?.answer == .integer(40))
        #expect(result.record[at("weight", in: new)] == nil)
        #expect(result.carried.count + result.setAside.count == record.answerCount)

        // The required question added is to be asked; nothing else is missing.
        #expect(result.nowRequired.map(\.key) == ["phone"])
        var finished = result.record
        finished[at("phone", in: new)] = .yesNo(true)
        #expect(Validator(questionnaire: new).validate(finished).errors.filter { $0.field == nil }.isEmpty)

        // The history's JSON names each answer set aside in the record codec's spelling.
        let json = String(
            decoding: RecordMigration.json(result.setAside, from: old.reference, to: new.reference, at: Date(timeIntervalSince1970: 0)),
            as: UTF8.self)
        #expect(json.contains(#""question":"blood","questionText":"Blood group","position":"1.5","reason":"not_accepted""#))
        #expect(json.contains(#""answer":{"choice":"o"}"#))
        #expect(json.hasPrefix(#"{"from":"test@\#(old.version)","to":"test@\#(new.version)","migratedAt":"1970-01-01T00:00:00"#))
    }

    @Test(
        "a whole number becomes a decimal, an integral decimal a whole number, and a question without an id moves only where its wording stays"
    )
    func conversionsAndUnnamedQuestions() throws {
        let old = try TestQuestionnaires.load(["1-a.txt": "Height | decimal\nWeight | id: w | integer\nRemark\n"])
        let new = try TestQuestionnaires.load(["1-a.txt": "Height in cm | integer\nWeight | id: w | decimal\nRemark\nExtra | integer\n"])
        var record = PatientResponse(questionnaire: old.reference, collector: "c", deviceId: "d")
        record[QuestionPosition(section: 1, index: 1)] = .decimal(170)
        record[QuestionPosition(section: 1, index: 2)] = .integer(60)
        record[QuestionPosition(section: 1, index: 3)] = .text("ok")
        let result = RecordMigration.migrate(record, from: old, to: new)
        // Height's wording changed and it has no id: not matched.
        #expect(result.setAside.map(\.question) == ["s1_q1"] && result.setAside[0].reason == .questionRemoved)
        #expect(result.record[QuestionPosition(section: 1, index: 2)] == .decimal(60))
        #expect(result.record[QuestionPosition(section: 1, index: 3)] == .text("ok"))
        #expect(result.nowRequired.isEmpty)

        let back = RecordMigration.migrate(result.record, from: new, to: old)
        #expect(back.record[QuestionPosition(section: 1, index: 2)] == .integer(60))
        var fractional = result.record
        fractional[QuestionPosition(section: 1, index: 2)] = .decimal(60.5)
        #expect(RecordMigration.migrate(fractional, from: new, to: old).setAside.first?.reason == .typeChanged)
    }
}
