import Foundation
import IntakeCore
import Testing

/// The expression language of calculations, constraints and conditions: what each form means,
/// what a missing answer or an impossible operation gives, and mistakes located by column.
struct ExpressionTests {
    static let today = LocalDate(iso: "2026-11-25")!
    static let answers: [String: Answer] = [
        "weight": .decimal(61.5), "height": .integer(165), "phq_1": .integer(2), "phq_2": .integer(1), "cough": .yesNo(true),
        "symptoms": .choices(["fever", "cough"]), "region": .choice("north"), "born": .date(LocalDate(iso: "1990-05-01")!),
        "visit": .date(LocalDate(iso: "2026-11-20")!), "name": .text("Amina"), "zero": .integer(0),
    ]

    func value(_ text: String, _ answers: [String: Answer] = Self.answers) throws -> ExpressionValue {
        let parsed = try Expression.parse(text).resolved(questions: Set(Self.answers.keys).union(["unanswered"]))
        try parsed.check(questions: Set(Self.answers.keys).union(["unanswered"]))
        return ExpressionEvaluator(today: Self.today).evaluate(parsed) { answers[$0] }
    }

    @Test func arithmeticComparisonsAndLogicReadAnswers() throws {
        #expect(try value("round(weight / ((height / 100) * (height / 100)), 1)") == .number(22.6))
        #expect(try value("phq_1 + phq_2") == .number(3))
        #expect(try value("phq_1 + phq_2 >= 3") == .bool(true))
        #expect(try value("if(phq_1 + phq_2 >= 3, 'positive', 'negative')") == .text("positive"))
        #expect(try value("cough = yes and not (region = south)") == .bool(true))
        #expect(try value("symptoms = fever") == .bool(true), "a multiple choice equals a code it holds")
        #expect(try value("symptoms = rash or region != north") == .bool(false))
        #expect(try value("count-selected(symptoms)") == .number(2))
        #expect(try value("selected(symptoms, 'cough')") == .bool(true))
        #expect(try value("-phq_1 * 2 + 10 mod 4") == .number(-2))
        #expect(try value("weight-height") == .number(61.5 - 165), "a '-' between ids subtracts")
    }

    @Test func textFunctionsPowersAndXLSFormNames() throws {
        #expect(try value("${weight} * 2") == .number(123), "XLSForm's ${name} reads the question")
        #expect(try value("length(name)") == .number(5))
        #expect(try value("contains(name, 'MIN')") == .bool(true), "case does not matter")
        #expect(try value("matches(name, '[A-Z][a-z]+')") == .bool(true))
        #expect(try value("matches(name, '[a-z]+')") == .bool(false), "the whole text must match")
        #expect(try value("lower(name) = 'amina' and upper(name) = 'AMINA'") == .bool(true))
        #expect(try value("substr(name, 1, 3)") == .text("min"))
        #expect(try value("substr(name, 3)") == .text("na"))
        #expect(try value("substr(name, 9, 2)") == .text(""), "past the end is empty, not a crash")
        #expect(try value("substr(name, -1)") == .missing)
        #expect(try value("int(weight)") == .number(61) && value("int(-2.7)") == .number(-2))
        #expect(try value("pow(2, 10)") == .number(1024) && value("pow(10, 400)") == .missing)
        #expect(try value("length(unanswered)") == .missing && value("contains(unanswered, 'a')") == .bool(false))
        #expect(throws: ExpressionError.self) { try value("matches(name, '[a-')") }
        #expect(throws: ExpressionError.self) { try value("${weight") }
    }

    @Test func datesAgesAndText() throws {
        #expect(try value("age(born)") == .number(36))
        #expect(try value("years-between(born, 2026-04-30)") == .number(35), "not yet the birthday")
        #expect(try value("visit > born") == .bool(true))
        #expect(try value("today() - visit") == .number(5))
        #expect(try value("days-between(visit, today())") == .number(5))
        #expect(try value("visit + 30") == .date(LocalDate(iso: "2026-12-20")!))
        #expect(try value("concat(name, ' (', phq_1 + phq_2, ')')") == .text("Amina (3)"))
        #expect(try value("min(phq_1, phq_2, 7)") == .number(1) && value("max(phq_1, phq_2)") == .number(2))
    }

    @Test func missingAnswersAndImpossibleOperationsHaveADocumentedResult() throws {
        #expect(try value("unanswered + 1") == .missing)
        #expect(
            try value("unanswered > 1") == .bool(false) && value("unanswered = 1") == .bool(false)
                && value("unanswered != 1") == .bool(false))
        #expect(try value("unanswered is not answered") == .bool(true) && value("weight is answered") == .bool(true))
        #expect(try value("coalesce(unanswered, phq_1)") == .number(2))
        #expect(try value("weight / zero") == .missing && value("weight mod zero") == .missing, "division by zero: missing, never a crash")
        #expect(try value("concat('x', unanswered)") == .text("x"))
        #expect(try value("if(unanswered, 1, 2)") == .number(2))
        #expect(try value("round(weight, 99)") == .missing)
        #expect(try value("visit + 99999999") == .missing, "a date out of range is missing")
        #expect(try value("name + 1") == .missing && value("name > 3") == .bool(false), "kinds that do not meet")
    }

    @Test func mistakesAreLocatedByColumn() {
        func error(_ text: String, column start: Int = 1) -> ExpressionError? {
            do {
                try Expression.parse(text, startColumn: start).check(questions: ["weight", "height", "symptoms"])
                return nil
            } catch {
                return error
            }
        }
        #expect(error("weight + ") == ExpressionError(column: 10, message: "a value is missing before end of the expression"))
        #expect(error("weight * (height + 1", column: 20)?.column == 40)
        #expect(error("weight ^ 2")?.column == 8)
        #expect(error("'open text")?.message == "this text is not closed")
        #expect(error("wieght(3)")?.message == "there is no function wieght()")
        #expect(error("round()")?.message == "round() takes 1 to 2 arguments, not 0")
        #expect(error("count-selected('x')")?.message == "count-selected() reads a question: give its id as the first argument")
        #expect(error("2026-02-30 > weight")?.message == "2026-02-30 is not a date")
        #expect(error("weight height")?.column == 8)
        #expect(
            error(String(repeating: "(", count: 100) + "1" + String(repeating: ")", count: 100))?.message.contains("nests deeper") == true)
        #expect(error("weight > 3 and symptoms = fever or not (height < 2)") == nil)
    }

    @Test(arguments: 0..<4) func anyLineParsesOrFailsWithALocatedErrorNeverACrash(_ seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed + 1))
        let pieces = [
            "weight", "(", ")", "+", "-", "*", "/", "=", "!=", "<", "and", "or", "not", "1", "2.5", "'a'", "\"b", ",", "if", "round",
            "is", "answered", "2026-01-01", "count-selected", "mod", "é", "!", " ", ".", "number", "today()",
        ]
        // scripts/fuzz sets INTAKE_FUZZ_COUNT for a long run.
        for _ in 0..<(TestSeed.count(8000) / 4) {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined(
                separator: " ")
            do {
                let parsed = try Expression.parse(text)
                _ = ExpressionEvaluator(today: Self.today).evaluate(parsed.resolved(questions: ["weight"])) { Self.answers[$0] }
                // What it prints reads back as the same expression.
                #expect(try Expression.parse(parsed.description).description == parsed.description, "\(text)")
            } catch {
                #expect(error.column >= 1 && error.column <= text.count + 1, "\(text): \(error)")
            }
        }
    }
}
