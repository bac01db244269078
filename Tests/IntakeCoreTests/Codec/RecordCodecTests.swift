import Foundation
import Testing

@testable import IntakeCore

struct RecordCodecTests {
    @Test func randomRecordsRoundTripAndWriteTheSameBytesAgain() throws {
        var records = RandomRecords(seed: TestSeed.make("round trip"))
        for _ in 0..<TestSeed.count(3000) / 3 {
            let record = records.record()
            let bytes = RecordCodec.encode(record)
            let read = try RecordCodec.decode(bytes)
            #expect(read == record)
            #expect(RecordCodec.encode(read) == bytes)
        }
    }

    @Test func aStringHoldingANulIsRefusedAndSaysWhere() throws {
        var records = RandomRecords(seed: 7)
        var record = records.record()
        record.patient.familyName = "Had\u{0}dad"
        let error = #expect(throws: JSONReadError.self) { _ = try RecordCodec.decode(RecordCodec.encode(record)) }
        #expect(error?.path == "patient.familyName" && error?.message.contains("NUL") == true)
    }

    /// Foundation's own JSON reader, an independent one, reads the canonical bytes as the same
    /// values. (It drops U+FEFF inside strings, so the records given to it have none.)
    @Test func canonicalBytesAreJSONThatFoundationReadsAlike() throws {
        var records = RandomRecords(seed: TestSeed.make("foundation"))
        records.withoutByteOrderMarks = true
        for _ in 0..<300 {
            let record = records.record()
            let object = try #require(JSONSerialization.jsonObject(with: Data(RecordCodec.encode(record))) as? [String: Any])
            #expect(object["collector"] as? String == record.collector)
            #expect(object["id"] as? String == record.id.uuidString.lowercased())
            let patient = try #require(object["patient"] as? [String: Any])
            #expect((patient["givenName"] as? String ?? "") == record.patient.givenName)
            let answers = try #require(object["answers"] as? [String: [String: [String: Any]]])
            #expect(answers.values.reduce(0) { $0 + $1.count } == record.answerCount)
            for (position, answer) in record.allAnswers {
                let json = try #require(answers[String(position.section)]?[String(position.index)])
                if case .text(let text) = answer { #expect(json["text"] as? String == text) }
                if case .integer(let number) = answer { #expect((json["integer"] as? NSNumber)?.int64Value == Int64(number)) }
            }
        }
    }

    @Test func canonicalFormIsSortedCompactAndDocumented() throws {
        let record = PatientResponse(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, questionnaire: QuestionnaireReference(id: "q", version: "v1"),
            patient: PatientIdentification(givenName: "A\"b", familyName: "", sex: .female),
            answers: [10: [2: .decimal(500)], 2: [10: .integer(-3), 9: .choices(["x", "y"])]], status: .complete, collector: "c/d",
            deviceId: "dev", createdAt: Date(timeIntervalSince1970: 1_763_789_948.123),
            updatedAt: Date(timeIntervalSince1970: 1_763_789_948))
        let text = String(decoding: RecordCodec.encode(record), as: UTF8.self)
        #expect(
            text
                == #"{"answers":{"2":{"9":{"choices":["x","y"]},"10":{"integer":-3}},"10":{"2":{"decimal":500.0}}},"collector":"c/d","createdAt":"2025-11-22T05:39:08.123Z","deviceId":"dev","format":1,"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","patient":{"givenName":"A\"b","sex":"female"},"questionnaire":{"id":"q","version":"v1"},"status":"complete","updatedAt":"2025-11-22T05:39:08.000Z"}"#
        )
    }

    /// A geopoint is format 2; a record without one stays format 1, byte for byte as before.
    @Test func aGeopointMakesTheRecordFormat2AndOnlyThen() throws {
        var record = PatientResponse(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, questionnaire: QuestionnaireReference(id: "q", version: "v1"),
            answers: [1: [1: .integer(3)]], status: .draft, collector: "c", deviceId: "d", createdAt: Date(timeIntervalSince1970: 0))
        #expect(String(decoding: RecordCodec.encode(record), as: UTF8.self).contains(#""format":1,"#))
        record[QuestionPosition(section: 1, index: 2)] = .geopoint(GeoPoint(latitude: 31.9539, longitude: 35.9106, accuracy: 5))
        let text = String(decoding: RecordCodec.encode(record), as: UTF8.self)
        #expect(text.contains(#""2":{"geopoint":{"accuracy":5.0,"latitude":31.9539,"longitude":35.9106}}"#), "\(text)")
        #expect(text.contains(#""format":2,"#))
        #expect(try RecordCodec.decode(Array(text.utf8)) == record)
        // A record saying format 1 that holds a geopoint is read, and written as the format 2 it is.
        let mislabelled = try RecordCodec.decode(Array(text.replacingOccurrences(of: #""format":2"#, with: #""format":1"#).utf8))
        #expect(RecordCodec.encode(mislabelled) == Array(text.utf8))
        // A place off the Earth is refused; unknown parts are refused.
        for (bad, expected) in [
            (text.replacingOccurrences(of: "31.9539", with: "91.5"), "latitude is not between -90 and 90"),
            (text.replacingOccurrences(of: #""accuracy":5.0"#, with: #""accuracy":-1"#), "accuracy is negative"),
            (text.replacingOccurrences(of: #""accuracy":5.0"#, with: #""heading":5.0"#), "not 'heading'"),
            (text.replacingOccurrences(of: #""latitude":31.9539,"#, with: ""), "needs a latitude and a longitude"),
        ] {
            let error = #expect(throws: JSONReadError.self) { _ = try RecordCodec.decode(Array(bad.utf8)) }
            #expect(error?.message.contains(expected) == true, "\(error?.description ?? "") for \(bad)")
        }
    }

    @Test(arguments: [
        ("31.9539, 35.9106", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("31.9539 35.9106 812 4.5", GeoPoint(latitude: 31.9539, longitude: 35.9106, altitude: 812, accuracy: 4.5)),
        ("geo:31.9539,35.9106;u=10", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("https://www.google.com/maps/@31.9539,35.9106,15z", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("https://maps.google.com/?q=-1.2921,36.8219", GeoPoint(latitude: -1.2921, longitude: 36.8219)),
        ("https://www.openstreetmap.org/#map=16/31.9539/35.9106", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("31°57'36\"N 35°54'36\"E", GeoPoint(latitude: 31.96, longitude: 35.91)),
        ("S 1°17.526' E 36°49.314'", GeoPoint(latitude: -(1 + 17.526 / 60), longitude: 36 + 49.314 / 60)),
        ("https://maps.google.com/?q=31.9539,35.9106&z=15", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("https://maps.apple.com/?ll=31.9539,35.9106&q=Amman", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("https://www.openstreetmap.org/?mlat=31.9539&mlon=35.9106#map=16/31.9/35.9", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("https://www.google.com/maps/search/?api=1&query=31.9539%2C35.9106", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("https://www.google.com/maps/place/عمان/@31.9539,35.9106,12z/data=!3m1", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("31.9539,35.9106", GeoPoint(latitude: 31.9539, longitude: 35.9106)),
        ("geo:31.9539,35.9106,812", GeoPoint(latitude: 31.9539, longitude: 35.9106, altitude: 812)),
    ])
    func placesAreReadInTheUsualForms(text: String, expected: GeoPoint) throws {
        let point = try #require(GeoPoint(parsing: text), "\(text)")
        #expect(abs(point.latitude - expected.latitude) < 1e-9 && abs(point.longitude - expected.longitude) < 1e-9, "\(text) → \(point)")
        #expect(point.altitude == expected.altitude && point.accuracy == expected.accuracy)
    }

    @Test(arguments: [
        "", "31.95", "91, 35", "31.9, 181", "here", "31.9, 35.9, 800, -3", "31°57'N", "1,2,3,4,5", "31,95 35,91", "31,95, 35,91",
        "https://maps.google.com/?q=31,95,35,91", "https://example.org/",
    ])
    func whatIsNotAPlaceIsRefused(text: String) {
        #expect(GeoPoint(parsing: text) == nil, "\(text)")
    }

    @Test func aPatientIdIsWrittenInItsSortedPlaceAndReadBack() throws {
        let record = PatientResponse(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, questionnaire: QuestionnaireReference(id: "q", version: "v1"),
            status: .draft, collector: "c", deviceId: "d", createdAt: Date(timeIntervalSince1970: 0),
            patientId: UUID(uuidString: "0B4F6C1E-2D3A-4E5F-8A9B-1C2D3E4F5A6B")!)
        let text = String(decoding: RecordCodec.encode(record), as: UTF8.self)
        #expect(text.contains(#""patient":{},"patientId":"0b4f6c1e-2d3a-4e5f-8a9b-1c2d3e4f5a6b","questionnaire":"#), "\(text)")
        #expect(try RecordCodec.decode(Array(text.utf8)) == record)
        let bad = text.replacingOccurrences(of: "0b4f6c1e-2d3a-4e5f-8a9b-1c2d3e4f5a6b", with: "not-a-uuid")
        let error = #expect(throws: JSONReadError.self) { _ = try RecordCodec.decode(Array(bad.utf8)) }
        #expect(error?.message.contains("patient id") == true && error?.message.contains("not-a-uuid") == false)
        let twice = text.replacingOccurrences(
            of: #","questionnaire":"#, with: #","patientId":"0b4f6c1e-2d3a-4e5f-8a9b-1c2d3e4f5a6b","questionnaire":"#)
        #expect(throws: JSONReadError.self) { _ = try RecordCodec.decode(Array(twice.utf8)) }
    }

    @Test(arguments: [
        (#"{"format":1,"format":1}"#, "appears twice"),
        (#"{"format":1,}"#, "trailing comma"),
        (#"{"answers":{"01":{}}}"#, "whole numbers from 1"),
        (#"{"answers":{"+1":{}}}"#, "whole numbers from 1"),
        (#"{"answers":{"1":{"1":{"text":"a"},"1":{"text":"b"}}}}"#, "appears twice"),
        (#"{"answers":{"1":{"1":{"text":"a","integer":1}}}}"#, "exactly one key"),
        (#"{"answers":{"1":{"1":{"integer":1.5}}}}"#, "has a fraction"),
        (#"{"answers":{"1":{"1":{"integer":1e-1}}}}"#, "has a fraction"),
        (#"{"answers":{"1":{"1":{"integer":1e19}}}}"#, "too large"),
        (#"{"answers":{"1":{"1":{"choices":["a",]}}}}"#, "trailing comma"),
        (#"{"createdAt":"2026-02-30T00:00:00.000Z"}"#, "RFC 3339 time that exists"),
        (#"{"createdAt":"2026-01-01T24:00:00+01:00"}"#, "RFC 3339 time that exists"),
        (#"{"createdAt":"2026-01-01T00:00:00+24:00"}"#, "RFC 3339 time that exists"),
        (#"{"createdAt":"2026-01-01 00:00:00Z"}"#, "RFC 3339 time that exists"),
        (#"{"createdAt":"2026-01-01T00:00:00.Z"}"#, "RFC 3339 time that exists"),
        (#"{"patient":{"dateOfBirth":"+990-01-01"}}"#, "date that exists"),
        (#"{"collector":"\ud800"}"#, "surrogate"),
        (#"{"format":3}"#, "newer than this Intake reads"),
        (#"{"format":0}"#, "format is 1"),
        (#"{"nickname":"x"}"#, "unknown key 'nickname'"),
        (#"{"format":01}"#, "leading zero"),
        (#"{"format":1"#, "ends early"),
        (#"{"id":"not-a-uuid"}"#, "UUID"),
    ])
    func rejectsWhatIsNotStrictlyARecordAndSaysWhere(json: String, expected: String) {
        do {
            _ = try RecordCodec.decode(Array(json.utf8))
            Issue.record("read \(json)")
        } catch {
            #expect(error.message.contains(expected), "\(json): \(error.description)")
            #expect(error.offset >= 0 && error.offset <= json.utf8.count)
        }
    }

    @Test func rejectsEncodingsOtherThanUTF8() throws {
        let record = Array(RecordCodec.encode(PatientResponseExamples.minimal))
        for (bytes, expected) in [
            ([0xEF, 0xBB, 0xBF] + record, "byte order mark"),
            (Array(String(decoding: record, as: UTF8.self).utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), "UTF-16 or UTF-32"),
            (Array(record[..<20]) + [0xC3, 0x28] + Array(record[20...]), "not valid UTF-8"),
            (record + Array(" x".utf8), "after the end"),
        ] {
            #expect(throws: JSONReadError.self) { try RecordCodec.decode(bytes) }
            do { _ = try RecordCodec.decode(bytes) } catch { #expect(error.message.contains(expected), "\(error)") }
        }
    }

    @Test func errorsNameThePathButNeverTheValue() {
        let json = #"{"answers":{"3":{"7":{"integer":"secret-value"}}}}"#
        do {
            _ = try RecordCodec.decode(Array(json.utf8))
            Issue.record("read it")
        } catch {
            #expect(error.path == "answers.3.7.integer")
            #expect(!error.description.contains("secret"))
        }
    }

    /// Random and mutated bytes never crash the reader, and every refusal says where.
    @Test func mutatedRecordsNeverCrashAndAlwaysGiveALocatedError() {
        let seed = TestSeed.make("mutations")
        var records = RandomRecords(seed: seed)
        var random = SeededGenerator(seed: seed &+ 1)
        let alphabet = Array("{}[]\":,0123456789.eE-+ tfnulrsa\\/\u{0}é".utf8) + [0xFF, 0xC3, 0xEF, 0xBB, 0xBF]
        var refused = 0
        let count = TestSeed.count(20_000)
        var base = Array(RecordCodec.encode(records.record()))
        for round in 0..<count {
            if round % 50 == 0 { base = Array(RecordCodec.encode(records.record())) }
            var bytes = base
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[position] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: position)
                default: bytes = Array(bytes[..<position])
                }
            }
            do {
                let record = try RecordCodec.decode(bytes)
                #expect(try RecordCodec.decode(RecordCodec.encode(record)) == record)
            } catch {
                refused += 1
                #expect(error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) of \(bytes.count)")
                #expect(!error.message.isEmpty)
            }
        }
        #expect(refused > count / 2)
    }
}

enum PatientResponseExamples {
    static let minimal = PatientResponse(
        id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, questionnaire: QuestionnaireReference(id: "q", version: "v"),
        collector: "c", deviceId: "d", createdAt: Date(timeIntervalSince1970: 1_763_789_948.123))
}
