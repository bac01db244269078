import Foundation
import IntakeCore
import IntakeExport

/// Two versions of a small questionnaire, and records for them.
///
/// Version 2 drops `weight`, adds `smoker` after `cough_days`, adds the choice `cough` to
/// `symptoms`, turns `visits` from integer to decimal and `notes` into a yes/no question.
enum Fixtures {
    static let manifest = "id: clinic\ntitle: Clinic\ntitle.ar: عيادة\nformat: 1\nlanguages: en, ar\n"

    static let version1 = """
        @title Main
        Do you have a cough? | id: cough | yesno | required
        For how many days? | id: cough_days | integer 0..365 | show if: cough = yes
        Symptoms | id: symptoms | multiple: fever=Fever, rash=Rash
        Weight in kg | id: weight | integer 1..300
        Medication | id: meds | compound: name* text; dose decimal 0..5000; unit single: mg=mg, ml=ml
        Visits this year | id: visits | integer 0..100
        Anything else, in your words | id: notes | text
        Seen before
        """

    static let version2 = """
        @title Main
        Do you have a cough? | id: cough | yesno | required
        For how many days? | id: cough_days | integer 0..365 | show if: cough = yes
        Do you smoke? | id: smoker | yesno
        Symptoms | id: symptoms | multiple: fever=Fever, rash=Rash, cough=Cough
        Medication | id: meds | compound: name* text; dose decimal 0..5000; unit single: mg=mg, ml=ml
        Visits this year | id: visits | decimal 0..100
        Anything else, in your words | id: notes | yesno
        Seen before
        """

    static let arabic1 = """
        @title رئيسي
        هل لديك سعال؟ | id: cough
        منذ كم يوماً؟ | id: cough_days
        الأعراض | id: symptoms | labels: fever=حمى, rash=طفح
        الوزن | id: weight
        الدواء | id: meds
        الزيارات | id: visits
        شيء آخر | id: notes
        زيارة سابقة
        """

    static func questionnaire(_ section: String, arabic: String? = nil) throws -> Questionnaire {
        func file(_ name: String, _ text: String) -> (String, QuestionnaireFiles.File) {
            (name, QuestionnaireFiles.File(path: name, bytes: Array(text.utf8)))
        }
        let manifest = arabic == nil ? manifest.replacingOccurrences(of: "languages: en, ar\n", with: "") : manifest
        var files = Dictionary(uniqueKeysWithValues: [file("manifest.txt", manifest), file("1-main.txt", section)])
        if let arabic { files["1-main.ar.txt"] = file("1-main.ar.txt", arabic).1 }
        return try QuestionnaireLoader.load(QuestionnaireFiles(directory: "clinic", files: files))
    }

    static func versions() throws -> (Questionnaire, Questionnaire) {
        (try questionnaire(version1, arabic: arabic1), try questionnaire(version2))
    }

    static func record(_ questionnaire: Questionnaire, _ answers: [Int: Answer], status: PatientResponse.Status = .complete)
        -> PatientResponse
    {
        var record = PatientResponse(
            id: UUID(), questionnaire: questionnaire.reference,
            patient: PatientIdentification(
                givenName: "Amina", familyName: "Haddad", dateOfBirth: LocalDate(year: 1990, month: 5, day: 1), sex: .female,
                externalId: "CASE-7"),
            status: status, collector: "amina.h", deviceId: "device-1",
            createdAt: Date(timeIntervalSince1970: 1_795_000_000), updatedAt: Date(timeIntervalSince1970: 1_795_000_900.5))
        for (index, answer) in answers { record[QuestionPosition(section: 1, index: index)] = answer }
        return record
    }

    static let secret = Data((0..<32).map { UInt8($0) })

    static func item(_ record: PatientResponse, includeIdentifiers: Bool = false) -> ExportRecord {
        ExportRecord(record, revision: 1, keyer: try! PatientKeyer(secret: secret), includeIdentifiers: includeIdentifiers)
    }
}

/// A strict RFC 4180 reader for checking output: quoted fields, doubled quotes, CRLF line ends.
enum CSVReader {
    static func rows(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var index = text.unicodeScalars.startIndex
        let scalars = text.unicodeScalars
        var atFieldStart = true
        while index < scalars.endIndex {
            let c = scalars[index]
            if quoted {
                if c == "\"" {
                    let next = scalars.index(after: index)
                    if next < scalars.endIndex, scalars[next] == "\"" {
                        field.unicodeScalars.append("\"")
                        index = next
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                guard atFieldStart else { throw CSVError.strayQuote(rows.count + 1) }
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
                atFieldStart = true
                index = scalars.index(after: index)
                continue
            } else if c == "\r" {
                let next = scalars.index(after: index)
                guard next < scalars.endIndex, scalars[next] == "\n" else { throw CSVError.bareCarriageReturn(rows.count + 1) }
                row.append(field)
                rows.append(row)
                row = []
                field = ""
                atFieldStart = true
                index = scalars.index(after: next)
                continue
            } else if c == "\n" {
                throw CSVError.bareLineFeed(rows.count + 1)
            } else {
                field.unicodeScalars.append(c)
            }
            atFieldStart = false
            index = scalars.index(after: index)
        }
        guard !quoted else { throw CSVError.unterminatedQuote }
        if !row.isEmpty || !field.isEmpty { throw CSVError.missingFinalLineEnd }
        return rows
    }

    enum CSVError: Error { case strayQuote(Int), bareCarriageReturn(Int), bareLineFeed(Int), unterminatedQuote, missingFinalLineEnd }

    /// Rows as dictionaries by header name.
    static func table(_ text: String) throws -> [[String: String]] {
        let all = try rows(text)
        guard let header = all.first else { return [] }
        return all.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }
}
