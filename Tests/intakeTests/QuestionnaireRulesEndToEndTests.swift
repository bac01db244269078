import Crypto
import Foundation
import Testing

/// The questionnaire's rules with the built binary, as a field worker, a coordinator and a
/// researcher meet them: the bundled questionnaire is filled offline (a constraint refuses a
/// diastolic pressure above the systolic, the BMI and the PHQ-2 score are computed and shown, the
/// score's note appears, a place is pasted, two household members are recorded and reordered),
/// the queue is flushed, the self-harm alert reaches the coordinator's inbox, and the export
/// carries the calculated values, the place and each household member.
@Suite(.serialized)
struct QuestionnaireRulesEndToEndTests {
    /// A 1×1 PNG.
    static let photo =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

    @Test func aRecordFilledOfflineRaisesItsAlertAndExportsItsCalculationsAndPlace() throws {
        let intake = IntakeProcess()
        try intake.prepareClinic()

        // Offline: no server configured. A diastolic of 130 is refused with the questionnaire's message.
        var section3 = Answers.section3
        section3.insert("130", at: section3.firstIndex(of: "80")!)
        var section4 = Answers.section4
        section4[4] = "y"  // thoughts of self-harm
        // A household of three: two other members, the second moved before the first; a photo of
        // a document, first a file that is not one, then the photo (its path dragged in, quoted).
        let photo = Data(base64Encoded: Self.photo)!
        let photoPath = intake.dataDirectory.appendingPathComponent("passport scan.png")
        try photo.write(to: photoPath)
        let notPhoto = intake.dataDirectory.appendingPathComponent("notes.png")
        try Data("not a picture".utf8).write(to: notPhoto)
        var section1 = Array(Answers.section1.dropLast(7))
        section1[7] = "3"
        section1 += [
            "", "Lina", "spouse", "35", "n", "", "Omar", "child", "6", "", ":review", "2>1", "", notPhoto.path, "'\(photoPath.path)'",
        ]
        let fill = try intake.run(["fill"], input: Answers.patient + section1 + Answers.section2 + section3 + section4 + [":finish"])
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout.contains("The diastolic pressure must be below the systolic; check both readings"))
        #expect(fill.stdout.contains("Body mass index in kg/m²") && fill.stdout.contains("calculated: 22"), "60 kg at 165 cm")
        #expect(fill.stdout.contains("calculated: 3") && fill.stdout.contains("The PHQ-2 score is 3, 3 or more"), "1 + 2")
        #expect(fill.stdout.contains("Saved offline"))
        #expect(fill.stdout.contains("— Other members of the household who arrived with the patient: 2 of 2 —"), "\(fill.stdout)")
        #expect(fill.stdout.contains("[1.22 #2] Age in years *") && fill.stdout.contains("  #1  Lina, Spouse or partner"))
        #expect(fill.stdout.contains("Moved #2 to place 1."))
        #expect(fill.stdout.contains("That file is not a JPEG, PNG, WEBP file"), "\(fill.stdout)")
        #expect(fill.stdout.contains("  → photo (PNG, 1 KB, "))
        // Kept sealed on this machine: the photo's bytes are nowhere in the store in the clear.
        let storeBytes = try Data(contentsOf: intake.dataDirectory.appendingPathComponent("intake.sqlite"))
        #expect(storeBytes.range(of: photo.subdata(in: 16..<48)) == nil)

        let (server, port) = try intake.startServer(arguments: ["--publish", "refugee-health"])
        defer { server.terminate() }
        _ = try intake.run(
            ["login", "--server", "http://127.0.0.1:\(port)", "--username", "cora", "--password-stdin"], input: ["coordinator-1"])
        let flush = try intake.run(["flush"])
        #expect(flush.status == 0 && flush.stdout.contains("Uploaded: 1."), "\(flush.stdout)\(flush.stderr)")

        // The coordinator's inbox: the alert, with the record's id and no answer or name.
        let inbox = try intake.run(["inbox"])
        #expect(inbox.status == 0, "\(inbox.stderr)")
        #expect(inbox.stdout.contains("ALERT 1 of refugee-health (record "), "\(inbox.stdout)")
        // The message comes from the questionnaire on this machine, not from the server.
        #expect(inbox.stdout.contains("Urgent: a patient reported thoughts of self-harm; follow the urgent referral protocol"))
        #expect(!inbox.stdout.contains("Amina") && !inbox.stdout.contains("Haddad"))

        // The export: the calculated values and the place in the table, the place on the map.
        let folder = intake.dataDirectory.appendingPathComponent("export")
        let export = try intake.run(["export", "--out", folder.path])
        #expect(export.status == 0, "\(export.stderr)")
        let csv = try String(contentsOf: folder.appendingPathComponent("records.csv"), encoding: .utf8)
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let header = lines[0].components(separatedBy: ","), row = lines[1].components(separatedBy: ",")
        func value(_ column: String) -> String? { header.firstIndex(of: column).map { row[$0] } }
        #expect(value("bmi") == "22" && value("phq2_score") == "3" && value("self_harm") == "1", "\(lines[0])")
        #expect(
            value("district") == "ramtha"
                && value("visit_location_latitude").flatMap(Double.init).map { abs($0 - 31.953889) < 1e-5 } == true)
        // Each member: Omar first (moved), then Lina; one child among them; no name (identifying).
        #expect(value("household_members") == "2" && value("members_children") == "1", "\(lines[0])")
        #expect(value("member_age_1") == "6" && value("member_relationship_1") == "child" && value("member_age_2") == "35")
        let members = try String(contentsOf: folder.appendingPathComponent("repeat_household_members.csv"), encoding: .utf8)
        #expect(members.hasPrefix("record_id,instance,member_relationship,member_age,member_chronic,member_is_child\r\n"), "\(members)")
        #expect(members.contains(",1,child,6,.,1\r\n") && members.contains(",2,spouse,35,0,0\r\n"), "\(members)")
        #expect(!csv.contains("Lina") && !members.contains("Omar"))
        // The photo is identifying: the de-identified export neither lists nor holds it.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("attachments").path))
        #expect(
            try String(contentsOf: folder.appendingPathComponent("attachments.csv"), encoding: .utf8)
                == "record_id,question_id,instance,file,media_type,size,sha256\r\n")
        // With identifiers (a coordinator), the photo comes from the server, checked, beside the
        // records, listed and named by the FHIR bundle.
        let full = intake.dataDirectory.appendingPathComponent("export-identified")
        let identified = try intake.run(["export", "--out", full.path, "--include-identifiers"])
        #expect(
            identified.status == 0 && identified.stdout.contains("1 file(s) the records name are in attachments/."),
            "\(identified.stdout)\(identified.stderr)")
        let digest = SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined()
        #expect(try Data(contentsOf: full.appendingPathComponent("attachments/\(digest).png")) == photo)
        let list = try String(contentsOf: full.appendingPathComponent("attachments.csv"), encoding: .utf8)
        #expect(list.contains(",document_photo,,attachments/\(digest).png,image/png,\(photo.count),\(digest)\r\n"), "\(list)")
        let bundle = try String(contentsOf: full.appendingPathComponent("fhir-bundle.json"), encoding: .utf8)
        #expect(bundle.contains(#""valueAttachment":{"contentType":"image/png","url":"attachments/\#(digest).png""#))
        // Names asked in a repeat are identifying: no de-identified file has them, JSON Lines included.
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file != "records.xlsx" {
            // .sav and .dta hold their text as UTF-8 among binary fields: read as bytes.
            let text = String(decoding: try Data(contentsOf: folder.appendingPathComponent(file)), as: UTF8.self)
            #expect(!text.contains("Lina") && !text.contains("Omar"), "\(file)")
        }
        let places = try String(contentsOf: folder.appendingPathComponent("places.geojson"), encoding: .utf8)
        #expect(places.contains(#""coordinates":[35.91055"#) && places.contains(#""question_id":"visit_location""#), "\(places)")
    }
}
