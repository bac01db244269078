import Foundation

/// One patient's record: identification and the answers to every section, by question index.
///
/// Every section of the form reads and updates this one value. Its JSON is documented in
/// `docs/record-format.md` and stays stable across releases; ``formatVersion`` changes when it
/// cannot.
public struct PatientResponse: Hashable, Sendable, Identifiable {
    public static let formatVersion = 1

    public var id: UUID
    public var questionnaire: QuestionnaireReference
    public var patient: PatientIdentification
    /// Answers by section number, then by 1-based question index within the section.
    public var answers: [Int: [Int: Answer]]
    public var status: Status
    /// Who collected the record (a user name).
    public var collector: String
    /// Which device collected it.
    public var deviceId: String
    /// The language the form was filled in, if not the questionnaire's base language.
    public var language: String?
    public var createdAt: Date
    public var updatedAt: Date

    public enum Status: String, Hashable, Sendable, Codable {
        case draft, complete
    }

    public init(
        id: UUID = UUID(), questionnaire: QuestionnaireReference, patient: PatientIdentification = .init(),
        answers: [Int: [Int: Answer]] = [:], status: Status = .draft, collector: String, deviceId: String,
        language: String? = nil, createdAt: Date = PatientResponse.now(), updatedAt: Date? = nil
    ) {
        self.id = id
        self.questionnaire = questionnaire
        self.patient = patient
        self.answers = answers
        self.status = status
        self.collector = collector
        self.deviceId = deviceId
        self.language = language
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    public subscript(position: QuestionPosition) -> Answer? {
        get { answers[position.section]?[position.index] }
        set {
            answers[position.section, default: [:]][position.index] = newValue
            if answers[position.section]?.isEmpty == true { answers[position.section] = nil }
        }
    }

    /// Every answer with its position, in questionnaire order.
    public var allAnswers: [(position: QuestionPosition, answer: Answer)] {
        answers.flatMap { section, byIndex in
            byIndex.map { (QuestionPosition(section: section, index: $0.key), $0.value) }
        }.sorted { $0.position < $1.position }
    }

    public var answerCount: Int { answers.values.reduce(0) { $0 + $1.count } }

    /// The current time at the millisecond precision the JSON keeps, so records round-trip exactly.
    public static func now() -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// Marks the record as changed now.
    public mutating func touch() {
        updatedAt = max(Self.now(), updatedAt)
    }
}

extension PatientResponse: Codable {
    private enum Key: String, CodingKey {
        case format, id, questionnaire, patient, answers, status, collector, deviceId, language, createdAt, updatedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let format = try c.decode(Int.self, forKey: .format)
        guard format <= Self.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: c,
                debugDescription: "record format \(format) is newer than this Intake reads (\(Self.formatVersion)); update Intake")
        }
        id = try c.decode(UUID.self, forKey: .id)
        questionnaire = try c.decode(QuestionnaireReference.self, forKey: .questionnaire)
        patient = try c.decode(PatientIdentification.self, forKey: .patient)
        let sections = try c.decode([String: [String: Answer]].self, forKey: .answers)
        answers = [:]
        for (sectionKey, byIndex) in sections {
            guard let section = Int(sectionKey), section > 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .answers, in: c, debugDescription: "section keys are numbers from 1; found '\(sectionKey)'")
            }
            for (indexKey, answer) in byIndex {
                guard let index = Int(indexKey), index > 0 else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .answers, in: c, debugDescription: "question keys are numbers from 1; found '\(indexKey)'")
                }
                answers[section, default: [:]][index] = answer
            }
        }
        status = try c.decode(Status.self, forKey: .status)
        collector = try c.decode(String.self, forKey: .collector)
        deviceId = try c.decode(String.self, forKey: .deviceId)
        language = try c.decodeIfPresent(String.self, forKey: .language)
        createdAt = try Self.decodeTimestamp(c, .createdAt)
        updatedAt = try Self.decodeTimestamp(c, .updatedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(Self.formatVersion, forKey: .format)
        try c.encode(id.uuidString.lowercased(), forKey: .id)
        try c.encode(questionnaire, forKey: .questionnaire)
        try c.encode(patient, forKey: .patient)
        var sections: [String: [String: Answer]] = [:]
        for (section, byIndex) in answers {
            sections[String(section)] = Dictionary(uniqueKeysWithValues: byIndex.map { (String($0.key), $0.value) })
        }
        try c.encode(sections, forKey: .answers)
        try c.encode(status, forKey: .status)
        try c.encode(collector, forKey: .collector)
        try c.encode(deviceId, forKey: .deviceId)
        try c.encodeIfPresent(language, forKey: .language)
        try c.encode(Timestamp.string(from: createdAt), forKey: .createdAt)
        try c.encode(Timestamp.string(from: updatedAt), forKey: .updatedAt)
    }

    private static func decodeTimestamp(_ c: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date {
        let text = try c.decode(String.self, forKey: key)
        guard let date = Timestamp.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "expected an ISO 8601 time such as 2026-11-22T05:19:08.123Z")
        }
        return date
    }
}

extension PatientResponse {
    /// Encodes as the documented JSON, keys sorted so equal records encode to equal bytes.
    public func jsonData(pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    public init(jsonData: Data) throws {
        if let raw = RawJSON.parse(jsonData), let record = PatientResponse(raw: raw) {
            self = record
        } else {
            self = try JSONDecoder().decode(PatientResponse.self, from: jsonData)
        }
    }
}
