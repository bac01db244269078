import Foundation
import Testing

@testable import IntakeCore

/// Cases as questionnaires declare them (`cases.txt`): read with located errors, `case.name` in
/// expressions, the case a record carries, and what a complete record does to cases.
struct CaseRulesTests {
    static let screening = """
        Score | id: score | integer 0..6 | required
        Illness | id: illness | yesno | required
        Kind | id: kind | single: a=Alpha, b=Beta
        Visit | id: visit_date | date
        """

    static let screeningCases = """
        # opens a case when the score is high
        opens: follow-up
        if: score >= 3 or illness = yes
        set: score = score
        set: kind = kind
        set: high = score >= 3
        set: label = concat("s", score)
        due: today() + 14
        assign: team

        opens: other-list
        if: illness = yes
        """

    static let followUp = """
        Kind at the last visit | id: last_kind | single: a=Alpha, b=Beta | calculate: case.kind
        Next score | id: next | integer | calculate: coalesce(case.score, 0) + 1
        Outcome | id: outcome | single: go=Continue, stop=Stop | required
        Only when high | id: only_high | text | show if: case.high = yes
        Kind check | id: kind_check | yesno | show if: case.kind = b
        Next visit | id: next_visit | date | show if: outcome = go
        """

    static let followUpCases = """
        follows: follow-up
        property: score integer 0..6
        property: kind single: a=Alpha, b=Beta
        property: high yesno
        property: visits integer 0..
        set: visits = coalesce(case.visits, 0) + 1
        set: score = next
        set: note = outcome
        due: next_visit
        close if: outcome = stop
        """

    static func load(_ section: String, cases: String?) throws -> Questionnaire {
        var sections = ["1-a.txt": section]
        if let cases { sections[CaseRules.fileName] = cases }
        return try TestQuestionnaires.load(sections)
    }

    static func problems(_ section: String, cases: String) -> [QuestionnaireDiagnostic] {
        TestQuestionnaires.problems(["1-a.txt": section, CaseRules.fileName: cases])
    }

    static func record(_ q: Questionnaire, _ answers: [String: Answer], status: PatientResponse.Status = .complete) -> PatientResponse {
        var record = PatientResponse(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, questionnaire: q.reference,
            patient: PatientIdentification(
                givenName: "Amina", familyName: "Haddad", dateOfBirth: LocalDate(iso: "1990-05-01"), sex: .female),
            status: status, collector: "amina", deviceId: "d", createdAt: Date(timeIntervalSince1970: 1_764_460_800))  // 2025-11-30
        for (id, answer) in answers { record[q.question(id: id)!.position] = answer }
        return record
    }

    @Test func readsWhatAScreeningOpensAndWhatAFollowUpReadsAndSets() throws {
        let screening = try Self.load(Self.screening, cases: Self.screeningCases)
        #expect(screening.cases.follows == nil)
        #expect(screening.cases.opens.map(\.list) == ["follow-up", "other-list"])
        #expect(screening.cases.opens[0].assignment == .team && screening.cases.opens[1].assignment == .collector)
        #expect(screening.cases.opens[0].assignments.map(\.property) == ["score", "kind", "high", "label"])
        #expect(screening.cases.opens[0].condition?.description == "score >= 3 or illness = yes")

        let followUp = try Self.load(Self.followUp, cases: Self.followUpCases)
        let follows = try #require(followUp.cases.follows)
        #expect(follows.list == "follow-up")
        #expect(follows.properties.map(\.name) == ["score", "kind", "high", "visits"])
        #expect(follows.assignments.map(\.property) == ["visits", "score", "note"])
        #expect(followUp.cases.property(named: "kind")?.position == QuestionPosition(section: -1, index: 2))
        #expect(followUp.cases.summary?.hasPrefix("follows follow-up (reads 4 properties") == true)
    }

    @Test func theCasesFileIsPartOfTheVersion() throws {
        let with = try Self.load(Self.screening, cases: Self.screeningCases)
        let changed = try Self.load(Self.screening, cases: Self.screeningCases.replacingOccurrences(of: "+ 14", with: "+ 15"))
        let without = try Self.load(Self.screening, cases: nil)
        #expect(Set([with.version, changed.version, without.version]).count == 3)
    }

    @Test func aScreeningOpensCasesWithPropertiesAndADueDateFromTheDayItWasMade() throws {
        let q = try Self.load(Self.screening, cases: Self.screeningCases)
        let high = Self.record(q, ["score": .integer(4), "illness": .yesNo(false), "kind": .choice("b")])
        let effects = q.caseEffects(of: high)
        #expect(effects.update == nil)
        let opened = try #require(effects.opened.first)
        #expect(effects.opened.count == 1)
        #expect(opened.list == "follow-up" && opened.assignment == .team)
        #expect(opened.caseId == CaseEffects.openedCaseId(record: high.id, place: 0))
        #expect(opened.properties == ["score": .integer(4), "kind": .choice("b"), "high": .yesNo(true), "label": .text("s4")])
        // 14 days after the record was made, whatever day the server reads it.
        #expect(opened.due == LocalDate(iso: "2025-12-14"))

        // Sent again (or edited), the record names the same case; another record another.
        #expect(q.caseEffects(of: high).opened.first?.caseId == opened.caseId)
        var other = high
        other.id = UUID()
        #expect(q.caseEffects(of: other).opened.first?.caseId != opened.caseId)

        let ill = Self.record(q, ["score": .integer(1), "illness": .yesNo(true)])
        #expect(q.caseEffects(of: ill).opened.map(\.list) == ["follow-up", "other-list"])
        // A property whose expression has no value (kind unanswered) is not set.
        #expect(q.caseEffects(of: ill).opened[0].properties["kind"] == nil)
        #expect(q.caseEffects(of: Self.record(q, ["score": .integer(1), "illness": .yesNo(false)])).isEmpty)
        // A draft opens nothing.
        #expect(q.caseEffects(of: Self.record(q, ["score": .integer(6), "illness": .yesNo(true)], status: .draft)).isEmpty)
    }

    @Test func aFollowUpReadsTheCaseAsTheVisitSawItAndUpdatesOrClosesIt() throws {
        let q = try Self.load(Self.followUp, cases: Self.followUpCases)
        let follows = try #require(q.cases.follows)
        let caseId = UUID()
        // The case holds a code set as text by the screening: the follow-up reads it as its choice.
        let link = follows.link(
            caseId: caseId, values: ["score": .integer(4), "kind": .text("b"), "high": .yesNo(true), "other": .text("x")])
        #expect(link.properties == [1: .integer(4), 2: .choice("b"), 3: .yesNo(true)])

        var record = Self.record(q, ["outcome": .choice("go"), "next_visit": .date(LocalDate(iso: "2025-12-20")!)])
        record.caseLink = link
        let validator = Validator(questionnaire: q, today: LocalDate(iso: "2025-11-30")!)
        let (issues, cleaned) = validator.validateAndClean(record)
        // The calculations read the case: computed on the server as in the form.
        #expect(cleaned[q.question(id: "last_kind")!.position] == .choice("b"))
        #expect(cleaned[q.question(id: "next")!.position] == .integer(5))
        #expect(issues.allSatisfy { $0.severity == .warning }, "\(issues)")
        // show-if reads the case too.
        let hidden = q.hiddenPositions(in: cleaned)
        #expect(!hidden.contains(q.question(id: "only_high")!.position))
        #expect(!hidden.contains(q.question(id: "kind_check")!.position))
        var low = cleaned
        low.caseLink?.properties[3] = .yesNo(false)
        #expect(q.hiddenPositions(in: low).contains(q.question(id: "only_high")!.position))

        let update = try #require(q.caseEffects(of: cleaned).update)
        #expect(update.caseId == caseId && update.list == "follow-up" && !update.closes)
        #expect(update.properties == ["visits": .integer(1), "score": .integer(5), "note": .choice("go")])
        #expect(update.due == LocalDate(iso: "2025-12-20"))
        #expect(q.caseEffects(of: cleaned).opened.isEmpty)

        var stop = cleaned
        stop[q.question(id: "outcome")!.position] = .choice("stop")
        stop[q.question(id: "next_visit")!.position] = nil
        stop.caseLink?.properties[4] = .integer(2)
        let closing = try #require(q.caseEffects(of: stop).update)
        #expect(closing.closes && closing.due == nil && closing.properties["visits"] == .integer(3))
    }

    @Test func theValidatorHoldsARecordToItsQuestionnairesCaseList() throws {
        let followUp = try Self.load(Self.followUp, cases: Self.followUpCases)
        let validator = Validator(questionnaire: followUp, today: LocalDate(iso: "2025-11-30")!)
        let bare = Self.record(followUp, ["outcome": .choice("stop")])
        #expect(validator.validate(bare).contains { $0.field == "case" && $0.kind == .missingRequired })
        // A draft may wait for its case.
        #expect(!validator.validate(Self.record(followUp, ["outcome": .choice("stop")], status: .draft)).contains { $0.field == "case" })

        var wrongList = bare
        wrongList.caseLink = CaseLink(id: UUID(), list: "pregnancy")
        #expect(validator.validate(wrongList).contains { $0.field == "case" && $0.message.contains("'pregnancy'") })
        var stray = bare
        stray.caseLink = CaseLink(id: UUID(), list: "follow-up", properties: [9: .integer(1), 1: .text("four")])
        let issues = validator.validate(stray).filter { $0.field == "case" }
        #expect(issues.contains { $0.kind == .unknownQuestion && $0.message.contains("property 9") })
        #expect(issues.contains { $0.kind == .wrongType && $0.message.contains("'score'") })

        let screening = try Self.load(Self.screening, cases: Self.screeningCases)
        var linked = Self.record(screening, ["score": .integer(1), "illness": .yesNo(false)])
        linked.caseLink = CaseLink(id: UUID(), list: "follow-up")
        #expect(Validator(questionnaire: screening).validate(linked).contains { $0.field == "case" && $0.kind == .invalidValue })
    }

    @Test func mistakesAreReportedAtTheirLineAndColumn() throws {
        func only(_ cases: String, section: String = Self.followUp) -> [String] {
            Self.problems(section, cases: cases).map {
                "\($0.path.split(separator: "/").last!):\($0.line ?? 0):\($0.column ?? 0): \($0.message)"
            }
        }
        #expect(
            only("set: x = 1\nfollows: follow-up\nproperty: score integer\nproperty: kind single: a=A, b=B\nproperty: high yesno") == [
                "cases.txt:1:1: 'set' comes before any 'follows:' or 'opens:'"
            ])
        // A case's status and due date are its own: no property takes their names.
        let reserved = only(
            "follows: follow-up\nproperty: score integer\nproperty: kind single: a=A, b=B\nproperty: high yesno\nproperty: due date\nset: status = 1"
        )
        #expect(reserved.contains("cases.txt:5:11: 'due' is not a property name"), "\(reserved)")
        #expect(reserved.contains("cases.txt:6:6: 'status' is not a property name"), "\(reserved)")
        let problems = only(
            """
            follows: Follow Up
            follows: follow-up
            property: score integr 0..6
            property: kind single: a=A, b=B
            property: kind text
            property: high photo
            opens: other
            property: y text
            close if: outcome = done
            sett: a = 1
            assign: someone
            if: outcome = go
            if: outcome = stop
            set: = 1
            set: a = 
            follows: again
            """)
        #expect(problems.contains("cases.txt:1:10: 'Follow Up' is not a case list's name"))
        #expect(problems.contains("cases.txt:3:17: unknown type or annotation 'integr'"))
        #expect(problems.contains("cases.txt:5:11: the property 'kind' is declared twice"))
        #expect(problems.contains("cases.txt:6:16: a case property cannot be a photo"))
        #expect(
            problems.contains("cases.txt:8:1: 'property' declares what a follow-up reads of its case, and this line belongs to 'opens:'"))
        #expect(problems.contains("cases.txt:9:1: 'close if' closes the case the questionnaire follows, and this line belongs to 'opens:'"))
        #expect(problems.contains("cases.txt:10:1: unknown cases.txt key 'sett'"))
        #expect(problems.contains("cases.txt:11:9: 'someone' is not who a case goes to"))
        #expect(problems.contains("cases.txt:13:1: 'if' is given twice for this case"))
        #expect(problems.contains("cases.txt:14:6: '' is not a property name"))
        #expect(problems.contains("cases.txt:15:6: 'set: a =' needs an expression after '='"))
        #expect(problems.contains { $0.hasPrefix("cases.txt:16:1: the questionnaire already follows 'follow-up' (line 2)") })
        // The questions read a property that the failed line would have declared.
        #expect(problems.contains("1-a.txt:2:55: the case has no property 'score' declared in cases.txt"))

        // Expressions: unknown questions, undeclared properties (with the nearest), and case.x
        // in a questionnaire that follows no list.
        let expressions = Self.problems(
            Self.followUp,
            cases:
                "follows: follow-up\nproperty: score integer\nproperty: kind single: a=A, b=B\nproperty: high yesno\nset: s = case.scor + outcom\nclose if: case.kind = c"
        )
        #expect(
            expressions.contains {
                $0.line == 5 && $0.column == 10 && $0.message == "the case has no property 'scor' declared in cases.txt"
                    && $0.hint == "did you mean 'case.score'?"
            })
        #expect(expressions.contains { $0.line == 6 && $0.message == "'c' is not a choice of 'case.kind'" })
        // 'due' is a date; a block under a list name that cannot be one is not read against another block.
        let dues = Self.problems(Self.screening, cases: "opens: follow-up\ndue: score\nopens: Bad Name\nif: nothing_here = 1")
        #expect(dues.contains { $0.line == 2 && $0.message.hasPrefix("'due' is a date") })
        #expect(!dues.contains { $0.line == 4 }, "\(dues)")
        let many = Self.problems(Self.screening, cases: (0...16).map { "opens: list\($0)" }.joined(separator: "\n"))
        #expect(many.contains { $0.line == 17 && $0.message.contains("at most 16") })
        let noList = Self.problems(Self.screening + "\nX | id: x | integer | calculate: case.score", cases: "opens: follow-up")
        #expect(noList.contains { $0.message.contains("this questionnaire follows no case list") })
    }

    @Test func theBundledScreeningOpensFollowUpsThatTheBundledFollowUpRecords() throws {
        let root = TestQuestionnaires.repositoryRoot.appendingPathComponent("Questionnaires")
        let screening = try QuestionnaireLoader.load(directory: root.appendingPathComponent("refugee-health"))
        let followUp = try QuestionnaireLoader.load(directory: root.appendingPathComponent("follow-up"))
        #expect(screening.cases.opens.map(\.list) == ["follow-up"])
        #expect(followUp.cases.follows?.list == "follow-up")
        #expect(followUp.languages == ["en", "ar"])
        #expect(followUp.question(id: "outcome")?.text.text(in: "ar") == "ما الخطوة التالية؟")

        // Every property the follow-up reads is one the screening sets.
        let set = Set(screening.cases.opens[0].assignments.map(\.property))
        #expect(followUp.cases.follows!.properties.allSatisfy { set.contains($0.name) })

        // Screenings: a case for a PHQ-2 of 3 or more, a long-term illness or self-harm, none otherwise.
        var generator = SampleGenerator(questionnaire: screening, seed: 11)
        var opened = 0
        for _ in 0..<200 {
            let record = generator.next()
            let phq2 = record[screening.question(id: "phq2_score")!.position]
            let flagged =
                (phq2.flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? 0) >= 3
                || record[screening.question(id: "chronic_any")!.position] == .yesNo(true)
                || record[screening.question(id: "self_harm")!.position] == .yesNo(true)
            let effects = screening.caseEffects(of: record)
            #expect(effects.opened.count == (flagged ? 1 : 0))
            if let case_ = effects.opened.first {
                opened += 1
                #expect(case_.due != nil && case_.properties["reason"] != nil && case_.assignment == .collector)
                // The follow-up reads what the screening set, in its own types.
                let link = followUp.cases.follows!.link(caseId: case_.caseId, values: case_.properties)
                #expect(link.properties[1] == .choice(String(describing: case_.properties["reason"]!.textValue)))
            }
        }
        #expect(opened > 20 && opened < 200)

        // Sample follow-ups carry a case and pass the validator.
        var followUps = SampleGenerator(questionnaire: followUp, seed: 3)
        let validator = Validator(questionnaire: followUp)
        for _ in 0..<50 {
            let record = followUps.next()
            #expect(record.caseLink?.list == "follow-up")
            #expect(validator.validate(record).filter { $0.severity == .error }.isEmpty)
            #expect(try RecordCodec.decode(RecordCodec.encode(record)) == record)
        }
    }

    @Test func theRecordCarriesItsCaseInTheCanonicalForm() throws {
        var record = PatientResponse(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, questionnaire: QuestionnaireReference(id: "q", version: "v1"),
            patient: PatientIdentification(givenName: "A", familyName: "B"), status: .complete, collector: "c", deviceId: "dev",
            createdAt: Date(timeIntervalSince1970: 1_763_789_948), updatedAt: Date(timeIntervalSince1970: 1_763_789_948))
        #expect(record.format == 1)
        record.caseLink = CaseLink(
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!, list: "follow-up", revision: 3,
            properties: [10: .integer(2), 2: .choice("b")])
        #expect(record.format == 2)
        let text = String(decoding: RecordCodec.encode(record), as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"answers":{},"case":{"id":"00000000-0000-4000-8000-000000000001","list":"follow-up","properties":{"2":{"choice":"b"},"10":{"integer":2}},"revision":3},"collector":"c","#
            ))
        #expect(try RecordCodec.decode(Array(text.utf8)) == record)
        for (bad, message) in [
            (#""case":{"id":"x","list":"follow-up","revision":1}"#, "expected a case id"),
            (#""case":{"id":"00000000-0000-4000-8000-000000000001","list":"a"}"#, "case needs 'id', 'list' and 'revision'"),
            (#""case":{"id":"00000000-0000-4000-8000-000000000001","list":"a","revision":0}"#, "revision is 1 or more"),
            (#""case":{"id":"00000000-0000-4000-8000-000000000001","list":"Follow Up"}"#, "a case list's name"),
            (#""case":{"id":"00000000-0000-4000-8000-000000000001","list":"a","owner":"x"}"#, "unknown key 'owner' in case"),
            (#""case":{"id":"00000000-0000-4000-8000-000000000001","list":"a","properties":{"02":{"integer":1}}}"#, "property keys"),
        ] {
            #expect(text.contains(#""revision":3}"#))
            let edited = text.replacingOccurrences(
                of:
                    #""case":{"id":"00000000-0000-4000-8000-000000000001","list":"follow-up","properties":{"2":{"choice":"b"},"10":{"integer":2}},"revision":3}"#,
                with: bad)
            let error = #expect(throws: JSONReadError.self) { _ = try RecordCodec.decode(Array(edited.utf8)) }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
    }
}

extension Answer {
    fileprivate var textValue: String { ExpressionValue(self).text }
}
