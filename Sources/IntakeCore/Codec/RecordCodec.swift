import Foundation

/// The one door between a ``PatientResponse`` and its bytes: the server, the client, the local
/// queue and the exports all read and write records through it.
///
/// Reading is strict (see ``JSONReader``) and goes straight from the bytes to the record.
/// Writing produces the canonical form, version ``canonicalForm`` (docs/record-format.md):
/// equal records give equal bytes, which is what the server stores and hashes.
public enum RecordCodec {
    /// The version of the canonical byte form; changes only with a migration of stored hashes.
    public static let canonicalForm = 1

    /// Reads one record from a JSON document.
    public static func decode(_ data: some ContiguousBytes) throws(JSONReadError) -> PatientResponse {
        try JSONReader.document(data) { reader throws(JSONReadError) in try read(&reader) }
    }

    /// The record's canonical bytes.
    public static func encode(_ record: PatientResponse) -> [UInt8] {
        var writer = JSONWriter(capacity: 512 + record.answerCount * 40)
        write(record, into: &writer)
        return writer.bytes
    }

    // MARK: Reading

    /// Reads a record at the reader's position. Keys the record does not have go to `extra`,
    /// which reads their value and returns true, or returns false to refuse them.
    package static func read(
        _ reader: inout JSONReader, extra: (String, inout JSONReader) throws(JSONReadError) -> Bool = { _, _ in false }
    ) throws(JSONReadError) -> PatientResponse {
        var answers: [Int: [Int: Answer]] = [:]
        var record = try read(&reader, extra: extra) { position, answer, reader throws(JSONReadError) in
            guard answers[position.section, default: [:]].updateValue(answer, forKey: position.index) == nil else {
                throw reader.error("question \(position.index) appears twice")
            }
        }
        record.answers = answers
        return record
    }

    /// Reads a record at the reader's position without building its answers: each answer goes
    /// to `answer` as it is read, in the order of the bytes, and the record returned has none.
    /// For readers that lay answers out their own way (an export's columns).
    package static func read(
        _ reader: inout JSONReader, extra: (String, inout JSONReader) throws(JSONReadError) -> Bool = { _, _ in false },
        answer: (QuestionPosition, Answer, borrowing JSONReader) throws(JSONReadError) -> Void
    ) throws(JSONReadError) -> PatientResponse {
        var fields = Fields()
        let start = reader.index
        try reader.objectKeys { key, reader throws(JSONReadError) in
            guard let member = Member(key) else {
                guard try extra(key.string, &reader) else {
                    throw reader.error("unknown key '\(key.string)' in a record; docs/record-format.md lists the keys")
                }
                return
            }
            guard fields.seen & member.bit == 0 else { throw reader.error("the key '\(key.string)' appears twice") }
            fields.seen |= member.bit
            if member == .answers {
                try answers(&reader, each: answer)
            } else {
                try fields.read(member, &reader)
            }
        }
        return try fields.record(reader, start: start)
    }

    private enum Member: UInt16 {
        case format, id, questionnaire, patient, answers, status, collector, deviceId, language, createdAt, updatedAt, patientId, caseLink

        /// Its flag in the set of keys seen so far.
        var bit: UInt16 { 1 << rawValue }

        init?(_ key: JSONKey) {
            switch true {
            case key.is("answers"): self = .answers
            case key.is("id"): self = .id
            case key.is("format"): self = .format
            case key.is("questionnaire"): self = .questionnaire
            case key.is("patient"): self = .patient
            case key.is("patientId"): self = .patientId
            case key.is("status"): self = .status
            case key.is("collector"): self = .collector
            case key.is("deviceId"): self = .deviceId
            case key.is("language"): self = .language
            case key.is("createdAt"): self = .createdAt
            case key.is("updatedAt"): self = .updatedAt
            case key.is("case"): self = .caseLink
            default: return nil
            }
        }
    }

    /// What has been read of a record so far.
    private struct Fields {
        var seen: UInt16 = 0
        var id: UUID?
        var questionnaire: QuestionnaireReference?
        var patient = PatientIdentification()
        var patientId: UUID?
        var caseLink: CaseLink?
        var status: PatientResponse.Status?
        var collector: String?
        var deviceId: String?
        var language: String?
        var createdAt: Date?
        var updatedAt: Date?
        var format: Int?

        mutating func read(_ member: Member, _ reader: inout JSONReader) throws(JSONReadError) {
            switch member {
            case .format:
                let value = try reader.integer()
                guard value >= 1 else { throw reader.error("the record format is 1 or later") }
                guard value <= PatientResponse.formatVersion else {
                    throw reader.error(
                        "record format \(value) is newer than this Intake reads (\(PatientResponse.formatVersion)); update Intake")
                }
                format = value
            case .id:
                guard let value = UUID(canonical: try reader.string()) else { throw reader.error("expected a record id (a UUID)") }
                id = value
            case .questionnaire: questionnaire = try RecordCodec.questionnaire(&reader)
            case .patient: patient = try RecordCodec.patient(&reader)
            case .patientId:
                guard let value = UUID(canonical: try reader.string()) else { throw reader.error("expected a patient id (a UUID)") }
                patientId = value
            case .caseLink: caseLink = try RecordCodec.caseLink(&reader)
            case .answers: preconditionFailure("answers are read by their caller")
            case .status:
                guard let value = PatientResponse.Status(rawValue: try reader.string()) else {
                    throw reader.error("expected 'draft' or 'complete'")
                }
                status = value
            case .collector: collector = try reader.string()
            case .deviceId: deviceId = try reader.string()
            case .language: language = reader.null() ? nil : try reader.string()
            case .createdAt: createdAt = try RecordCodec.timestamp(&reader)
            case .updatedAt: updatedAt = try RecordCodec.timestamp(&reader)
            }
        }

        func record(_ reader: borrowing JSONReader, start: Int) throws(JSONReadError) -> PatientResponse {
            guard format != nil else { throw missing("format", reader, start) }
            guard let id else { throw missing("id", reader, start) }
            guard let questionnaire else { throw missing("questionnaire", reader, start) }
            guard seen & Member.answers.bit != 0 else { throw missing("answers", reader, start) }
            guard let status else { throw missing("status", reader, start) }
            guard let collector else { throw missing("collector", reader, start) }
            guard let deviceId else { throw missing("deviceId", reader, start) }
            guard let createdAt else { throw missing("createdAt", reader, start) }
            guard let updatedAt else { throw missing("updatedAt", reader, start) }
            var record = PatientResponse(
                id: id, questionnaire: questionnaire, patient: patient, status: status, collector: collector,
                deviceId: deviceId, language: language, createdAt: createdAt, updatedAt: updatedAt, patientId: patientId)
            record.caseLink = caseLink
            return record
        }

        private func missing(_ key: String, _ reader: borrowing JSONReader, _ start: Int) -> JSONReadError {
            reader.error("field '\(key)' is missing", at: start)
        }
    }

    private static func questionnaire(_ reader: inout JSONReader) throws(JSONReadError) -> QuestionnaireReference {
        var id: String?
        var version: String?
        let start = reader.index
        try reader.object { key, reader throws(JSONReadError) in
            switch key {
            case "id" where id == nil: id = try reader.string()
            case "version" where version == nil: version = try reader.string()
            case "id", "version": throw reader.error("the key '\(key)' appears twice")
            default: throw reader.error("unknown key '\(key)' in questionnaire; it has 'id' and 'version'")
            }
        }
        guard let id, let version else { throw reader.error("questionnaire needs both 'id' and 'version'", at: start) }
        return QuestionnaireReference(id: id, version: version)
    }

    /// `"case": {"id": …, "list": …, "properties": {"1": {"integer": 4}}}`.
    private static func caseLink(_ reader: inout JSONReader) throws(JSONReadError) -> CaseLink {
        var id: UUID?
        var list: String?
        var revision: Int?
        var properties: [Int: Answer]?
        let start = reader.index
        try reader.objectKeys { key, reader throws(JSONReadError) in
            switch true {
            case key.is("id"):
                guard id == nil else { throw reader.error("the key 'id' appears twice") }
                guard let value = UUID(canonical: try reader.string()) else { throw reader.error("expected a case id (a UUID)") }
                id = value
            case key.is("list"):
                guard list == nil else { throw reader.error("the key 'list' appears twice") }
                let value = try reader.string()
                guard CaseListName.isValid(value) else {
                    throw reader.error("a case list's name is lowercase letters, digits, '-' and '_', starting with a letter")
                }
                list = value
            case key.is("revision"):
                guard revision == nil else { throw reader.error("the key 'revision' appears twice") }
                let value = try reader.integer()
                guard value >= 1 else { throw reader.error("a case's revision is 1 or more") }
                revision = value
            case key.is("properties"):
                guard properties == nil else { throw reader.error("the key 'properties' appears twice") }
                var values: [Int: Answer] = [:]
                try reader.objectKeys { indexKey, reader throws(JSONReadError) in
                    guard let index = indexKey.position else {
                        throw reader.error("property keys are whole numbers from 1 written plainly (\"2\", not \"02\")")
                    }
                    let value = try answer(&reader)
                    guard values.updateValue(value, forKey: index) == nil else { throw reader.error("property \(index) appears twice") }
                }
                properties = values
            default:
                throw reader.error("unknown key '\(key.string)' in case; it has 'id', 'list', 'revision' and 'properties'")
            }
        }
        guard let id, let list, let revision else { throw reader.error("case needs 'id', 'list' and 'revision'", at: start) }
        return CaseLink(id: id, list: list, revision: revision, properties: properties ?? [:])
    }

    package static func patient(_ reader: inout JSONReader) throws(JSONReadError) -> PatientIdentification {
        var patient = PatientIdentification()
        var seen: Set<String> = []
        try reader.object { key, reader throws(JSONReadError) in
            guard seen.insert(key).inserted else { throw reader.error("the key '\(key)' appears twice") }
            switch key {
            case "givenName": patient.givenName = reader.null() ? "" : try reader.string()
            case "familyName": patient.familyName = reader.null() ? "" : try reader.string()
            case "externalId": patient.externalId = reader.null() ? nil : try reader.string()
            case "dateOfBirth":
                guard !reader.null() else { return }
                guard let date = LocalDate(iso: try reader.string()) else {
                    throw reader.error("expected a date that exists, written as YYYY-MM-DD")
                }
                patient.dateOfBirth = date
            case "sex":
                guard !reader.null() else { return }
                guard let sex = PatientIdentification.Sex(rawValue: try reader.string()) else {
                    throw reader.error("expected one of female, male, other, unknown")
                }
                patient.sex = sex
            default:
                throw reader.error("unknown key '\(key)' in patient; it has givenName, familyName, dateOfBirth, sex and externalId")
            }
        }
        return patient
    }

    private static func answers(
        _ reader: inout JSONReader, each: (QuestionPosition, Answer, borrowing JSONReader) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        try reader.objectKeys { sectionKey, reader throws(JSONReadError) in
            guard let section = sectionKey.position else {
                throw reader.error("section keys are whole numbers from 1 written plainly (\"2\", not \"02\" or \"+2\")")
            }
            try reader.objectKeys { indexKey, reader throws(JSONReadError) in
                guard let index = indexKey.position else {
                    throw reader.error("question keys are whole numbers from 1 written plainly (\"5\", not \"05\" or \"+5\")")
                }
                let answer = try answer(&reader)
                try each(QuestionPosition(section: section, index: index), answer, reader)
            }
        }
    }

    private static let answerKinds = "text, integer, decimal, date, yesNo, choice, choices, dictionary, geopoint, instances, attachment"

    package static func answer(_ reader: inout JSONReader) throws(JSONReadError) -> Answer {
        var result: Answer?
        let start = reader.index
        try reader.objectKeys { kind, reader throws(JSONReadError) in
            guard result == nil else { throw reader.error("an answer has exactly one key, its type (\(answerKinds))") }
            switch true {
            case kind.is("text"): result = .text(try reader.string())
            case kind.is("integer"): result = .integer(try reader.integer())
            case kind.is("decimal"): result = .decimal(try reader.number())
            case kind.is("date"):
                guard let date = LocalDate(iso: try reader.string()) else {
                    throw reader.error("expected a date that exists, written as YYYY-MM-DD")
                }
                result = .date(date)
            case kind.is("yesNo"): result = .yesNo(try reader.bool())
            case kind.is("choice"): result = .choice(try reader.string())
            case kind.is("choices"):
                var codes: [String] = []
                try reader.array { _, reader throws(JSONReadError) in codes.append(try reader.string()) }
                result = .choices(codes)
            case kind.is("dictionary"):
                var fields: [String: Answer] = [:]
                try reader.object { name, reader throws(JSONReadError) in
                    let field = try answer(&reader)
                    guard fields.updateValue(field, forKey: name) == nil else { throw reader.error("the field '\(name)' appears twice") }
                }
                result = .dictionary(fields)
            case kind.is("geopoint"):
                var parts: [String: Double] = [:]
                let at = reader.index
                try reader.object { name, reader throws(JSONReadError) in
                    guard ["latitude", "longitude", "altitude", "accuracy"].contains(name) else {
                        throw reader.error("a geopoint has latitude, longitude, altitude and accuracy, not '\(name)'")
                    }
                    guard parts.updateValue(try reader.number(), forKey: name) == nil else { throw reader.error("'\(name)' appears twice") }
                }
                guard let latitude = parts["latitude"], let longitude = parts["longitude"] else {
                    throw reader.error("a geopoint needs a latitude and a longitude", at: at)
                }
                let point = GeoPoint(latitude: latitude, longitude: longitude, altitude: parts["altitude"], accuracy: parts["accuracy"])
                if let problem = point.problem { throw reader.error("the geopoint is not a place: \(problem)", at: at) }
                result = .geopoint(point)
            case kind.is("instances"):
                var instances: [[Int: Answer]] = []
                try reader.array { _, reader throws(JSONReadError) in
                    guard instances.count < RepeatLimits.maxInstances else {
                        throw reader.error("a repeat group has at most \(RepeatLimits.maxInstances) instances")
                    }
                    // Instances of a repeat have much the same questions: room for as many
                    // answers as the one before, so the dictionary is not grown a step at a time.
                    var instance = [Int: Answer](minimumCapacity: instances.last?.count ?? 4)
                    try reader.objectKeys { indexKey, reader throws(JSONReadError) in
                        guard let index = indexKey.position else {
                            throw reader.error("question keys are whole numbers from 1 written plainly (\"5\", not \"05\" or \"+5\")")
                        }
                        guard instance.updateValue(try answer(&reader), forKey: index) == nil else {
                            throw reader.error("question \(index) appears twice in one instance")
                        }
                    }
                    instances.append(instance)
                }
                result = .instances(instances)
            case kind.is("attachment"):
                var sha256: String?, size: Int?, mediaType: String?
                let at = reader.index
                try reader.object { name, reader throws(JSONReadError) in
                    switch name {
                    case "sha256" where sha256 == nil: sha256 = try reader.string()
                    case "size" where size == nil: size = try reader.integer()
                    case "mediaType" where mediaType == nil: mediaType = try reader.string()
                    case "sha256", "size", "mediaType": throw reader.error("'\(name)' appears twice")
                    default: throw reader.error("an attachment has sha256, size and mediaType, not '\(name)'")
                    }
                }
                guard let sha256, let size, let mediaType else {
                    throw reader.error("an attachment needs its sha256, size and mediaType", at: at)
                }
                let ref = AttachmentRef(sha256: sha256, size: size, mediaType: mediaType)
                if let problem = ref.problem { throw reader.error(problem, at: at) }
                result = .attachment(ref)
            default: throw reader.error("unknown answer type '\(kind.string)'; an answer has one of \(answerKinds)")
            }
        }
        guard let result else { throw reader.error("an answer has exactly one key, its type (\(answerKinds))", at: start) }
        return result
    }

    private static func timestamp(_ reader: inout JSONReader) throws(JSONReadError) -> Date {
        guard let date = Timestamp.date(from: try reader.string()) else {
            throw reader.error("expected an RFC 3339 time that exists, such as 2026-11-22T05:19:08.123Z or 2026-11-22T08:19:08+03:00")
        }
        return date
    }

    // MARK: Writing

    /// Writes the canonical form; `extras` (keys a record does not have, with their JSON) are
    /// placed among its keys in order, as exports do with `patientKey`.
    package static func write(_ record: PatientResponse, into writer: inout JSONWriter, extras: [(key: String, json: [UInt8])] = []) {
        var extras = extras.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }[...]
        func member(_ key: String, _ write: (inout JSONWriter) -> Void) {
            while let next = extras.first, next.key.utf8.lexicographicallyPrecedes(key.utf8) {
                writer.key(next.key)
                writer.raw(next.json)
                extras.removeFirst()
            }
            writer.key(key)
            write(&writer)
        }
        writer.beginObject()
        member("answers") { writer in
            writer.beginObject()
            for section in record.answers.keys.sorted() {
                writer.key(section)
                writer.beginObject()
                let byIndex = record.answers[section]!
                // The indexes sorted, not the pairs: a pair's copy retains its answer's parts.
                for index in byIndex.keys.sorted() {
                    writer.key(index)
                    write(byIndex[index]!, into: &writer)
                }
                writer.endObject()
            }
            writer.endObject()
        }
        if let link = record.caseLink {
            member("case") { writer in
                writer.beginObject()
                writer.key("id")
                writer.string(link.id.uuidString.lowercased())
                writer.key("list")
                writer.string(link.list)
                writer.key("properties")
                writer.beginObject()
                for index in link.properties.keys.sorted() {
                    writer.key(index)
                    write(link.properties[index]!, into: &writer)
                }
                writer.endObject()
                writer.key("revision")
                writer.integer(link.revision)
                writer.endObject()
            }
        }
        member("collector") { $0.string(record.collector) }
        member("createdAt") { $0.string(Timestamp.string(from: record.createdAt)) }
        member("deviceId") { $0.string(record.deviceId) }
        member("format") { $0.integer(record.format) }
        member("id") { $0.string(record.id.uuidString.lowercased()) }
        if let language = record.language { member("language") { $0.string(language) } }
        member("patient") { writer in write(record.patient, into: &writer) }
        if let patientId = record.patientId { member("patientId") { $0.string(patientId.uuidString.lowercased()) } }
        member("questionnaire") { writer in
            writer.beginObject()
            writer.key("id")
            writer.string(record.questionnaire.id)
            writer.key("version")
            writer.string(record.questionnaire.version)
            writer.endObject()
        }
        member("status") { $0.string(record.status.rawValue) }
        member("updatedAt") { $0.string(Timestamp.string(from: record.updatedAt)) }
        for extra in extras {
            writer.key(extra.key)
            writer.raw(extra.json)
        }
        writer.endObject()
    }

    package static func write(_ patient: PatientIdentification, into writer: inout JSONWriter) {
        writer.beginObject()
        if let date = patient.dateOfBirth {
            writer.key("dateOfBirth")
            writer.date(date)
        }
        if let external = patient.externalId {
            writer.key("externalId")
            writer.string(external)
        }
        if !patient.familyName.isEmpty {
            writer.key("familyName")
            writer.string(patient.familyName)
        }
        if !patient.givenName.isEmpty {
            writer.key("givenName")
            writer.string(patient.givenName)
        }
        if let sex = patient.sex {
            writer.key("sex")
            writer.string(sex.rawValue)
        }
        writer.endObject()
    }

    package static func write(_ answer: Answer, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.letterKey(kindKey(answer))
        switch answer {
        case .text(let value), .choice(let value): writer.string(value)
        case .integer(let value): writer.integer(value)
        case .decimal(let value): writer.number(value)
        case .date(let value): writer.date(value)
        case .yesNo(let value): writer.bool(value)
        case .choices(let codes):
            writer.beginArray()
            for code in codes { writer.string(code) }
            writer.endArray()
        case .dictionary(let fields):
            writer.beginObject()
            for (name, field) in fields.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                writer.key(name)
                write(field, into: &writer)
            }
            writer.endObject()
        case .geopoint(let point):
            writer.beginObject()
            if let accuracy = point.accuracy {
                writer.key("accuracy")
                writer.number(accuracy)
            }
            if let altitude = point.altitude {
                writer.key("altitude")
                writer.number(altitude)
            }
            writer.key("latitude")
            writer.number(point.latitude)
            writer.key("longitude")
            writer.number(point.longitude)
            writer.endObject()
        case .attachment(let ref):
            writer.beginObject()
            writer.key("mediaType")
            writer.string(ref.mediaType)
            writer.key("sha256")
            writer.string(ref.sha256)
            writer.key("size")
            writer.integer(ref.size)
            writer.endObject()
        case .instances(let instances):
            writer.beginArray()
            for instance in instances {
                writer.beginObject()
                // The indexes sorted, not the pairs: a pair's copy retains its answer's parts.
                for index in instance.keys.sorted() {
                    writer.key(index)
                    write(instance[index]!, into: &writer)
                }
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
    }

    /// The key an answer is written under, its kind (``Answer/kind``).
    package static func kindKey(_ answer: Answer) -> StaticString {
        switch answer {
        case .text: "text"
        case .integer: "integer"
        case .decimal: "decimal"
        case .date: "date"
        case .yesNo: "yesNo"
        case .choice: "choice"
        case .choices: "choices"
        case .dictionary: "dictionary"
        case .geopoint: "geopoint"
        case .instances: "instances"
        case .attachment: "attachment"
        }
    }
}
