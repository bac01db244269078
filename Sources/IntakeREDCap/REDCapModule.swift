import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService

/// The part of REDCap's API that PyCap (and REDCap's other clients) use, served by `intake serve`:
/// one form-encoded POST route per questionnaire, `/redcap/{questionnaire}/api/`, which a REDCap
/// client takes as its API URL with a 32-character REDCap-style token
/// (`intake admin token create USER --redcap`).
///
/// A questionnaire is a project; its sections are instruments, repeats at the top of a section
/// repeating instruments; a record is a record (its `record_id` the record's UUID). Everything
/// goes through the services Intake's own API uses: the same accounts and tokens, the export's
/// access policy, consent filter and de-identification (what a record export holds is what a JSON
/// Lines export holds), and the record service's validation for imports.
public struct REDCapModule: ServerModule {
    public init() {}

    /// The REDCap version whose API this follows, answered to `content=version`.
    static let version = "14.0.0"

    public func register(on router: Router<IntakeRequestContext>, services: IntakeServices) {
        let api = REDCapRoutes(services: services)
        // `/redcap/{questionnaire}/api/`: the router takes the trailing slash REDCap clients insist on.
        router.post("/redcap/:questionnaire/api") { request, context in await api.answer(request, context) }
    }
}

/// A REDCap-shaped refusal: `{"error": "…"}` (or `ERROR: …` as text) with its HTTP status.
struct REDCapError: Error {
    var status: HTTPResponse.Status
    var message: String

    static let noToken = REDCapError(status: .forbidden, message: "You do not have permissions to use the API")
    static func bad(_ message: String) -> REDCapError { REDCapError(status: .badRequest, message: message) }
}

struct REDCapRoutes: Sendable {
    let services: IntakeServices

    /// A request's form fields, lists (`fields[0]`, `fields[]`) gathered by name.
    struct Form {
        var values: [String: String] = [:]
        var lists: [String: [String]] = [:]

        subscript(_ name: String) -> String? { values[name] }

        func list(_ name: String) -> [String]? {
            var items = lists[name] ?? []
            if let single = values[name] { items += single.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            let kept = items.filter { !$0.isEmpty }
            return kept.isEmpty ? nil : kept
        }

        init(_ body: String) {
            for pair in body.split(separator: "&") {
                func decoded(_ text: Substring) -> String {
                    let spaced = text.replacingOccurrences(of: "+", with: " ")
                    return spaced.removingPercentEncoding ?? spaced
                }
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = decoded(parts[0])
                let value = parts.count > 1 ? decoded(parts[1]) : ""
                if let open = name.firstIndex(of: "["), name.hasSuffix("]") {
                    lists[String(name[..<open]), default: []].append(value)
                } else {
                    values[name] = value
                }
            }
        }
    }

    enum ReplyFormat: String {
        case json, csv, xml
    }

    func answer(_ request: Request, _ context: IntakeRequestContext) async -> Response {
        var format = ReplyFormat.json
        do {
            let form = try await Self.form(request, limit: services.configuration.maxBodyBytes, timeout: services.configuration.bodyTimeout)
            if let reply = form["returnFormat"] ?? form["format"], let known = ReplyFormat(rawValue: reply.lowercased()) {
                format = known
            } else if form["content"] == "file" {
                // REDCap's errors default to XML; a file request names no format, and PyCap reads
                // its error only so (a JSON error would be saved as the file's bytes).
                format = .xml
            }
            return try await handle(form, context)
        } catch let error as REDCapError {
            return Self.error(error, format: format)
        } catch {
            if let api = APIError.answer(for: error) {
                return Self.error(REDCapError(status: api.status, message: api.message), format: format)
            }
            let outage = services.outage(of: error)
            // What failed, by kind only: never a body, an answer or a name.
            context.logger.error(
                "redcap: a request failed", metadata: ["error": "\(type(of: error))", "outage": "\(outage.map { "\($0)" } ?? "none")"])
            guard let outage else {
                return Self.error(
                    REDCapError(status: .internalServerError, message: "The server failed; the request was not carried out."),
                    format: format)
            }
            let api = APIError.unavailable(outage)
            var response = Self.error(REDCapError(status: api.status, message: api.message), format: format)
            response.headers.append(contentsOf: api.headers)
            return response
        }
    }

    static func error(_ error: REDCapError, format: ReplyFormat) -> Response {
        switch format {
        case .json:
            var writer = JSONWriter(capacity: 128)
            writer.beginObject()
            writer.key("error")
            writer.string(error.message)
            writer.endObject()
            return reply(writer.bytes, type: "application/json; charset=utf-8", status: error.status)
        case .csv: return reply(Array("ERROR: \(error.message)".utf8), type: "text/csv; charset=utf-8", status: error.status)
        case .xml:
            let text = error.message.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            return reply(
                Array("<?xml version=\"1.0\" encoding=\"UTF-8\" ?><hash><error>\(text)</error></hash>".utf8),
                type: "text/xml; charset=utf-8", status: error.status)
        }
    }

    static func reply(_ bytes: [UInt8], type: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: type, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ write: (inout JSONWriter) -> Void) -> Response {
        var writer = JSONWriter()
        write(&writer)
        return reply(writer.bytes, type: "application/json; charset=utf-8")
    }

    /// The form-encoded body, read within the server's size and time limits.
    static func form(_ request: Request, limit: Int, timeout: Duration) async throws -> Form {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("multipart/") {
            throw REDCapError.bad("Files are not taken through this API; send the form fields as application/x-www-form-urlencoded.")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await withThrowingTaskGroup(of: ByteBuffer.self) { group in
                group.addTask { try await request.body.collect(upTo: limit) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw REDCapError(status: .requestTimeout, message: "The request's body did not arrive in time.")
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
        } catch let error as REDCapError {
            throw error
        } catch {
            throw REDCapError(status: .contentTooLarge, message: "The request is larger than the \(limit) bytes this server takes.")
        }
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            throw REDCapError.bad("The request is not UTF-8 text.")
        }
        return Form(text)
    }

    // MARK: Dispatch

    func handle(_ form: Form, _ context: IntakeRequestContext) async throws -> Response {
        guard let token = form["token"], token.utf8.count == 32 else { throw REDCapError.noToken }
        let user: User
        switch try await services.accounts.user(token: token, address: context.clientAddress) {
        case .user(let found): user = found
        case .unknown: throw REDCapError.noToken
        case .throttled(let retryAfter):
            throw REDCapError(
                status: .tooManyRequests,
                message: "Too many requests with unknown tokens from this address; try again in \(retryAfter) seconds.")
        }
        let questionnaireId = context.parameters.get("questionnaire") ?? ""  // decoded by the context
        guard let content = form["content"], !content.isEmpty else { throw REDCapError.bad("The parameter 'content' is missing.") }
        if let format = form["format"], ReplyFormat(rawValue: format.lowercased()) == nil {
            throw REDCapError.bad("The value of the parameter 'format' is not valid: use json or csv.")
        }
        let format = ReplyFormat(rawValue: (form["format"] ?? "json").lowercased()) ?? .json
        guard format != .xml || content == "version" else {
            throw REDCapError.bad("This server answers in json or csv; send format=json or format=csv.")
        }
        // The action's row of ``RoutePolicy`` admits the token's user, or refuses REDCap's way.
        let action =
            content != "record"
            ? content : form["action"] == "delete" ? "record:delete" : form["data"] != nil ? "record:import" : "record:export"
        guard let rule = RoutePolicy.rule("POST", "/redcap/{questionnaire}/api", action: action) else {
            throw REDCapError.bad(
                "The value of the parameter 'content' is not valid: \(content.prefix(40)) is not supported by this server.")
        }
        if let refusal = RoutePolicy.refusal(rule, user) { throw REDCapError(status: refusal.status, message: refusal.message) }
        switch content {
        case "version":
            return Self.reply(Array(REDCapModule.version.utf8), type: "text/plain; charset=utf-8")
        case "project":
            let project = try await self.project(questionnaireId, for: user)
            return Self.rows(projectInfo(project), format: format)
        case "metadata":
            let project = try await self.project(questionnaireId, for: user)
            let rows = project.metadata(fields: form.list("fields").map(Set.init), forms: form.list("forms").map(Set.init))
            return Self.rows(rows, format: format)
        case "exportFieldNames":
            let project = try await self.project(questionnaireId, for: user)
            return Self.rows(fieldNames(project, only: form["field"]), format: format)
        case "instrument":
            let project = try await self.project(questionnaireId, for: user)
            return Self.rows(project.instruments.map { [("instrument_name", $0.name), ("instrument_label", $0.label)] }, format: format)
        case "repeatingFormsEvents":
            let project = try await self.project(questionnaireId, for: user)
            return Self.rows(
                project.instruments.filter(\.repeating).map { [("form_name", $0.name), ("custom_form_label", "")] }, format: format)
        case "formEventMapping", "event", "arm":
            throw REDCapError.bad("You cannot export form/event mappings for classic projects")
        case "generateNextRecordName":
            _ = try await self.project(questionnaireId, for: user)
            return Self.reply(Array(UUID().uuidString.lowercased().utf8), type: "text/plain; charset=utf-8")
        case "record":
            if let type = form["type"], type != "flat" {
                throw REDCapError.bad("This server exports the flat format only; send type=flat.")
            }
            if form["data"] != nil { return try await importRecords(form, questionnaireId: questionnaireId, user: user, context) }
            return try await exportRecords(form, questionnaireId: questionnaireId, user: user, format: format)
        default:
            throw REDCapError.bad(
                "The value of the parameter 'content' is not valid: \(content.prefix(40)) is not supported by this server.")
        }
    }

    // MARK: Project

    /// The project for `questionnaireId` as `user` sees it: every published (or closed) version.
    func project(_ questionnaireId: String, for user: User) async throws -> REDCapProject {
        let plan = try await plan(questionnaireId, for: user)
        return REDCapProject(plan: plan, followUps: try await followUps(of: plan, for: user))
    }

    /// The published questionnaires `user` sees that follow a case list `plan`'s questionnaire
    /// opens, as plans (sorted by id): each a repeating instrument of its visits.
    func followUps(of plan: ExportPlan, for user: User) async throws -> [ExportPlan] {
        let opened = Set(plan.versions.flatMap { $0.cases.opens.map(\.list) })
        guard !opened.isEmpty else { return [] }
        var ids: Set<String> = []
        for published in try await services.questionnaires.visible(to: user)
        where published.status.state != .draft && published.id != plan.questionnaireId && !ids.contains(published.id) {
            guard
                let questionnaire = try? await services.questionnaires.questionnaire(
                    QuestionnaireReference(id: published.id, version: published.version)),
                let list = questionnaire.cases.follows?.list, opened.contains(list)
            else { continue }
            ids.insert(published.id)
        }
        var plans: [ExportPlan] = []
        for id in ids.sorted() { plans.append(try await self.plan(id, for: user)) }
        return plans
    }

    func plan(_ questionnaireId: String, for user: User) async throws -> ExportPlan {
        let versions = try await services.questionnaires.visible(to: user)
            .filter { $0.id == questionnaireId && $0.status.state != .draft }
            .sorted { $0.publishedAt < $1.publishedAt }
        var questionnaires: [Questionnaire] = []
        for version in versions {
            if let questionnaire = try await services.questionnaires.questionnaire(
                QuestionnaireReference(id: version.id, version: version.version))
            {
                questionnaires.append(questionnaire)
            }
        }
        guard !questionnaires.isEmpty else {
            throw REDCapError(
                status: .notFound,
                message:
                    "There is no published questionnaire '\(questionnaireId.prefix(80))' this token may see; the API URL ends /redcap/QUESTIONNAIRE/api/."
            )
        }
        do {
            return try ExportPlan(questionnaires: questionnaires)
        } catch {
            throw REDCapError.bad(error.description)
        }
    }

    func projectInfo(_ project: REDCapProject) -> [(String, String)] {
        [
            ("project_id", project.questionnaireId), ("project_title", project.title), ("creation_time", ""), ("production_time", ""),
            ("in_production", "1"), ("project_language", "English"), ("purpose", "2"), ("purpose_other", ""),
            ("project_notes", "Served by Intake"),
            ("custom_record_label", ""), ("secondary_unique_field", ""), ("is_longitudinal", "0"),
            ("has_repeating_instruments_or_events", project.hasRepeats ? "1" : "0"), ("surveys_enabled", "0"), ("scheduling_enabled", "0"),
            ("record_autonumbering_enabled", "0"), ("randomization_enabled", "0"), ("ddp_enabled", "0"), ("project_irb_number", ""),
            ("project_grant_number", ""), ("project_pi_firstname", ""), ("project_pi_lastname", ""), ("display_today_now_button", "1"),
            ("missing_data_codes", ""), ("external_modules", ""), ("bypass_branching_erase_field_prompt", "0"),
        ]
    }

    func fieldNames(_ project: REDCapProject, only: String?) -> [[(String, String)]] {
        var rows: [[(String, String)]] = []
        for field in project.fields where field.holdsData && (only.map { $0.isEmpty || $0 == field.name } ?? true) {
            for (name, code) in field.exportNames {
                rows.append([("original_field_name", field.name), ("choice_value", code ?? ""), ("export_field_name", name)])
            }
        }
        return rows
    }

    // MARK: Replies

    /// Rows as a JSON array of objects (keys in the order given) or as CSV with a header.
    static func rows(_ rows: [[(String, String)]], format: ReplyFormat) -> Response {
        if format == .csv {
            var text = ""
            if let first = rows.first { text += CSV.line(first.map(\.0)) }
            for row in rows { text += CSV.line(row.map(\.1)) }
            return reply(Array(text.utf8), type: "text/csv; charset=utf-8")
        }
        return json { writer in
            writer.beginArray()
            for row in rows {
                writer.beginObject()
                for (key, value) in row {
                    writer.key(key)
                    // REDCap writes an instance's number as a number (and "" on a record's own row).
                    if key == "redcap_repeat_instance", let number = Int(value) { writer.integer(number) } else { writer.string(value) }
                }
                writer.endObject()
            }
            writer.endArray()
        }
    }

    static func rows(_ rows: [(String, String)], format: ReplyFormat) -> Response {
        if format == .csv { return Self.rows([rows], format: format) }
        return json { writer in
            writer.beginObject()
            for (key, value) in rows {
                writer.key(key)
                writer.string(value)
            }
            writer.endObject()
        }
    }
}
