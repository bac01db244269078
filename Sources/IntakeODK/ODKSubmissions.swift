import Foundation
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService
import IntakeXLSForm

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Submissions written through the ODK API: an XForm instance becomes an Intake record (stored
/// through the same service, checks and access rules as `POST /v1/records`); a review state set
/// is the review workflow's decision; a comment goes to the record's review thread.
extension ODKRoutes {
    func createSubmission(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        // The route's row admitted a team's field worker or coordinator; the project is theirs
        // (another team's is not found).
        let (user, team) = try await team(context)
        let formId = Self.parameter(context, "form")
        let (form, current) = try await form(named: formId, for: user)
        let document = try ODKInstance.parse(try await body(request))
        let questionnaire = try await version(of: document, form: form, current: current)
        let deviceId = request.uri.queryParameters["deviceID"].map(String.init) ?? "odk-api"
        let followed = try await followedCase(document, questionnaire: questionnaire, user: user)
        let record = try ODKInstance.record(
            document, questionnaire: questionnaire, collector: user.username, deviceId: deviceId, followed: followed)
        let results = try await services.records.ingest([record], owner: RecordOwner(teamId: team.id, username: user.username))
        switch results.first {
        case .stored(.created, _)?:
            return Self.json(submissionJSON(record.id, user: user, deviceId: deviceId, createdAt: Date(), reviewState: nil))
        case .stored(.duplicate, _)?, .stored(.conflict, _)?, .stored(.taken, _)?:
            throw ODKError(
                status: .conflict, code: 409.3,
                message: "A submission already exists with the instanceID uuid:\(record.id.uuidString.lowercased()).")
        case .stored(.deleted, _)?:
            throw ODKError(
                status: .conflict, code: 409.3,
                message: "The submission uuid:\(record.id.uuidString.lowercased()) was deleted; it cannot be sent again.")
        case .invalid(let code, let message, let issues)?:
            let said = issues.prefix(5).map { "\($0)" }.joined(separator: "; ")
            throw ODKError(
                status: .badRequest, code: 400.2,
                message: "The submission is not a valid record (\(code)): \(message)\(said.isEmpty ? "" : ": " + said)")
        case nil:
            throw ODKError(status: .internalServerError, code: 500.1, message: "The submission was not stored.")
        }
    }

    /// An edit, as Central's `PUT …/submissions/{instanceId}` (pyodk's `submissions.edit`): the
    /// instance's new version (its own instanceID, the one it replaces as deprecatedID) saved as
    /// the record's next revision, through the record-access policy and the same checks as any
    /// edit; the record keeps its id, its collector and, when the instance has none, its patient.
    func editSubmission(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        let id = try instance(context)
        let stored = try await services.access.record(id, for: .edit, by: user)
        let formId = Self.parameter(context, "form")
        guard stored.record.questionnaire.id == formId else { throw ODKError.notFound("submission uuid:\(id.uuidString.lowercased())") }
        let (form, current) = try await form(named: formId, for: user)
        let document = try ODKInstance.parse(try await body(request))
        let questionnaire = try await version(of: document, form: form, current: current)
        guard document.child("meta")?.child("deprecatedID")?.value.isEmpty == false else {
            throw ODKError(
                status: .badRequest, code: 400.2,
                message: "An edit names the version it replaces in meta/deprecatedID, and its own in meta/instanceID.")
        }
        let deviceId = request.uri.queryParameters["deviceID"].map(String.init) ?? "odk-api"
        let followed = try await followedCase(document, questionnaire: questionnaire, user: user, editing: stored.record)
        var record = try ODKInstance.record(
            document, questionnaire: questionnaire, collector: stored.record.collector, deviceId: deviceId, followed: followed)
        record.id = id
        record.createdAt = stored.record.createdAt
        record.status = stored.record.status
        if document.child("patient") == nil, followed == nil { record.patient = stored.record.patient }
        switch try await services.records.edit(
            record, of: stored, baseRevision: stored.revision, savedBy: user.username, uploadsTeam: team.id, deviceId: deviceId)
        {
        case .saved(.updated), .unchanged:
            return Self.json(submissionJSON(id, user: user, deviceId: deviceId, createdAt: stored.record.createdAt, reviewState: "edited"))
        case .saved(.stale):
            throw ODKError(
                status: .conflict, code: 409.1,
                message: "The submission changed while this edit was sent; read it again and send the edit again.")
        case .saved(.locked):
            throw ODKError(
                status: .conflict, code: 409.1,
                message: "A reviewer approved and locked the submission; a coordinator reopens it first (intake review reopen).")
        case .saved(.notFound), .saved(.deleted):
            throw ODKError.notFound("submission uuid:\(id.uuidString.lowercased())")
        case .invalid(let code, let message, let issues):
            let said = issues.prefix(5).map { "\($0)" }.joined(separator: "; ")
            throw ODKError(
                status: .badRequest, code: 400.2,
                message: "The edit is not a valid record (\(code)): \(message)\(said.isEmpty ? "" : ": " + said)")
        }
    }

    /// A follow-up's case, as its XForm picks it (``XFormWriter/casePicker(_:)``, an entity's
    /// `name`): the record names it as `intake fill --case` does, with the case's patient (the
    /// form does not ask it) and its properties as its visits had left them at the version the
    /// form read (`meta/entity/@baseVersion`; else as they stand; a visit edited or withdrawn
    /// since, which makes no new version, is read as it is now). Which cases a field worker may name is
    /// the record-access policy's (``CaseAction/visit``). An edit keeps the case its record
    /// names: picking another is refused (its visit would stay counted on the first).
    func followedCase(_ document: ODKElement, questionnaire: Questionnaire, user: User, editing stored: PatientResponse? = nil)
        async throws -> ODKInstance.FollowedCase?
    {
        guard let follows = questionnaire.cases.follows else { return nil }
        let picker = XFormWriter.casePicker(questionnaire)
        let picked = document.child(picker)?.value.trimmingCharacters(in: .whitespaces) ?? ""
        if let stored, let kept = stored.caseLink {
            guard picked.isEmpty || UUID(uuidString: picked) == kept.id else {
                throw ODKError(
                    status: .badRequest, code: 400.2,
                    message:
                        "An edit keeps the case its submission visits (\(kept.id.uuidString.lowercased())); to visit another case, send a new submission."
                )
            }
            return ODKInstance.FollowedCase(link: kept, patient: stored.patient, patientId: stored.patientId)
        }
        guard !picked.isEmpty else {
            throw ODKError(
                status: .badRequest, code: 400.2,
                message:
                    "\(questionnaire.id) is filled for a case of the list '\(follows.list)': name it in \(picker), the name (id) of an entity of \(follows.list).csv."
            )
        }
        // A version below 1 is read as 1: the form saw at least the case as it was opened.
        let read = document.child("meta")?.child("entity")?.attributes["baseVersion"].flatMap { Int($0) }.map { max($0, 1) }
        let seen: StoredCase
        do {
            guard let id = UUID(uuidString: picked) else { throw ServiceError.notFound(picked) }
            seen = try await services.cases.visited(id, by: user, asOf: read)
        } catch let error as ServiceError where error.isMissing {
            throw ODKError(
                status: .badRequest, code: 400.2,
                message:
                    "\(picker) names no case of the list '\(follows.list)' you may visit: give the name (id) of an entity of \(follows.list).csv as the form's attachment lists it."
            )
        }
        guard seen.list == follows.list else {
            throw ODKError(
                status: .badRequest, code: 400.2,
                message: "\(picker) names a case of the list '\(seen.list)'; \(questionnaire.id) follows '\(follows.list)'.")
        }
        return ODKInstance.FollowedCase(
            link: follows.link(caseId: seen.id, revision: seen.revision, values: seen.properties), patient: seen.opening.patient,
            patientId: seen.patientId)
    }

    /// The questionnaire version an instance is of: its form's, and the version its root names.
    func version(of document: ODKElement, form: PublishedQuestionnaire, current: Questionnaire) async throws -> Questionnaire {
        guard document.attributes["id"] == form.id else {
            throw ODKError(
                status: .badRequest, code: 400.8,
                message: "The submission is for the form '\(document.attributes["id"] ?? "")', not '\(form.id)'.")
        }
        guard let version = document.attributes["version"], version != current.version else { return current }
        guard let other = try await services.questionnaires.questionnaire(QuestionnaireReference(id: form.id, version: version)) else {
            throw ODKError(status: .badRequest, code: 400.8, message: "The form '\(form.id)' has no version '\(version)'.")
        }
        return other
    }

    func submissionJSON(_ id: UUID, user: User, deviceId: String?, createdAt: Date, reviewState: String?) -> JSONValue {
        .object([
            "instanceId": .string("uuid:\(id.uuidString.lowercased())"), "submitterId": .integer(Int(user.id)),
            "deviceId": deviceId.map(JSONValue.string) ?? .null,
            "createdAt": Self.date(createdAt), "updatedAt": .null, "reviewState": reviewState.map(JSONValue.string) ?? .null,
            "userAgent": .null, "deletedAt": .null,
        ])
    }

    /// One submission's metadata, as Central's `GET …/submissions/{instanceId}` (pyodk's
    /// `submissions.get`): its submitter's actor id, device, when it was made and last changed,
    /// its review state. Read through the record-access policy, as the record itself.
    func submission(_ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let id = try instance(context)
        let stored = try await services.access.record(id, for: .read, by: user)
        guard stored.record.questionnaire.id == Self.parameter(context, "form") else {
            throw ODKError.notFound("submission uuid:\(id.uuidString.lowercased())")
        }
        let (review, _) = try await services.reviews.review(id, by: user)
        let actor = try await actorIds()[stored.record.collector]
        let state: JSONValue =
            switch review.state {
            case .received: .null
            case .hasIssues: .string("hasIssues")
            default: .string(review.state.rawValue)
            }
        return Self.json(
            .object([
                "instanceId": .string("uuid:\(id.uuidString.lowercased())"), "submitterId": actor.map { .integer(Int($0)) } ?? .null,
                "deviceId": stored.record.deviceId.isEmpty ? .null : .string(stored.record.deviceId),
                "createdAt": Self.date(stored.record.createdAt),
                "updatedAt": stored.revision > 1 ? Self.date(stored.record.updatedAt) : .null, "reviewState": state, "userAgent": .null,
                "deletedAt": .null,
                "currentVersion": .object(["instanceId": .string("uuid:\(id.uuidString.lowercased())"), "current": .bool(true)]),
            ]))
    }

    /// Account ids by user name: Central numbers its actors (submitters, comment authors), and
    /// these are the ids submission creation answers with.
    func actorIds() async throws -> [String: Int64] {
        Dictionary(try await services.accounts.users().map { ($0.username, $0.id) }, uniquingKeysWith: { first, _ in first })
    }

    /// The record a submission's `{instance}` names (`uuid:…`, percent-decoded by the router).
    func instance(_ context: IntakeRequestContext) throws -> UUID {
        let text = Self.parameter(context, "instance")
        guard let id = UUID(uuidString: text.lowercased().hasPrefix("uuid:") ? String(text.dropFirst(5)) : text) else {
            throw ODKError.notFound("submission \(text)")
        }
        return id
    }

    /// A form's attachments (`GET …/forms/{form}/attachments`): none, since a questionnaire's
    /// choice lists are written into its XForm, not served as media files.
    /// `GET …/forms/{form}/attachments`: a follow-up's one attachment, its case list as ODK's
    /// entity-list CSV (`datasetExists`); none for any other form.
    func formAttachments(_ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let (_, questionnaire) = try await form(named: Self.parameter(context, "form"), for: user)
        // Listed to those who follow cases (who may read it), as Central lists what it serves.
        guard let list = questionnaire.cases.follows?.list, RecordAccessPolicy.casePull(by: user) != nil else {
            return Self.json(.array([]))
        }
        let cases = try await followedCases(list, for: user)
        return Self.json(
            .array([
                .object([
                    "name": .string("\(list).csv"), "type": .string("file"), "exists": .bool(true), "blobExists": .bool(false),
                    "datasetExists": .bool(true), "updatedAt": Self.date(cases.map(\.updatedAt).max()),
                ])
            ]))
    }

    /// `GET …/forms/{form}/attachments/{name}`: the follow-up's case list as ODK Collect reads an
    /// entity list: `name` (the case's id), `label`, `__version`, the patient's `__date_of_birth`
    /// and `__sex`, and each property the list's
    /// questionnaires declare, as text; the open cases the caller follows, as `intake cases pull` gives them.
    func formAttachment(_ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let (_, questionnaire) = try await form(named: Self.parameter(context, "form"), for: user)
        let name = Self.parameter(context, "name")
        guard let list = questionnaire.cases.follows?.list, name == "\(list).csv" else {
            throw ODKError.notFound("form attachment \(name.prefix(64))")
        }
        // ODK keeps `name` and `label` (and `__…`) for the entity's own: a property so named is left out.
        let properties = (try await services.cases.lists(for: user).first { $0.name == list }?.properties ?? []).filter {
            !["name", "label"].contains($0) && !$0.hasPrefix("__")
        }
        // The patient's date of birth and sex, which a follow-up's expressions may read (its XForm
        // reads them here: the form does not ask the patient), under names no property takes.
        var text = CSV.line(["name", "label", "__version", "__date_of_birth", "__sex"] + properties)
        for stored in try await followedCases(list, for: user) {
            let patient = stored.opening.patient
            text += CSV.line(
                [
                    stored.id.uuidString.lowercased(), stored.label, String(stored.revision), patient.dateOfBirth?.description ?? "",
                    patient.sex?.rawValue ?? "",
                ]
                    + properties.map { property in stored.properties[property].map { ExpressionValue($0).text } ?? "" })
        }
        return Response(
            status: .ok, headers: [.contentType: "text/csv; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The open cases of `list` the user follows (a coordinator: every open case of the team), in the order they were opened.
    private func followedCases(_ list: String, for user: User) async throws -> [StoredCase] {
        try await services.cases.cases(in: list, for: user).filter { $0.status == .open && !$0.erased }.sorted {
            ($0.opening.at, $0.id.uuidString) < ($1.opening.at, $1.id.uuidString)
        }
    }

    func attachments(_ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let stored = try await services.access.record(try instance(context), for: .read, by: user)
        return Self.json(.array(stored.record.attachments.map { .object(["name": .string($0.fileName), "exists": .bool(true)]) }))
    }

    func review(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let id = try instance(context)
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: try await body(request)),
            let given = object["reviewState"]
        else {
            throw ODKError.badRequest("Send {\"reviewState\": \"approved\"} (or hasIssues, rejected) as JSON.")
        }
        let state: ReviewState
        switch given {
        case .string("hasIssues"): state = .hasIssues
        case .string("approved"): state = .approved
        case .string("rejected"): state = .rejected
        case .string(let other):
            throw ODKError(
                status: .badRequest, code: 400.8,
                message:
                    "Unexpected state value \(other); not a recognized state name (a reviewer sets hasIssues, approved or rejected; edited is set by an edit)."
            )
        default:
            throw ODKError(status: .badRequest, code: 400.8, message: "Unexpected state value; not a recognized state name.")
        }
        let (review, _) = try await services.reviews.decide(id, state: state, lock: false, comment: nil, by: user)
        let odkState = review.state == .hasIssues ? "hasIssues" : review.state.rawValue
        return Self.json(submissionJSON(id, user: user, deviceId: nil, createdAt: review.updatedAt, reviewState: odkState))
    }

    func comment(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let id = try instance(context)
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: try await body(request)),
            case .string(let text)? = object["body"],
            !text.isEmpty
        else { throw ODKError.badRequest("Send {\"body\": \"…\"} as JSON.") }
        let (_, entry) = try await services.reviews.comment(id, text: text, by: user)
        return Self.json(.object(["body": .string(text), "actorId": .integer(Int(user.id)), "createdAt": Self.date(entry.at)]))
    }

    /// The submission's comments, oldest first, as Central lists them: its review thread's
    /// entries that hold words (a state changed without a word is not a comment).
    func comments(_ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let (_, entries) = try await services.reviews.review(try instance(context), by: user)
        let actors = try await actorIds()
        return Self.json(
            .array(
                entries.filter { !$0.text.isEmpty }.map { entry in
                    .object([
                        "body": .string(entry.text), "actorId": actors[entry.author].map { .integer(Int($0)) } ?? .null,
                        "createdAt": Self.date(entry.at),
                    ])
                }))
    }
}

/// An XForm instance document, read into elements.
final class ODKElement {
    let name: String
    let attributes: [String: String]
    var children: [ODKElement] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    func child(_ name: String) -> ODKElement? { children.first { $0.name == name } }
    var value: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}

enum ODKInstance {
    static func parse(_ data: Data) throws -> ODKElement {
        // Foundation's XML parser traps on some bytes that are not UTF-8; DTDs make XML expand.
        guard String(data: data, encoding: .utf8) != nil, !data.contains(0), data.range(of: Data("<!DOCTYPE".utf8)) == nil,
            data.range(of: Data("<!ENTITY".utf8)) == nil
        else {
            throw ODKError.badRequest("The submission is not an XForm instance in UTF-8 XML (without a DTD).")
        }
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), !builder.malformed, let root = builder.root else {
            throw ODKError.badRequest("The submission is not well-formed XML (line \(parser.lineNumber)).")
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: ODKElement?
        var stack: [ODKElement] = []
        var malformed = false

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
        ) {
            let element = ODKElement(name: String(name.split(separator: ":").last ?? Substring(name)), attributes: attributes)
            if let parent = stack.last { parent.children.append(element) } else { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { stack.removeLast() }
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { malformed = true }
    }

    /// The case a follow-up's instance visits, and its patient (``ODKRoutes/followedCase(_:questionnaire:user:editing:)``).
    struct FollowedCase: Equatable {
        var link: CaseLink
        var patient: PatientIdentification
        var patientId: UUID?
    }

    /// The record the instance holds, shaped as the form's XForm (``XFormWriter``); a follow-up's
    /// names `followed` and its patient.
    static func record(
        _ root: ODKElement, questionnaire: Questionnaire, collector: String, deviceId: String, followed: FollowedCase? = nil
    ) throws -> PatientResponse {
        guard let instanceID = root.child("meta")?.child("instanceID")?.value, !instanceID.isEmpty,
            let id = UUID(uuidString: instanceID.lowercased().hasPrefix("uuid:") ? String(instanceID.dropFirst(5)) : instanceID)
        else { throw ODKError(status: .badRequest, code: 400.2, message: "The submission has no meta/instanceID of the form uuid:…") }
        var patient = PatientIdentification()
        if let group = root.child("patient") {
            patient.givenName = group.child("given_name")?.value ?? ""
            patient.familyName = group.child("family_name")?.value ?? ""
            if let text = group.child("date_of_birth")?.value, !text.isEmpty {
                guard let date = LocalDate(iso: String(text.prefix(10))) else {
                    throw ODKError.badRequest("patient/date_of_birth is not a date (YYYY-MM-DD).")
                }
                patient.dateOfBirth = date
            }
            if let text = group.child("sex")?.value, !text.isEmpty {
                guard let sex = PatientIdentification.Sex(rawValue: text) else {
                    throw ODKError.badRequest("patient/sex is one of female, male, other, unknown.")
                }
                patient.sex = sex
            }
            if let text = group.child("external_id")?.value, !text.isEmpty { patient.externalId = text }
        }
        var answers: [Int: [Int: Answer]] = [:]
        for section in questionnaire.sections {
            guard let group = root.child(XFormWriter.elementName(section)) else { continue }
            let read = try answersOf(
                group, questions: section.questions.filter { $0.group == nil }, questionnaire: questionnaire,
                path: XFormWriter.elementName(section))
            if !read.isEmpty { answers[section.number] = read }
        }
        var response = PatientResponse(
            id: id, questionnaire: questionnaire.reference, patient: patient, answers: answers, status: .complete, collector: collector,
            deviceId: deviceId)
        // Before what is hidden is worked out: show-if may read the case and the patient.
        if let followed {
            response.caseLink = followed.link
            response.patient = followed.patient
            response.patientId = followed.patientId
        }
        // A repeat with no instance has no element in an XForm instance: one the form shows was
        // answered with none (count() is 0), as the form stores it; one it hides stays unanswered.
        let hidden = questionnaire.hiddenPositions(in: response)
        for question in questionnaire.allQuestions where question.isRepeat && question.group == nil && response[question.position] == nil {
            if !hidden.contains(question.position) { response[question.position] = .instances([]) }
        }
        return response
    }

    static func answersOf(_ element: ODKElement, questions: [Question], questionnaire: Questionnaire, path: String) throws -> [Int: Answer]
    {
        var answers: [Int: Answer] = [:]
        for question in questions {
            let where_ = "\(path)/\(question.key)"
            if question.isRepeat {
                let members = questionnaire.members(of: question.position).filter { $0.group == question.position }
                let instances = try element.children.filter { $0.name == question.key }.map {
                    try answersOf($0, questions: members, questionnaire: questionnaire, path: where_)
                }
                if !instances.isEmpty { answers[question.position.index] = .instances(instances) }
                continue
            }
            guard let node = element.child(question.key) else { continue }
            if case .compound(let fields) = question.type {
                var values: [String: Answer] = [:]
                for field in fields {
                    if let text = node.child(field.key)?.value, !text.isEmpty {
                        values[field.key] = try answer(text, type: field.type, path: "\(where_)/\(field.key)")
                    }
                }
                if !values.isEmpty { answers[question.position.index] = .dictionary(values) }
                continue
            }
            let text = node.value
            guard !text.isEmpty, question.type != .note else { continue }
            answers[question.position.index] = try answer(text, type: question.type, path: where_)
        }
        return answers
    }

    static func answer(_ text: String, type: QuestionType, path: String) throws -> Answer {
        func refuse(_ what: String) -> ODKError { ODKError(status: .badRequest, code: 400.2, message: "\(path) is not \(what).") }
        switch type {
        case .text: return .text(text)
        case .integer:
            guard let value = Int(text) else { throw refuse("a whole number") }
            return .integer(value)
        case .decimal:
            guard let value = Double(text), value.isFinite else { throw refuse("a number") }
            return .decimal(value)
        case .date:
            guard let date = LocalDate(iso: String(text.prefix(10))) else { throw refuse("a date (YYYY-MM-DD)") }
            return .date(date)
        case .yesNo:
            switch text.lowercased() {
            case "yes", "true", "1": return .yesNo(true)
            case "no", "false", "0": return .yesNo(false)
            default: throw refuse("yes or no")
            }
        case .singleChoice: return .choice(text)
        case .multipleChoice: return .choices(text.split(separator: " ").map(String.init))
        case .geopoint:
            let parts = text.split(separator: " ").compactMap { Double($0) }
            guard parts.count >= 2, (-90...90).contains(parts[0]), (-180...180).contains(parts[1]) else {
                throw refuse("a place ('latitude longitude altitude accuracy')")
            }
            return .geopoint(
                GeoPoint(
                    latitude: parts[0], longitude: parts[1], altitude: parts.count > 2 ? parts[2] : nil,
                    accuracy: parts.count > 3 ? parts[3] : nil))
        case .attachment:
            throw ODKError(
                status: .badRequest, code: 400.2,
                message: "\(path) is a file; files are not taken through the ODK API yet (send the record with intake).")
        case .compound, .note, .repeatGroup:
            throw refuse("an answer this question takes")
        }
    }
}
