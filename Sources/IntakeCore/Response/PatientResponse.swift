import Foundation

/// One patient's record: identification and the answers to every section, by question index.
///
/// Every section of the form reads and updates this one value. Its JSON is documented in
/// `docs/record-format.md` and stays stable across releases; ``formatVersion`` changes when it
/// cannot.
public struct PatientResponse: Hashable, Sendable, Identifiable {
    /// The newest record format this Intake reads and writes.
    public static let formatVersion = 2

    /// The collector of a record filled before anyone signed in on its machine: it is sent as the
    /// account that signs in there (a user name is never empty).
    public static let collectorToCome = ""

    /// The format the record is written in: 1, unless an answer is of a kind format 1 lacks
    /// (a geopoint), so a record of the old kinds keeps its bytes and its hash.
    public var format: Int {
        var format = 1
        for byIndex in answers.values {
            for answer in byIndex.values where answer.format > format { format = answer.format }
        }
        // A record filled for a case is of format 2: format 1 has no `case`.
        if caseLink != nil { format = max(format, 2) }
        return format
    }

    public var id: UUID
    public var questionnaire: QuestionnaireReference
    public var patient: PatientIdentification
    /// The registry patient the record is about, when it points to one.
    public var patientId: UUID?
    /// Answers by section number, then by 1-based question index within the section.
    public var answers: [Int: [Int: Answer]]
    public var status: Status
    /// Who collected the record (a user name); ``collectorToCome`` until someone signs in on the
    /// machine that filled it.
    public var collector: String
    /// Which device collected it.
    public var deviceId: String
    /// The language the form was filled in, if not the questionnaire's base language.
    public var language: String?
    /// The case the record was filled for, when its questionnaire follows a case list.
    public var caseLink: CaseLink?
    public var createdAt: Date
    public var updatedAt: Date

    public enum Status: String, Hashable, Sendable, Codable {
        case draft, complete
    }

    public init(
        id: UUID = UUID(), questionnaire: QuestionnaireReference, patient: PatientIdentification = .init(),
        answers: [Int: [Int: Answer]] = [:], status: Status = .draft, collector: String, deviceId: String,
        language: String? = nil, createdAt: Date = PatientResponse.now(), updatedAt: Date? = nil, patientId: UUID? = nil
    ) {
        self.id = id
        self.questionnaire = questionnaire
        self.patient = patient
        self.patientId = patientId
        self.answers = answers
        self.status = status
        self.collector = collector
        self.deviceId = deviceId
        self.language = language
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    public subscript(position: QuestionPosition) -> Answer? {
        get {
            // Section 0 is the patient's identification, as expressions read it (`date_of_birth`, `sex`).
            if position.section == 0 { return patient.expressionAnswer(position.index) }
            // Section -1 is the case's properties as the visit saw them (`case.edd`).
            if position.section == CaseRules.section { return caseLink?.properties[position.index] }
            return answers[position.section]?[position.index]
        }
        set {
            // Section 0 (the patient's fields) is read-only here: they are set as the patient's.
            guard position.section > 0 else { return }
            answers[position.section, default: [:]][position.index] = newValue
            if answers[position.section]?.isEmpty == true { answers[position.section] = nil }
        }
    }

    /// The files the record's answers name, in instances too, each once, in order.
    public var attachments: [AttachmentRef] {
        // Most records name no file: found without ordering the answers.
        func names(_ answer: Answer) -> Bool {
            switch answer {
            case .attachment: true
            case .instances(let list): list.contains { $0.values.contains(where: names) }
            default: false
            }
        }
        guard answers.values.contains(where: { $0.values.contains(where: names) }) else { return [] }
        var found: [AttachmentRef] = []
        func visit(_ answer: Answer) {
            switch answer {
            case .attachment(let ref): if !found.contains(ref) { found.append(ref) }
            case .instances(let list): for instance in list { for key in instance.keys.sorted() { visit(instance[key]!) } }
            default: break
            }
        }
        for (_, answer) in allAnswers { visit(answer) }
        return found
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

extension PatientResponse {
    /// The record's canonical JSON (``RecordCodec``); `pretty` indents it for people to read.
    public func jsonData(pretty: Bool = false) -> Data {
        let bytes = RecordCodec.encode(self)
        return Data(pretty ? JSONWriter.indented(bytes) : bytes)
    }

    /// Reads a record strictly (``RecordCodec``).
    public init(jsonData: some ContiguousBytes) throws(JSONReadError) {
        self = try RecordCodec.decode(jsonData)
    }
}
