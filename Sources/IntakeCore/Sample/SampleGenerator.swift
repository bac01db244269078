import Foundation

/// Makes valid, varied synthetic records for demos, tests and benchmarks.
///
/// Every record it makes passes ``Validator`` for its questionnaire: required questions are
/// answered, show-if is followed, values stay in range. The names are invented.
public struct SampleGenerator {
    public let questionnaire: Questionnaire
    private var random: SeededGenerator
    private let validator: Validator
    private let now: Date
    /// Every record's collector, when given (a server takes only a member of its team);
    /// otherwise one of a few invented names.
    private let collector: String?

    public init(questionnaire: Questionnaire, seed: UInt64 = 1, now: Date = PatientResponse.now(), collector: String? = nil) {
        self.questionnaire = questionnaire
        self.collector = collector
        self.random = SeededGenerator(seed: seed)
        self.now = now
        self.validator = Validator(questionnaire: questionnaire, today: LocalDate.today(in: TimeZone(identifier: "UTC")!, now: now))
    }

    public mutating func next() -> PatientResponse {
        let created = now.addingTimeInterval(-Double(Int.random(in: 0..<(365 * 24 * 3600), using: &random)))
        let id = uuid(), patient = patient()
        // Drawn even when it is given, so a seed makes the same records either way.
        let drawn = Self.collectors.randomElement(using: &random)!
        var response = PatientResponse(
            id: id, questionnaire: questionnaire.reference, patient: patient, status: .complete,
            collector: collector ?? drawn, deviceId: "sample-device-\(Int.random(in: 1...5, using: &random))",
            language: Bool.random(using: &random) ? nil : questionnaire.languages.dropFirst().first,
            createdAt: Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded()),
            updatedAt: Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded() + 900))
        if let follows = questionnaire.cases.follows {
            // A follow-up is filled for a case: an invented one, with a value for each property it reads.
            var properties: [Int: Answer] = [:]
            for (offset, property) in follows.properties.enumerated() where Double.random(in: 0..<1, using: &random) < 0.9 {
                properties[offset + 1] = answer(for: property.type)
            }
            response.caseLink = CaseLink(id: uuid(), list: follows.list, properties: properties)
        }
        fill(questionnaire.allQuestions.filter { $0.group == nil }, into: &response)
        return response
    }

    /// Answers `questions` (the top level, or one repeat instance's) in order into `response`.
    private mutating func fill(_ questions: [Question], into response: inout PatientResponse) {
        for question in questions {
            // Hidden questions stay unanswered, so reading the record so far reads what is shown.
            let read: (QuestionPosition) -> Answer? = { [response] in response[$0] }
            let shown = question.showIf?.isSatisfied(by: read) ?? true
            guard shown, question.takesAnswer else { continue }
            if question.isRepeat {
                response[question.position] = instances(of: question, in: response)
                continue
            }
            // A file cannot be made up: the server would refuse a record naming one it never received.
            if case .attachment = question.type { continue }
            if let calculation = question.calculation {
                response[question.position] = Answer(calculation.value(today: validator.today, answer: read), for: question.type)
                continue
            }
            let required = question.isRequired || question.requiredIf?.holds(today: validator.today, answer: read) == true
            let offered = questionnaire.offeredType(of: question, in: response)
            if let set = offered.choices, set.choices.isEmpty { continue }
            guard required || Double.random(in: 0..<1, using: &random) < 0.85 else { continue }
            // An answer that keeps the question's constraint, if a few draws find one; for a
            // required question, the optional answers the constraint reads are left out if not.
            for attempt in 0..<(question.constraint == nil ? 1 : 24) {
                if attempt == 12, required, let positions = question.constraint?.expression?.positions {
                    for (id, position) in positions where id != "." && questionnaire.question(at: position)?.isRequired == false {
                        response[position] = nil
                    }
                }
                let now = response
                let drawn = answer(for: offered)
                let keeps =
                    question.constraint.map { constraint in
                        validator.constraintIssue(question, constraint, answer: drawn) { $0 == question.position ? drawn : now[$0] } == nil
                    } ?? true
                if keeps {
                    response[question.position] = drawn
                    break
                }
            }
        }
    }

    /// A repeat's instances: as many as its count says, or a few within its bounds, each filled
    /// as the form would fill it.
    private mutating func instances(of question: Question, in response: PatientResponse) -> Answer {
        guard case .repeatGroup(let bounds) = question.type else { return .instances([]) }
        var count: Int
        if let expression = question.repeatCount {
            guard let wanted = RepeatLimits.instances(for: expression.value(today: validator.today) { response[$0] }) else {
                return .instances([])
            }
            count = wanted
        } else {
            let lower = max(bounds.lower ?? 0, question.isRequired ? 1 : 0)
            count = Int.random(in: lower...max(lower, min(bounds.upper ?? lower + 3, lower + 3)), using: &random)
        }
        if let upper = bounds.upper { count = min(count, upper) }
        let members = questionnaire.members(of: question.position)
        var list: [[Int: Answer]] = []
        for _ in 0..<count {
            var scoped = response
            fill(members, into: &scoped)
            var instance: [Int: Answer] = [:]
            for member in members where member.takesAnswer {
                if let answer = scoped[member.position] { instance[member.position.index] = answer }
            }
            list.append(instance)
        }
        return .instances(list)
    }

    private mutating func uuid() -> UUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    private mutating func patient() -> PatientIdentification {
        let sex = [PatientIdentification.Sex.female, .male, .female, .male, .other, .unknown].randomElement(using: &random)!
        let given = (sex == .female ? Self.femaleNames : sex == .male ? Self.maleNames : Self.femaleNames + Self.maleNames)
        let age = Int.random(in: 0...85, using: &random)
        let birth =
            Bool.random(using: &random) || age < 90
            ? LocalDate(ordinal: validator.today.ordinal - age * 365 - Int.random(in: 0..<365, using: &random)) : nil
        let externalId =
            Int.random(in: 0..<3, using: &random) == 0 ? nil : String(format: "CASE-%06d", Int.random(in: 0..<1_000_000, using: &random))
        return PatientIdentification(
            givenName: given.randomElement(using: &random)!, familyName: Self.familyNames.randomElement(using: &random)!,
            dateOfBirth: birth, sex: sex, externalId: externalId)
    }

    private mutating func answer(for type: QuestionType) -> Answer {
        switch type {
        case .text: return .text(Self.phrases.randomElement(using: &random)!)
        case .yesNo: return .yesNo(Bool.random(using: &random))
        case .singleChoice(let set): return .choice(set.choices.randomElement(using: &random)!.code)
        case .multipleChoice(let set):
            let count = Int.random(in: 1...min(3, set.choices.count), using: &random)
            var picked = Set(set.choices.shuffled(using: &random).prefix(count).map(\.code))
            // "None of these" is an answer on its own.
            if picked.count > 1 { picked.subtract(ChoiceSet.exclusiveCodes) }
            return .choices(set.choices.map(\.code).filter(picked.contains))
        case .integer(let bounds):
            let lower = bounds.lower ?? min(0, bounds.upper ?? 0)
            let upper = bounds.upper ?? lower + 100
            return .integer(Int.random(in: lower...upper, using: &random))
        case .decimal(let bounds):
            let lower = bounds.lower ?? min(0, bounds.upper ?? 0)
            let upper = bounds.upper ?? lower + 100
            let value = (Double.random(in: lower...upper, using: &random) * 10).rounded() / 10
            return .decimal(min(max(value, lower), upper))
        case .date(let bounds):
            let upper = (bounds.upper?.resolved(today: validator.today) ?? validator.today).ordinal
            let lower = bounds.lower?.resolved(today: validator.today).ordinal ?? upper - 5 * 365
            return .date(LocalDate(ordinal: Int.random(in: lower...max(lower, upper), using: &random)))
        case .compound(let fields):
            var parts: [String: Answer] = [:]
            for field in fields where field.isRequired || Double.random(in: 0..<1, using: &random) < 0.7 {
                parts[field.key] = answer(for: field.type)
            }
            if parts.isEmpty, let first = fields.first { parts[first.key] = answer(for: first.type) }
            return .dictionary(parts)
        case .note:
            return .text("")
        case .repeatGroup:
            return .instances([])
        case .attachment:
            return .text("")
        case .geopoint:
            // Around a clinic, to 5 decimals (a metre), with an altitude and an accuracy now and then.
            let latitude = ((31.9 + Double.random(in: 0..<0.2, using: &random)) * 100_000).rounded() / 100_000
            let longitude = ((35.8 + Double.random(in: 0..<0.2, using: &random)) * 100_000).rounded() / 100_000
            let full = Bool.random(using: &random)
            return .geopoint(
                GeoPoint(
                    latitude: latitude, longitude: longitude, altitude: full ? Double(Int.random(in: 700...1000, using: &random)) : nil,
                    accuracy: full ? Double(Int.random(in: 3...30, using: &random)) : nil))
        }
    }

    /// The invented collectors of records made without one given.
    public static let collectors = ["amina.h", "farid.k", "grace.o", "samir.a", "lena.m"]
    static let femaleNames = [
        "Amina", "Fatima", "Hawa", "Layla", "Mariam", "Nour", "Rahel", "Sahra", "Yasmin", "Zainab", "Shukria", "Hevin",
    ]
    static let maleNames = ["Abdi", "Ahmad", "Daniel", "Farid", "Hassan", "Jamal", "Karim", "Mohammed", "Omar", "Tesfay", "Wahid", "Yonas"]
    static let familyNames = [
        "Abdullahi", "Ahmadi", "Al-Hassan", "Haile", "Hussaini", "Ibrahim", "Karimi", "Mohamud", "Nazari", "Osman", "Rahimi", "Tesfaye",
        "Yusuf", "Şahin",
    ]
    static let phrases = [
        "No concerns reported", "Lives with two children", "Walks with a cane", "Follow-up at the district clinic",
        "Reports poor sleep since arrival", "Needs an interpreter for appointments", "Previously treated in transit camp",
        "Family member has similar symptoms", "Would like information on vaccination", "Prefers a female clinician",
    ]
}
