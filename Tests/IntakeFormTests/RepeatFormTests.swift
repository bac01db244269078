import Foundation
import IntakeCore
import Testing

@testable import IntakeForm

/// A repeat in the terminal form: instances added, opened, removed and moved at the repeat; each
/// instance's questions asked with its number; show-if and calculations per instance; `:back`,
/// `:go`, `:review` and a draft saved inside an instance.
struct RepeatFormTests {
    let questionnaire: Questionnaire
    let today = LocalDate(iso: "2026-11-22")!

    init() throws {
        let text = """
            People | id: size | integer 1..9 | required
            Members | id: members | repeat ..4 | count: size - 1
            Name | id: name | text
            Age | id: age | integer 0..120 | required
            Pregnant? | id: pregnant | yesno | show if: age > 12
            Next year | id: next | integer | calculate: age + 1
            @end
            Pets | id: pets | repeat ..2
            Kind | id: kind | single: cat=Cat, dog=Dog | required
            @end
            Ages | id: ages | integer | calculate: sum(age)
            """
        let files = QuestionnaireFiles(
            directory: "q",
            files: [
                "manifest.txt": .init(path: "q/manifest.txt", bytes: Array("id: t\ntitle: Test\n".utf8)),
                "1-a.txt": .init(path: "q/1-a.txt", bytes: Array(text.utf8)),
            ])
        questionnaire = try QuestionnaireLoader.load(files)
    }

    private let patient = ["Amina", "Haddad", "1990-05-01", "f", ""]

    private func run(_ lines: [String], draft: Draft? = nil) throws -> (FormSession.Outcome, ScriptedIO, [Draft]) {
        let io = ScriptedIO(lines)
        var saves: [Draft] = []
        let start = draft ?? Draft(response: PatientResponse(questionnaire: questionnaire.reference, collector: "c", deviceId: "d"))
        let session = try FormSession(questionnaire: questionnaire, draft: start, io: io, today: today) { saves.append($0) }
        return (try session.run(), io, saves)
    }

    private func instances(_ record: PatientResponse, _ id: String) -> [[String: Answer]] {
        guard case .instances(let list)? = record[questionnaire.question(id: id)!.position] else { return [] }
        return list.map { instance in
            Dictionary(
                uniqueKeysWithValues: instance.map {
                    (questionnaire.question(at: QuestionPosition(section: 1, index: $0.key))!.key, $0.value)
                })
        }
    }

    @Test func countedInstancesAreFilledInTurnWithShowIfAndCalculationsPerInstance() throws {
        let (outcome, io, _) = try run(patient + ["3", "", "Lina", "30", "n", "", "Omar", "5", "", "+", "dog", "", ":finish"])
        guard case .completed(let record) = outcome else {
            Issue.record("not completed: \(io.transcript)")
            return
        }
        #expect(
            instances(record, "members") == [
                ["name": .text("Lina"), "age": .integer(30), "pregnant": .yesNo(false), "next": .integer(31)],
                ["name": .text("Omar"), "age": .integer(5), "next": .integer(6)],
            ])
        #expect(instances(record, "pets") == [["kind": .choice("dog")]])
        #expect(record[questionnaire.question(id: "ages")!.position] == .integer(35))
        #expect(io.transcript.contains("— Members: 2 of 2 —") && io.transcript.contains("[1.4 #2] Age *"))
        // Omar (5) is not asked whether pregnant.
        #expect(!io.transcript.contains("[1.5 #2]"))
        #expect(io.transcript.contains("[1.6 #1] Next year\n    calculated: 31"))
    }

    @Test func instancesAreOpenedRemovedAndMovedAtTheRepeat() throws {
        let lines =
            patient + [
                "4", "", "A", "1", "", "B", "2", "", "C", "3",  // three members
                // C first, A removed (undone, removed again); 9 does not exist; B's age corrected.
                "3>1", "-2", "undo", "-2", "9", "2", "", "40", "n",
                ":review", ":finish",
            ]
        let (outcome, io, _) = try run(lines)
        #expect(
            io.transcript.contains("Moved #3 to place 1.")
                && io.transcript.contains("Removed #2; the ones after it moved up. Type undo to bring it back."))
        #expect(io.transcript.contains("#2 is back in its place, with its answers."), "\(io.transcript)")
        #expect(io.transcript.contains("There is no #9; the numbers are 1 to 2."))
        #expect(io.transcript.contains("#2  B, 40"), "\(io.transcript)")
        // Three were counted and two recorded: finishing says so and goes to the repeat.
        guard case .inputEnded(let draft) = outcome else {
            Issue.record("the count is not met: \(io.transcript)")
            return
        }
        #expect(instances(draft.response, "members").map { $0["name"] } == [.text("C"), .text("B")])
        #expect(io.transcript.contains("the repeat has 2 instances where its count (size - 1) says 3"))
        #expect(draft.cursor == questionnaire.question(id: "members")!.position)
    }

    @Test func backGoAndQuitInsideAnInstanceKeepItsAnswers() throws {
        // :back from an instance's first question returns to the repeat; :go to a member from
        // outside goes to its repeat; :quit in an instance keeps what it holds.
        let (outcome, io, saves) = try run(patient + ["2", "", ":back", "1", "Lina", "33", "n", "", ":go 1.4", "1", "", ":quit"])
        guard case .quit(let draft) = outcome else {
            Issue.record("expected quit: \(io.transcript)")
            return
        }
        #expect(
            instances(draft.response, "members") == [
                ["name": .text("Lina"), "age": .integer(33), "pregnant": .yesNo(false), "next": .integer(34)]
            ],
            "\(io.transcript)")
        #expect(io.transcript.contains("> :go 1.4\n\n[1.2] Members"))
        // The draft left inside the instance resumes at the repeat.
        #expect(draft.cursor == questionnaire.question(id: "members")!.position)
        #expect(
            saves.allSatisfy { $0.response[questionnaire.question(id: "age")!.position] == nil },
            "an instance's answers never sit at the top")
        let (resumed, again, _) = try run(["", ":finish"], draft: draft)
        guard case .completed(let record) = resumed else {
            Issue.record("resumed and finished: \(again.transcript)")
            return
        }
        #expect(instances(record, "members").first?["next"] == .integer(34))
        #expect(again.transcript.contains("  #1  Lina, 33"))
    }

    @Test func anAnswerAnInstanceHidesForAMomentIsKeptAndShownAgain() throws {
        // Lina is 30 and pregnant; her age is mistyped as 5 (the question goes), then corrected.
        let (outcome, io, _) = try run(patient + ["2", "", "Lina", "30", "y", "1", "", "5", "1", "", "30", ":quit"])
        guard case .quit(let draft) = outcome else {
            Issue.record("expected quit: \(io.transcript)")
            return
        }
        #expect(instances(draft.response, "members").first?["pregnant"] == .yesNo(true), "\(io.transcript)")
        #expect(io.transcript.contains("[1.5 #1] Pregnant?\n    yes/no\n    current answer: yes"))
    }

    @Test func aRepeatRefusesMoreThanItsMaximumAndExplainsWhatToType() throws {
        let (_, io, _) = try run(patient + ["1", "", "+", "cat", "+", "dog", "+", "what", ":quit"])
        #expect(io.transcript.contains("This repeat holds at most 2; remove one (-N) to add another."), "\(io.transcript)")
        #expect(io.transcript.contains("Type +, a number, -N or N>M (or Enter to go on)."))
    }
}
