import Foundation

@testable import IntakeCore

/// Random valid records for property tests: every answer type, and strings with quotes,
/// backslashes, control characters, right-to-left text and characters beyond the BMP.
struct RandomRecords {
    var random: SeededGenerator
    /// Leaves U+FEFF out of strings, for readers that drop it.
    var withoutByteOrderMarks = false

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    private static let pieces = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "ß", "مرحبا", "שלום",
        "😀", "\u{2028}", "\u{FEFF}", "{", "}", "[", "]", ",", ":", "=1+1", ".",
    ]

    mutating func string(maxPieces: Int = 8) -> String {
        let text = (0..<Int.random(in: 0...maxPieces, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
        return withoutByteOrderMarks ? text.replacingOccurrences(of: "\u{FEFF}", with: "") : text
    }

    mutating func date() -> LocalDate {
        LocalDate(ordinal: Int.random(in: 0..<(LocalDate(year: 9999, month: 12, day: 31)!.ordinal), using: &random))
    }

    mutating func answer(depth: Int = 0) -> Answer {
        switch Int.random(in: 0..<(depth == 0 ? 9 : 8), using: &random) {
        case 0: return .text(string())
        case 1: return .integer(Int.random(in: Int.min...Int.max, using: &random))
        case 2:
            let value = Double(bitPattern: random.next())
            return .decimal(value.isFinite ? value : Double.random(in: -1e6...1e6, using: &random))
        case 3: return .date(date())
        case 4: return .yesNo(Bool.random(using: &random))
        case 5: return .choice(string(maxPieces: 3))
        case 6: return .choices((0..<Int.random(in: 0...4, using: &random)).map { _ in string(maxPieces: 3) })
        case 7:
            // A place (record format 2), with or without altitude and accuracy.
            return .geopoint(
                GeoPoint(
                    latitude: Double.random(in: -90...90, using: &random), longitude: Double.random(in: -180...180, using: &random),
                    altitude: Bool.random(using: &random) ? Double.random(in: -500...9000, using: &random) : nil,
                    accuracy: Bool.random(using: &random) ? Double.random(in: 0...5000, using: &random) : nil))
        default:
            var fields: [String: Answer] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) { fields[string(maxPieces: 3)] = answer(depth: depth + 1) }
            return .dictionary(fields)
        }
    }

    mutating func record() -> PatientResponse {
        var answers: [Int: [Int: Answer]] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            let section = Int.random(in: 1...12, using: &random)
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                answers[section, default: [:]][Int.random(in: 1...40, using: &random)] = answer()
            }
        }
        let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_299_799_999, using: &random)
        let created = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        let id = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        var record = PatientResponse(
            id: id, questionnaire: QuestionnaireReference(id: string(), version: string()),
            patient: PatientIdentification(
                givenName: string(), familyName: string(), dateOfBirth: Bool.random(using: &random) ? date() : nil,
                sex: PatientIdentification.Sex.allCases.randomElement(using: &random),
                externalId: Bool.random(using: &random) ? string() : nil),
            answers: answers, status: Bool.random(using: &random) ? .draft : .complete, collector: string(), deviceId: string(),
            language: Bool.random(using: &random) ? string(maxPieces: 2) : nil, createdAt: created,
            updatedAt: Date(timeIntervalSince1970: Double(milliseconds + Int64.random(in: 0...1_000_000, using: &random)) / 1000),
            patientId: Int.random(in: 0..<3, using: &random) == 0
                ? UUID(
                    uuid: (
                        bytes[15], bytes[14], bytes[13], bytes[12], bytes[11], bytes[10], bytes[9], bytes[8], bytes[7], bytes[6], bytes[5],
                        bytes[4],
                        bytes[3], bytes[2], bytes[1], bytes[0]
                    )) : nil)
        // Drawn last, so the draws before it make the records they made before cases.
        if Int.random(in: 0..<4, using: &random) == 0 {
            var properties: [Int: Answer] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) { properties[Int.random(in: 1...12, using: &random)] = answer() }
            let lists = ["follow-up", "pregnancy", "tb_treatment", "a"]
            record.caseLink = CaseLink(
                id: UUID(
                    uuid: (
                        bytes[8], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[0], bytes[9], bytes[10],
                        bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                    )),
                list: lists.randomElement(using: &random)!, revision: Int.random(in: 1...40, using: &random), properties: properties)
        }
        return record
    }
}

/// A seed from `INTAKE_TEST_SEED` when set (to re-run a failure), else a fresh one; printed either way.
enum TestSeed {
    static func make(_ name: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["INTAKE_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("\(name): seed \(seed) (re-run with INTAKE_TEST_SEED=\(seed))")
        return seed
    }

    /// `INTAKE_FUZZ_COUNT` when set (scripts/fuzz sets a million), else `standard`.
    static func count(_ standard: Int) -> Int {
        ProcessInfo.processInfo.environment["INTAKE_FUZZ_COUNT"].flatMap(Int.init) ?? standard
    }
}
