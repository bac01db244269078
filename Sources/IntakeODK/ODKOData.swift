import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService
import IntakeXLSForm

/// `GET …/forms/{id}.svc/Submissions`: a form's submissions as OData rows, read from the same
/// export a JSON Lines download is (access, consent and de-identification included), so every
/// value is the export's. Rows follow the form's XForm instance: `patient` and a group per
/// section, each question by id, `null` when unanswered; repeats as navigation links, or inline
/// with `$expand=*`.
enum ODKOData {
    /// `https://host:port` (or http), as the request reached us: https when the server speaks
    /// TLS or a proxy says it did (`X-Forwarded-Proto`), so a link followed never drops to http.
    static func origin(_ request: Request, tls: Bool) -> String {
        let host = request.head.authority ?? "127.0.0.1"
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
        return "\(tls || forwarded ? "https" : "http")://\(host)"
    }

    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static let supported: Set<String> = ["$top", "$skip", "$count", "$wkt", "$filter", "$expand", "$select", "$skiptoken", "$format"]

    /// A request's query, form-encoded as requests sends it (`+` a space, `%2B` a plus) and
    /// decoded here, once; a parameter outside `supported` (when given) is refused as Central
    /// refuses a feature it lacks (501).
    static func query(_ request: Request, supported: Set<String>? = nil) throws -> [String: String] {
        func decoded(_ text: Substring) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        var query: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decoded(parts[0])
            if let supported, !supported.contains(name) {
                throw ODKError(
                    status: .notImplemented, code: 501.1,
                    message: "The requested feature \(name.prefix(40)) is not supported by this server.")
            }
            query[name] = decoded(parts.count > 1 ? parts[1] : "")
        }
        return query
    }

    /// A paging parameter (`$top`, `$skip`): a whole number, 0 or more.
    static func number(_ query: [String: String], _ name: String) throws -> Int? {
        guard let text = query[name] else { return nil }
        guard let value = Int(text), value >= 0 else { throw ODKError.badRequest("\(name) must be a whole number, 0 or more.") }
        return value
    }

    struct Row {
        var id: String
        var submitted: Date
        var updated: Date?
        var reviewState: String?
        /// The collector's account id: Central's submitter is its actor id, a number.
        var submitter: Int64?
        var value: [String: JSONValue]
    }
}

extension ODKRoutes {
    /// Who may read: as for an export (coordinators their team's, researchers with consent),
    /// always without identifiers.
    func exportReach(_ user: User, team: Team) throws -> ExportReach {
        let reach: ExportReach
        switch RecordAccessPolicy.export(
            by: user, includeIdentifiers: false, unlinkedRecordsReachResearchers: services.configuration.unlinkedRecordsReachResearchers)
        {
        case .success(let allowed): reach = allowed
        case .failure(.noTeam): throw ODKError.forbidden("Your account belongs to no team; ask an admin to add it to one.")
        case .failure: throw ODKError.forbidden("Only coordinators and researchers read submissions, as they export records.")
        }
        if let own = reach.teamId, own != team.id { throw ODKError.notFound("project \(team.id)") }
        return reach
    }

    func table(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        let segment = Self.parameter(context, "form")
        guard segment.hasSuffix(".svc") else { throw ODKError.notFound() }
        let (form, _) = try await form(named: String(segment.dropLast(4)), for: user)
        let table = Self.parameter(context, "table")
        var single: String?
        if table.hasPrefix("Submissions('"), table.hasSuffix("')") {
            single = String(table.dropFirst("Submissions('".count).dropLast(2))
        } else if table != "Submissions" {
            throw ODKError(
                status: .notImplemented, code: 501.1,
                message: "The requested feature \(table) is not supported by this server; it serves the Submissions table.")
        }
        let query = try ODKOData.query(request, supported: ODKOData.supported)
        func flag(_ name: String) -> Bool { query[name]?.lowercased() == "true" }
        func number(_ name: String) throws -> Int? { try ODKOData.number(query, name) }
        let filter = try query["$filter"].map { text in
            do { return try ODKFilter.parse(text) } catch let error as ODKFilter.Unsupported {
                throw ODKError(
                    status: .notImplemented, code: 501.1,
                    message: "The requested feature $filter \(error.what) is not supported by this server.")
            }
        }
        // A navigation link's path (`demographics/household_members`): one submission's repeat.
        let navigation = context.parameters.getCatchAll().map(String.init)
        guard navigation.isEmpty || single != nil else { throw ODKError.notFound() }
        let expand = !navigation.isEmpty || (query["$expand"].map { $0 == "*" } ?? false)
        let wkt = flag("$wkt")

        var rows = try await submissionRows(form: form.id, user: user, team: team, expand: expand, wkt: wkt, via: "odata")
        if let single {
            let wanted = single.lowercased().hasPrefix("uuid:") ? single.lowercased() : "uuid:\(single.lowercased())"
            rows = rows.filter { $0.id == wanted }
            guard !rows.isEmpty else { throw ODKError.notFound("submission \(single)") }
        }
        if let filter { rows = rows.filter { filter.holds(for: $0) } }
        if !navigation.isEmpty {
            return try Self.repeatTable(
                rows, path: navigation, request: request, team: team.id, form: form.id, tls: services.configuration.tls != nil)
        }
        let total = rows.count
        var start = try number("$skip") ?? 0
        if let token = query["$skiptoken"] {
            guard let after = ODKSkipToken.instance(token), let index = rows.firstIndex(where: { $0.id == after }) else {
                throw ODKError.badRequest("The $skiptoken is not one this server gave.")
            }
            start = index + 1
        }
        let top = try number("$top")
        start = min(start, rows.count)
        let end = top.map { start + min($0, rows.count - start) } ?? rows.count  // no overflow, whatever $top says
        let page = start < rows.count ? Array(rows[start..<end]) : []
        let root =
            "\(ODKOData.origin(request, tls: services.configuration.tls != nil))\(ODKModule.base)/projects/\(team.id)/forms/\(ODKOData.encoded(form.id)).svc"
        var document: [String: JSONValue] = [
            "value": .array(page.map { row in .object(ODKRow.select(row.value, query["$select"])) }),
            "@odata.context": .string("\(root)/$metadata#Submissions"),
        ]
        if top != nil, end < rows.count, let last = page.last {
            var parameters = query.filter { $0.key != "$skip" && $0.key != "$skiptoken" }
            parameters["$skiptoken"] = ODKSkipToken.make(last.id)
            let text = parameters.sorted { $0.key < $1.key }.map { "\(ODKOData.encoded($0.key))=\(ODKOData.encoded($0.value))" }.joined(
                separator: "&")
            document["@odata.nextLink"] = .string("\(root)/Submissions?\(text)")
        }
        if flag("$count") { document["@odata.count"] = .integer(total) }
        return Self.json(.object(document))
    }
}

extension ODKRoutes {
    /// A form's submissions as the feed shows them, newest first: what an export of the team's
    /// records gives this user (coordinators their team's, researchers what consent shares),
    /// each read audited as an export.
    func submissionRows(form: String, user: User, team: Team, expand: Bool, wkt: Bool, via: String) async throws -> [ODKOData.Row] {
        let reach = try exportReach(user, team: team)
        let prepared = try await services.exports.prepare(
            ExportService.Request(questionnaireId: form, teamId: team.id, consent: reach.consent))
        try await services.audit.record(
            .export, by: user.username, details: ["format": via, "questionnaire": form, "via": "odk", "records": String(prepared.count)])
        let formatter = JSONLinesFormatter(plan: prepared.plan)
        let pager = services.exports.pager(prepared, formats: [.jsonLines])
        var rows: [ODKOData.Row] = []
        var questionnaires: [String: Questionnaire] = [:]
        let actors = try await actorIds()
        while let page = try await pager.next() {
            for input in page {
                guard let record = input.record else { continue }
                // The line a JSON Lines export writes, read back: its values are the feed's.
                let line = try formatter.row(record).trimmingCharacters(in: .whitespacesAndNewlines)
                let shown = try ExportRecord(jsonLine: Data(line.utf8))
                let version = shown.record.questionnaire.version
                if questionnaires[version] == nil {
                    questionnaires[version] = try await services.questionnaires.questionnaire(shown.record.questionnaire)
                }
                guard let questionnaire = questionnaires[version] else { continue }
                rows.append(
                    ODKRow.make(shown, questionnaire: questionnaire, expand: expand, wkt: wkt, submitter: actors[shown.record.collector]))
            }
        }
        rows.sort { ($0.submitted, $0.id) > ($1.submitted, $1.id) }  // newest first, as Central
        return rows
    }

    /// `GET …/forms/{form}/submissions` (pyodk's `submissions.list`): each submission's metadata,
    /// newest first, as Central lists them.
    func submissionList(_ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        let (form, _) = try await form(named: Self.parameter(context, "form"), for: user)
        let rows = try await submissionRows(form: form.id, user: user, team: team, expand: false, wkt: false, via: "odk-submissions")
        return Self.json(
            .array(
                rows.map { row in
                    let system: [String: JSONValue] = if case .object(let object)? = row.value["__system"] { object } else { [:] }
                    let device: JSONValue = if case .string(let text)? = system["deviceId"], !text.isEmpty { .string(text) } else { .null }
                    return .object([
                        "instanceId": .string(row.id), "submitterId": row.submitter.map { .integer(Int($0)) } ?? .null, "deviceId": device,
                        "createdAt": Self.date(row.submitted), "updatedAt": row.updated.map(Self.date) ?? .null,
                        "reviewState": row.reviewState.map(JSONValue.string) ?? .null, "userAgent": .null, "deletedAt": .null,
                    ])
                }))
    }

    /// When the project's newest submission was made, over the forms this user may read; nil
    /// when there is none, or the user reads no submissions (a field worker).
    func lastSubmission(_ team: Team, for user: User) async throws -> Date? {
        guard (try? exportReach(user, team: team)) != nil else { return nil }
        var newest: Date?
        for form in try await currentForms(for: user) {
            if let first = try await submissionRows(form: form.id, user: user, team: team, expand: false, wkt: false, via: "odk-project")
                .first
            {
                newest = max(newest ?? first.submitted, first.submitted)
            }
        }
        return newest
    }

    /// The instances a repeat's navigation link names, as Central answers it: each with its
    /// `__id` and its parent's. The path walks groups to the repeat (a repeat inside a repeat is
    /// reached through the outer one's expanded rows, not by a link of its own here).
    static func repeatTable(_ rows: [ODKOData.Row], path: [String], request: Request, team: Int64, form: String, tls: Bool) throws
        -> Response
    {
        guard let row = rows.first else { throw ODKError.notFound("the submission") }
        var current: JSONValue = .object(row.value)
        for key in path {
            guard case .object(let object) = current, let next = object[key] else {
                throw ODKError.notFound("\(path.joined(separator: "/")) in this submission")
            }
            current = next
        }
        guard case .array(let instances) = current else { throw ODKError.notFound("a repeat at \(path.joined(separator: "/"))") }
        let root = "\(ODKOData.origin(request, tls: tls))\(ODKModule.base)/projects/\(team)/forms/\(ODKOData.encoded(form)).svc"
        return json(
            .object(["value": .array(instances), "@odata.context": .string("\(root)/$metadata#Submissions.\(path.joined(separator: "."))")])
        )
    }
}

/// `$skiptoken`: `01` and the base64 of `{"instanceId": "uuid:…"}`, as Central writes it.
enum ODKSkipToken {
    static func make(_ instance: String) -> String {
        "01" + Data("{\"instanceId\":\"\(instance)\"}".utf8).base64EncodedString()
    }

    static func instance(_ token: String) -> String? {
        guard token.hasPrefix("01"), let data = Data(base64Encoded: String(token.dropFirst(2))),
            let object = try? JSONDecoder().decode([String: String].self, from: data)
        else { return nil }
        return object["instanceId"]
    }
}

/// One record as an OData row.
enum ODKRow {
    static func make(_ shown: ExportRecord, questionnaire: Questionnaire, expand: Bool, wkt: Bool, submitter: Int64?) -> ODKOData.Row {
        let record = shown.record
        let id = "uuid:\(record.id.uuidString.lowercased())"
        var value: [String: JSONValue] = ["__id": .string(id)]
        let reviewState: String? =
            switch shown.reviewState {
            case "has_issues": "hasIssues"
            case "edited", "approved", "rejected": shown.reviewState
            default: nil
            }
        var system: [String: JSONValue] = [:]
        system["submissionDate"] = .string(ODKTime.string(record.createdAt))
        system["updatedAt"] = .string(ODKTime.string(record.updatedAt))
        system["deletedAt"] = .null
        system["submitterId"] = submitter.map { .string(String($0)) } ?? .null
        system["submitterName"] = .string(record.collector)
        system["attachmentsPresent"] = .integer(record.attachments.count)
        system["attachmentsExpected"] = .integer(record.attachments.count)
        system["status"] = .null
        system["reviewState"] = reviewState.map(JSONValue.string) ?? .null
        system["deviceId"] = .string(record.deviceId)
        system["edits"] = .integer(max(0, (shown.revision ?? 1) - 1))
        system["formVersion"] = .string(record.questionnaire.version)
        value["__system"] = .object(system)
        value["meta"] = .object(["instanceID": .string(id)])
        let patient = record.patient
        var identification: [String: JSONValue] = [:]
        identification["given_name"] = patient.givenName.isEmpty ? .null : .string(patient.givenName)
        identification["family_name"] = patient.familyName.isEmpty ? .null : .string(patient.familyName)
        identification["date_of_birth"] = patient.dateOfBirth.map { .string($0.description) } ?? .null
        identification["sex"] = patient.sex.map { .string($0.rawValue) } ?? .null
        identification["external_id"] = patient.externalId.map(JSONValue.string) ?? .null
        value["patient"] = .object(identification)
        for section in questionnaire.sections {
            var group: [String: JSONValue] = [:]
            let answers = record.answers[section.number] ?? [:]
            fill(
                &group, questions: section.questions.filter { $0.group == nil }, questionnaire: questionnaire, answers: answers,
                link: "Submissions('\(id)')/\(XFormWriter.elementName(section))", expand: expand, wkt: wkt, parent: ("__Submissions-id", id)
            )
            value[XFormWriter.elementName(section)] = .object(group)
        }
        return ODKOData.Row(
            id: id, submitted: record.createdAt, updated: record.updatedAt, reviewState: reviewState, submitter: submitter, value: value)
    }

    /// The questions' values into `group`; a repeat's instances read their members by index.
    /// `parent`: the key and id an expanded instance names its parent by, as Central's rows do
    /// (`__Submissions-id` for a repeat of the submission; within a repeat, that repeat's).
    static func fill(
        _ group: inout [String: JSONValue], questions: [Question], questionnaire: Questionnaire, answers: [Int: Answer], link: String,
        expand: Bool,
        wkt: Bool, parent: (key: String, id: String)
    ) {
        for question in questions {
            let answer = answers[question.position.index]
            guard question.isRepeat else {
                group[question.key] = answer.map { json($0, wkt: wkt) } ?? .null
                continue
            }
            group["\(question.key)@odata.navigationLink"] = .string("\(link)/\(question.key)")
            guard expand else { continue }
            let members = questionnaire.members(of: question.position).filter { $0.group == question.position }
            var instances: [JSONValue] = []
            if case .instances(let list)? = answer {
                for (number, instance) in list.enumerated() {
                    // Each instance's own id, the same every time it is read: its place under its parent.
                    let instanceId = Insecure.SHA1.hash(data: Data("\(parent.id)/\(question.key)/\(number + 1)".utf8)).map {
                        String(format: "%02x", $0)
                    }.joined()
                    var object: [String: JSONValue] = ["__id": .string(instanceId), parent.key: .string(parent.id)]
                    fill(
                        &object, questions: members, questionnaire: questionnaire, answers: instance, link: "\(link)/\(question.key)",
                        expand: expand, wkt: wkt,
                        parent: ("__Submissions-\(question.key)-id", instanceId))
                    instances.append(.object(object))
                }
            }
            group[question.key] = .array(instances)
        }
    }

    static func json(_ answer: Answer, wkt: Bool) -> JSONValue {
        switch answer {
        case .text(let text): .string(text)
        case .integer(let value): .integer(value)
        case .decimal(let value): .number(value)
        case .date(let date): .string(date.description)
        case .yesNo(let value): .string(value ? "yes" : "no")
        case .choice(let code): .string(code)
        case .choices(let codes): .string(codes.joined(separator: " "))
        case .dictionary(let fields): .object(fields.mapValues { json($0, wkt: wkt) })
        case .geopoint(let point):
            if wkt {
                .string("POINT (\(point.longitude) \(point.latitude)\(point.altitude.map { " \($0)" } ?? ""))")
            } else {
                // Central leaves `properties` out when the point has no accuracy.
                .object(
                    [
                        "type": .string("Point"),
                        "coordinates": .array(
                            [.number(point.longitude), .number(point.latitude)] + (point.altitude.map { [.number($0)] } ?? [])),
                    ].merging(point.accuracy.map { ["properties": JSONValue.object(["accuracy": .number($0)])] } ?? [:]) { $1 })
            }
        case .attachment(let reference): .string(reference.fileName)
        case .instances(let list): .integer(list.count)
        }
    }

    /// `$select=__id,demographics/household_size`: only those properties (a group keeps the
    /// children asked for).
    static func select(_ row: [String: JSONValue], _ selection: String?) -> [String: JSONValue] {
        guard let selection, !selection.isEmpty else { return row }
        var kept: [String: JSONValue] = [:]
        for path in selection.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let parts = path.split(separator: "/").map(String.init)
            guard let first = parts.first, let value = row[first] else { continue }
            guard parts.count == 2, case .object(let children) = value, let child = children[parts[1]] else {
                kept[first] = value
                continue
            }
            var group: [String: JSONValue] = [:]
            if case .object(let already)? = kept[first] { group = already }
            group[parts[1]] = child
            kept[first] = .object(group)
        }
        return kept
    }
}
