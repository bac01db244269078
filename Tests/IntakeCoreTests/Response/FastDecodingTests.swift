import Foundation
import Testing

@testable import IntakeCore

/// The hand-written JSON path must agree with JSONDecoder whenever it answers at all.
struct FastDecodingTests {
    @Test func sampleRecordsDecodeTheSameBothWays() throws {
        let questionnaire = try QuestionnaireLoader.load(
            directory: TestQuestionnaires.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 3)
        for index in 0..<500 {
            var record = generator.next()
            if index % 5 == 0 { record.status = .draft; record.patient = PatientIdentification() }
            let data = try record.jsonData()
            let fast = try #require(RawJSON.parse(data).flatMap(PatientResponse.init(raw:)), "the fast path reads every valid record")
            #expect(fast == record)
            #expect(fast == (try JSONDecoder().decode(PatientResponse.self, from: data)))
        }
    }

    @Test func mutatedRecordsAreEitherReadAlikeOrLeftToJSONDecoder() throws {
        let questionnaire = try QuestionnaireLoader.load(
            directory: TestQuestionnaires.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 4)
        var random = SeededGenerator(seed: 9)
        let alphabet = Array("{}[]\":,0123456789.eE-+ tfnulrsa\\/\u{0}é".utf8)
        var agreed = 0
        for _ in 0..<3000 {
            var bytes = Array(try generator.next().jsonData())
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: position)
                }
            }
            let data = Data(bytes)
            let slow = try? JSONDecoder().decode(PatientResponse.self, from: data)
            if let fast = RawJSON.parse(data).flatMap(PatientResponse.init(raw:)) {
                #expect(
                    fast == slow, "the fast path read something JSONDecoder reads differently: \(String(decoding: data, as: UTF8.self))")
                agreed += 1
            }
            #expect((try? PatientResponse(jsonData: data)) == slow)
        }
        #expect(agreed > 100, "the mutations leave many records readable")
    }

    @Test func numbersFollowJSONRules() {
        for bad in ["01", "+1", "1.", ".5", "1.e5", "-", "1e", "--1"] { #expect(RawJSON.parse(Data(bad.utf8)) == nil, "\(bad)") }
        if case .integer(let value)? = RawJSON.parse(Data("-12".utf8)) { #expect(value == -12) } else { Issue.record("-12") }
        if case .number(let value)? = RawJSON.parse(Data("2.5e1".utf8)) { #expect(value == 25) } else { Issue.record("2.5e1") }
    }
}
