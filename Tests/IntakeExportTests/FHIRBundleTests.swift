import Foundation
import IntakeCore
import Testing

@testable import IntakeExport

struct FHIRBundleTests {
    typealias Object = [String: Any]

    @Test func bundleHoldsAQuestionnairePerVersionThenAResponsePerRecordEachWithAFullUrl() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1, v2])
        let records = [Fixtures.record(v1, [1: .yesNo(true), 2: .integer(4)]), Fixtures.record(v2, [1: .yesNo(false), 3: .yesNo(true)])]
        let bundle = try self.bundle(plan, records)
        #expect(bundle["resourceType"] as? String == "Bundle" && bundle["type"] as? String == "collection")
        let resources = try entries(bundle)
        #expect(
            resources.map { $0["resourceType"] as? String } == [
                "Questionnaire", "Questionnaire", "QuestionnaireResponse", "QuestionnaireResponse",
            ])
        #expect(resources[0]["version"] as? String == v1.version && resources[0]["url"] as? String == "urn:intake:questionnaire:clinic")
        #expect(resources[2]["questionnaire"] as? String == "urn:intake:questionnaire:clinic|\(v1.version)")
        #expect(resources[3]["questionnaire"] as? String == "urn:intake:questionnaire:clinic|\(v2.version)")
        #expect(resources[2]["status"] as? String == "completed" && resources[2]["authored"] as? String == "2026-11-18T11:21:40.500Z")
        // Every entry has a fullUrl (the HL7 validator requires one), the same for a version in every export.
        let urls = (bundle["entry"] as? [Object] ?? []).map { $0["fullUrl"] as? String }
        #expect(urls.count == 4 && urls.allSatisfy { $0?.hasPrefix("urn:uuid:") == true } && Set(urls).count == 4)
        #expect((try self.bundle(plan, [])["entry"] as? [Object])?.first?["fullUrl"] as? String == urls[0])
    }

    @Test func questionnaireItemsAreTypedWithOptionsRangesTranslationsAndEnableWhen() throws {
        let (v1, _) = try Fixtures.versions()
        let questionnaire = try entries(try bundle(try ExportPlan(questionnaires: [v1]), []))[0]
        let section = try #require((questionnaire["item"] as? [Object])?.first)
        #expect(section["type"] as? String == "group" && section["linkId"] as? String == "section-1")
        let items = try #require(section["item"] as? [Object])
        #expect(items.map { $0["linkId"] as? String } == ["cough", "cough_days", "symptoms", "weight", "meds", "visits", "notes", "s1_q8"])
        #expect(items.map { $0["type"] as? String } == ["boolean", "integer", "choice", "integer", "group", "integer", "text", "text"])
        #expect(items[0]["required"] as? Bool == true && items[2]["repeats"] as? Bool == true)
        let when = try #require((items[1]["enableWhen"] as? [Object])?.first)
        #expect(when["question"] as? String == "cough" && when["operator"] as? String == "=" && when["answerBoolean"] as? Bool == true)
        let options = try #require(items[2]["answerOption"] as? [Object])
        #expect(options.compactMap { ($0["valueCoding"] as? Object)?["code"] as? String } == ["fever", "rash"])
        let fields = try #require(items[4]["item"] as? [Object])
        #expect(fields.map { $0["linkId"] as? String } == ["meds.name", "meds.dose", "meds.unit"])
        #expect(fields.map { $0["type"] as? String } == ["text", "decimal", "choice"])
        let ranges = try #require(items[3]["extension"] as? [Object])
        #expect(ranges.compactMap { $0["valueInteger"] as? Int } == [1, 300])
        let translation = try #require(((items[0]["_text"] as? Object)?["extension"] as? [Object])?.first)
        #expect("\(translation)".contains("هل لديك سعال؟"))
    }

    @Test func conditionsFHIRCannotSayBecomeAnExpression() throws {
        let questionnaire = try Fixtures.questionnaire(
            """
            Cough | id: cough | yesno
            Fever | id: fever | yesno
            Days | id: days | integer | show if: cough = yes or fever = yes
            Why not | id: why | text | show if: not (cough = yes and fever = yes)
            """)
        let items = try #require(
            ((try entries(try bundle(try ExportPlan(questionnaires: [questionnaire]), []))[0]["item"] as? [Object])?.first?["item"])
                as? [Object])
        #expect((items[2]["enableWhen"] as? [Object])?.count == 2 && items[2]["enableBehavior"] as? String == "any")
        let expression = try #require((items[3]["extension"] as? [Object])?.first)
        #expect(expression["url"] as? String == FHIRQuestionnaire.expressionURL)
        let value = try #require((expression["valueExpression"] as? Object)?["expression"] as? String)
        #expect(value.hasSuffix(".not()") && value.contains("linkId = 'cough'") && value.contains("linkId = 'fever'"))
    }

    @Test func responsesCarryTypedAnswersInQuestionnaireOrderAndNoHiddenOnes() throws {
        let (v1, _) = try Fixtures.versions()
        let record = Fixtures.record(
            v1,
            [
                1: .yesNo(false), 2: .integer(9), 3: .choices(["fever", "rash"]),
                5: .dictionary(["dose": .decimal(2.5), "unit": .choice("mg")]),
                7: .text("hello"),
            ], status: .draft)
        let response = try entries(try bundle(try ExportPlan(questionnaires: [v1]), [record]))[1]
        #expect(response["status"] as? String == "in-progress")
        let items = try #require((response["item"] as? [Object])?.first?["item"] as? [Object])
        #expect(items.map { $0["linkId"] as? String } == ["cough", "symptoms", "meds", "notes"], "cough_days is hidden: left out")
        #expect((items[0]["answer"] as? [Object])?.first?["valueBoolean"] as? Bool == false)
        let codes = (items[1]["answer"] as? [Object])?.compactMap { ($0["valueCoding"] as? Object)?["code"] as? String }
        #expect(codes == ["fever", "rash"])
        let nested = try #require(items[2]["item"] as? [Object])
        #expect(nested.map { $0["linkId"] as? String } == ["meds.dose", "meds.unit"] && items[2]["answer"] == nil)
        #expect((items[3]["answer"] as? [Object])?.first?["valueString"] as? String == "hello")
        let subject = try #require(response["subject"] as? Object)
        #expect((subject["identifier"] as? Object)?["value"] as? String == Fixtures.item(record).patientKey)
        #expect(response["contained"] == nil)
        let text = try FHIRBundleFormatter(plan: try ExportPlan(questionnaires: [v1])).row(Fixtures.item(record))
        #expect(!text.contains("Amina") && !text.contains("Haddad"))
    }

    @Test func identifiersGoInAContainedPatientOnlyWhenAskedFor() throws {
        let (v1, _) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1], options: ExportOptions(includeIdentifiers: true))
        let record = Fixtures.record(v1, [1: .yesNo(true)])
        let response = try entries(try bundle(plan, [record], includeIdentifiers: true))[1]
        let patient = try #require((response["contained"] as? [Object])?.first)
        #expect(patient["gender"] as? String == "female" && patient["birthDate"] as? String == "1990-05-01")
        #expect((response["subject"] as? Object)?["reference"] as? String == "#patient")
    }

    private func bundle(_ plan: ExportPlan, _ records: [PatientResponse], includeIdentifiers: Bool = false) throws -> Object {
        let formatter = FHIRBundleFormatter(plan: plan)
        var text = formatter.header()
        for record in records { text += try formatter.row(Fixtures.item(record, includeIdentifiers: includeIdentifiers)) }
        text += formatter.footer()
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? Object)
    }

    private func entries(_ bundle: Object) throws -> [Object] {
        try #require((bundle["entry"] as? [Object])?.compactMap { $0["resource"] as? Object })
    }
}
