import Foundation
import Testing

@testable import IntakeCore

struct PatientResponseTests {
    static let example = PatientResponse(
        id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!,
        questionnaire: QuestionnaireReference(id: "refugee-health", version: "0123456789abcdef"),
        patient: PatientIdentification(
            givenName: "Amina", familyName: "Haddad", dateOfBirth: LocalDate(iso: "1990-05-01"), sex: .female,
            externalId: "CASE-1"),
        answers: [
            1: [1: .choice("SY"), 8: .integer(4)],
            2: [5: .dictionary(["name": .text("Metformin"), "dose": .decimal(500)])],
            3: [1: .choices(["cough", "fever"]), 7: .decimal(38.5), 6: .date(LocalDate(iso: "2024-01-01")!)],
            4: [4: .yesNo(true), 12: .text("Follow up in two weeks")],
        ],
        status: .complete, collector: "amina.h", deviceId: "device-1", language: "ar",
        createdAt: Date(timeIntervalSince1970: 1_763_789_948.123), updatedAt: Date(timeIntervalSince1970: 1_763_790_000.5))

    @Test func jsonRoundTripsExactly() throws {
        let data = try Self.example.jsonData()
        #expect(try PatientResponse(jsonData: data) == Self.example)
        #expect(try PatientResponse(jsonData: data).jsonData() == data)
    }

    @Test func jsonHasTheDocumentedShape() throws {
        let object = try #require(JSONSerialization.jsonObject(with: try Self.example.jsonData()) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "format", "id", "questionnaire", "patient", "answers", "status", "collector", "deviceId", "language", "createdAt",
                "updatedAt",
            ])
        #expect(object["format"] as? Int == 1)
        #expect(object["id"] as? String == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(object["createdAt"] as? String == "2025-11-22T05:39:08.123Z")
        let answers = try #require(object["answers"] as? [String: [String: [String: Any]]])
        #expect(answers["1"]?["8"]?["integer"] as? Int == 4)
        #expect(answers["3"]?["6"]?["date"] as? String == "2024-01-01")
        let patient = try #require(object["patient"] as? [String: Any])
        #expect(patient["dateOfBirth"] as? String == "1990-05-01")
        #expect(patient["sex"] as? String == "female")
    }

    @Test(arguments: [
        #"{"format": 2}"#,
        #"{"answers": {"1": {"1": {"text": "a", "integer": 1}}}}"#,
    ])
    func rejectsMalformedJSONWithAReason(json: String) {
        #expect(throws: JSONReadError.self) { try PatientResponse(jsonData: Data(json.utf8)) }
    }

    @Test func rejectsNonNumericAnswerKeys() throws {
        var object = try #require(JSONSerialization.jsonObject(with: try Self.example.jsonData()) as? [String: Any])
        object["answers"] = ["first": ["1": ["text": "x"]]]
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: JSONReadError.self) { try PatientResponse(jsonData: data) }
    }
}
