import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeServer
import IntakeService
import IntakeXLSForm

/// The part of ODK Central's API that its official client, pyodk, uses, served by `intake serve`
/// under `/odk` (pyodk appends `/v1` to the base URL it is given, which would collide with
/// Intake's own `/v1`): point pyodk at `http://host:port/odk`.
///
/// A team is a project; a questionnaire is a form (its newest published version); a record is a
/// submission. Everything goes through the services Intake's own API uses: the same accounts
/// and sign-in throttling, the record-access policy, consent and de-identification of exports
/// (what the OData feed serves is what a JSON Lines export holds), the review workflow.
public struct ODKModule: ServerModule {
    public init() {}

    static let base = "/odk/v1"
    public var publicPaths: Set<String> { ["\(Self.base)/sessions"] }

    public func register(on router: Router<IntakeRequestContext>, services: IntakeServices) {
        let api = ODKRoutes(services: services)
        let b = Self.base
        router.post("\(b)/sessions") { request, context in await api.answer(request, context) { try await api.signIn(request, context) } }
        router.get("\(b)/users/current") { request, context in await api.answer(request, context) { try api.currentUser(context) } }
        router.get("\(b)/projects") { request, context in await api.answer(request, context) { try await api.projects(context) } }
        router.get("\(b)/projects/:project") { request, context in await api.answer(request, context) { try await api.project(context) } }
        router.get("\(b)/projects/:project/forms") { request, context in await api.answer(request, context) { try await api.forms(context) }
        }
        router.get("\(b)/projects/:project/forms/:form") { request, context in
            await api.answer(request, context) { try await api.form(request, context) }
        }
        router.get("\(b)/projects/:project/forms/:form/:table") { request, context in
            await api.answer(request, context) { try await api.table(request, context) }
        }
        // A repeat's navigation link: Submissions('uuid:…')/section/repeat, its instances.
        router.get("\(b)/projects/:project/forms/:form/:table/**") { request, context in
            await api.answer(request, context) { try await api.table(request, context) }
        }
        router.get("\(b)/projects/:project/forms/:form/submissions") { request, context in
            await api.answer(request, context) { try await api.submissionList(context) }
        }
        // A form's media files: Intake's lists travel inside the XForm, so there are none.
        router.get("\(b)/projects/:project/forms/:form/attachments") { request, context in
            await api.answer(request, context) { try await api.formAttachments(context) }
        }
        router.get("\(b)/projects/:project/forms/:form/attachments/:name") { request, context in
            await api.answer(request, context) { try await api.formAttachment(context) }
        }
        router.post("\(b)/projects/:project/forms/:form/submissions") { request, context in
            await api.answer(request, context) { try await api.createSubmission(request, context) }
        }
        router.get("\(b)/projects/:project/forms/:form/submissions/:instance") { request, context in
            await api.answer(request, context) { try await api.submission(context) }
        }
        router.get("\(b)/projects/:project/forms/:form/submissions/:instance/attachments") { request, context in
            await api.answer(request, context) { try await api.attachments(context) }
        }
        router.put("\(b)/projects/:project/forms/:form/submissions/:instance") { request, context in
            await api.answer(request, context) { try await api.editSubmission(request, context) }
        }
        router.patch("\(b)/projects/:project/forms/:form/submissions/:instance") { request, context in
            await api.answer(request, context) { try await api.review(request, context) }
        }
        router.post("\(b)/projects/:project/forms/:form/submissions/:instance/comments") { request, context in
            await api.answer(request, context) { try await api.comment(request, context) }
        }
        router.get("\(b)/projects/:project/forms/:form/submissions/:instance/comments") { request, context in
            await api.answer(request, context) { try await api.comments(context) }
        }
        // Case lists as entity lists, cases as entities.
        router.get("\(b)/projects/:project/datasets") { request, context in
            await api.answer(request, context) { try await api.datasets(context) }
        }
        router.get("\(b)/projects/:project/datasets/:name/entities") { request, context in
            await api.answer(request, context) { try await api.entities(context) }
        }
        router.post("\(b)/projects/:project/datasets/:name/entities") { request, context in
            await api.answer(request, context) { try await api.createEntity(request, context) }
        }
        router.get("\(b)/projects/:project/datasets/:name/entities/:uuid") { request, context in
            await api.answer(request, context) { try await api.entity(context) }
        }
        router.patch("\(b)/projects/:project/datasets/:name/entities/:uuid") { request, context in
            await api.answer(request, context) { try await api.updateEntity(request, context) }
        }
        router.delete("\(b)/projects/:project/datasets/:name/entities/:uuid") { request, context in
            await api.answer(request, context) { try await api.deleteEntity(context) }
        }
        router.post("\(b)/projects/:project/datasets/:name/properties") { request, context in
            await api.answer(request, context) { try await api.createProperty(request, context) }
        }
        router.get("\(b)/projects/:project/datasets/:name/Entities") { request, context in
            await api.answer(request, context) { try await api.entityTable(request, context) }
        }
        // Anything else under ODK's prefix is refused as Central refuses it ({"code": 404.1}),
        // never in Intake's own error shape: a client reads one kind of error here.
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            router.on(RouterPath("\(b)/**"), method: method) { request, context in
                await api.answer(request, context) { throw ODKError.notFound() }
            }
        }
    }
}

/// An ODK-shaped refusal: `{"code": 404.1, "message": "…"}` with its HTTP status.
struct ODKError: Error {
    var status: HTTPResponse.Status
    var code: Double
    var message: String

    static let unauthenticated = ODKError(
        status: .unauthorized, code: 401.2, message: "Could not authenticate with the provided credentials.")
    static func notFound(_ what: String = "the resource you were looking for") -> ODKError {
        ODKError(status: .notFound, code: 404.1, message: "Could not find \(what).")
    }
    static func badRequest(_ message: String) -> ODKError { ODKError(status: .badRequest, code: 400.1, message: message) }
    static func forbidden(_ message: String) -> ODKError { ODKError(status: .forbidden, code: 403.1, message: message) }
}

struct ODKRoutes: Sendable {
    let services: IntakeServices

    // MARK: Answers

    /// Runs a handler and answers in ODK's shape, whatever it throws: its own refusals, the
    /// services' (mapped as Intake's API maps them), or an outage.
    func answer(_ request: Request, _ context: IntakeRequestContext, _ handler: () async throws -> Response) async -> Response {
        do {
            try admit(request, context)
            return try await handler()
        } catch let error as ODKError {
            return Self.json(.object(["code": .number(error.code), "message": .string(error.message)]), status: error.status)
        } catch {
            if let api = APIError.answer(for: error) {
                let code = Double(api.status.code) + 0.1
                return Self.json(
                    .object(["code": .number(code), "message": .string(api.message), "intakeCode": .string(api.code)]), status: api.status)
            }
            let outage = services.outage(of: error)
            // What failed, by kind only: never a body, an answer or a name.
            context.logger.error(
                "odk: a request failed", metadata: ["error": "\(type(of: error))", "outage": "\(outage.map { "\($0)" } ?? "none")"])
            guard let outage else {
                return Self.json(
                    .object(["code": .number(500.1), "message": .string("The server failed; the request was not carried out.")]),
                    status: .internalServerError)
            }
            let api = APIError.unavailable(outage)
            var response = Self.json(
                .object(["code": .number(503.1), "message": .string(api.message), "intakeCode": .string(api.code)]), status: api.status)
            response.headers.append(contentsOf: api.headers)
            return response
        }
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func date(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        return .string(ODKTime.string(date))
    }

    /// The route's row of ``RoutePolicy`` admits the caller, or refuses ODK's way (a route
    /// without a row: not found, to everyone).
    func admit(_ request: Request, _ context: IntakeRequestContext) throws {
        guard let path = context.endpointPath, let rule = RoutePolicy.rule(request.method.rawValue, path) else { throw ODKError.notFound() }
        guard let refusal = RoutePolicy.refusal(rule, context.identity) else { return }
        if refusal.status == .unauthorized { throw ODKError.unauthenticated }
        throw ODKError.forbidden(refusal.message)
    }

    func user(_ context: IntakeRequestContext) throws -> User {
        guard let user = context.identity else { throw ODKError.unauthenticated }
        return user
    }

    static func parameter(_ context: IntakeRequestContext, _ name: String) -> String {
        context.parameters.get(name) ?? ""  // decoded by the context
    }

    func body(_ request: Request, limit: Int? = nil) async throws -> Data {
        let most = limit ?? services.configuration.maxBodyBytes
        do {
            let buffer = try await withThrowingTaskGroup(of: ByteBuffer.self) { group in
                group.addTask { try await request.body.collect(upTo: most) }
                group.addTask {
                    try await Task.sleep(for: services.configuration.bodyTimeout)
                    throw ODKError(status: .requestTimeout, code: 408.1, message: "The request's body did not arrive in time.")
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
            return Data(buffer: buffer)
        } catch let error as ODKError {
            throw error
        } catch {
            throw ODKError(
                status: .contentTooLarge, code: 413.1, message: "The request's body is larger than the \(most) bytes this server takes.")
        }
    }

    // MARK: Sessions and users

    func signIn(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let data = try await body(request, limit: 64 * 1024)
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: data),
            case .string(let email)? = object["email"], case .string(let password)? = object["password"]
        else { throw ODKError.badRequest("Send {\"email\": …, \"password\": …} as JSON; the email is your Intake user name.") }
        // As Intake's own sign-in: the account tried is named (cut short), never the password.
        let subject = String(email.prefix(100))
        switch try await services.accounts.signIn(username: email, password: password, address: context.clientAddress) {
        case .signedIn(let token, let user, let expiresAt):
            try await services.audit.record(.signIn, by: user.username, subject: user.username, details: ["via": "odk"])
            return Self.json(.object(["token": .string(token), "createdAt": Self.date(Date()), "expiresAt": Self.date(expiresAt)]))
        case .refused:
            try await services.audit.record(.signInFailed, by: "", subject: subject, details: ["via": "odk", "reason": "bad_credentials"])
            throw ODKError.unauthenticated
        case .throttled(let retryAfter):
            try await services.audit.record(.signInFailed, by: "", subject: subject, details: ["via": "odk", "reason": "throttled"])
            throw ODKError(status: .tooManyRequests, code: 429.1, message: "Too many failed sign-ins; try again in \(retryAfter) seconds.")
        case .locked:
            try await services.audit.record(.signInFailed, by: "", subject: subject, details: ["via": "odk", "reason": "account_locked"])
            throw ODKError(
                status: .forbidden, code: 403.1, message: "The account is locked after too many failed sign-ins; an admin can unlock it.")
        }
    }

    func currentUser(_ context: IntakeRequestContext) throws -> Response {
        let user = try user(context)
        return Self.json(
            .object([
                "id": .integer(Int(user.id)), "type": .string("user"), "displayName": .string(user.username),
                "email": .string(user.username),
                "createdAt": Self.date(user.createdAt), "updatedAt": .null, "deletedAt": .null, "role": .string(user.role.rawValue),
            ]))
    }

    // MARK: Projects (teams)

    /// The teams a user sees: an admin and a researcher without a team, all of them; anyone else,
    /// their own.
    func teams(for user: User) async throws -> [Team] {
        let all = try await services.accounts.teams()
        if user.role == .admin || (user.role == .researcher && user.teamId == nil) { return all }
        return all.filter { $0.id == user.teamId }
    }

    func team(_ context: IntakeRequestContext) async throws -> (User, Team) {
        let user = try user(context)
        let id = Self.parameter(context, "project")
        guard let number = Int64(id), let team = try await teams(for: user).first(where: { $0.id == number }) else {
            throw ODKError.notFound("project \(id)")
        }
        return (user, team)
    }

    func projectJSON(_ team: Team, forms: Int, lastSubmission: Date?) -> JSONValue {
        .object([
            "id": .integer(Int(team.id)), "name": .string(team.name), "description": .null, "archived": .bool(false), "keyId": .null,
            "createdAt": Self.date(team.createdAt), "updatedAt": .null, "deletedAt": .null, "appUsers": .integer(0),
            "forms": .integer(forms),
            "lastSubmission": lastSubmission.map(Self.date) ?? .null,
        ])
    }

    func projects(_ context: IntakeRequestContext) async throws -> Response {
        let user = try user(context)
        let count = try await currentForms(for: user).count
        var list: [JSONValue] = []
        for team in try await teams(for: user) {
            list.append(projectJSON(team, forms: count, lastSubmission: try await lastSubmission(team, for: user)))
        }
        return Self.json(.array(list))
    }

    func project(_ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        return Self.json(
            projectJSON(team, forms: try await currentForms(for: user).count, lastSubmission: try await lastSubmission(team, for: user)))
    }

    // MARK: Forms (questionnaires)

    /// Each questionnaire's current version: the newest published one, else the newest closed
    /// or retired (shown closing or closed); drafts are not forms.
    func currentForms(for user: User) async throws -> [PublishedQuestionnaire] {
        var newest: [String: PublishedQuestionnaire] = [:]
        for version in try await services.questionnaires.visible(to: user) where version.status.state != .draft {
            guard let kept = newest[version.id] else {
                newest[version.id] = version
                continue
            }
            let rank: (PublishedQuestionnaire) -> (Int, Date) = { ($0.status.state == .published ? 1 : 0, $0.publishedAt) }
            if rank(version) > rank(kept) { newest[version.id] = version }
        }
        return newest.values.sorted { $0.id < $1.id }
    }

    func form(named id: String, for user: User) async throws -> (PublishedQuestionnaire, Questionnaire) {
        guard let form = try await currentForms(for: user).first(where: { $0.id == id }),
            let questionnaire = try await services.questionnaires.questionnaire(QuestionnaireReference(id: form.id, version: form.version))
        else { throw ODKError.notFound("form \(id)") }
        return (form, questionnaire)
    }

    func formJSON(_ form: PublishedQuestionnaire, _ questionnaire: Questionnaire, project: Team) -> JSONValue {
        let state =
            switch form.status.state {
            case .published: "open"
            case .closed: "closing"
            default: "closed"
            }
        let xform = XFormWriter.xform(questionnaire, formId: form.id, version: form.version)
        return .object([
            "projectId": .integer(Int(project.id)), "xmlFormId": .string(form.id), "name": .string(form.title),
            "version": .string(form.version),
            "hash": .string(Insecure.MD5.hash(data: Data(xform.utf8)).map { String(format: "%02x", $0) }.joined()), "state": .string(state),
            "createdAt": Self.date(form.publishedAt), "updatedAt": Self.date(form.status.changedAt),
            "publishedAt": Self.date(form.publishedAt),
            "enketoId": .null, "enketoOnceId": .null, "keyId": .null,
        ])
    }

    func forms(_ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        var list: [JSONValue] = []
        for form in try await currentForms(for: user) {
            guard
                let questionnaire = try await services.questionnaires.questionnaire(
                    QuestionnaireReference(id: form.id, version: form.version))
            else { continue }
            list.append(formJSON(form, questionnaire, project: team))
        }
        return Self.json(.array(list))
    }

    /// `forms/{id}`, `forms/{id}.xml` (the XForm) and `forms/{id}.svc` (the OData service document).
    func form(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        let segment = Self.parameter(context, "form")
        if segment.hasSuffix(".xml") {
            let (form, questionnaire) = try await form(named: String(segment.dropLast(4)), for: user)
            let xml = XFormWriter.xform(questionnaire, formId: form.id, version: form.version)
            return Response(
                status: .ok, headers: [.contentType: "application/xml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
        }
        if segment.hasSuffix(".svc") {
            let (form, _) = try await form(named: String(segment.dropLast(4)), for: user)
            let root =
                "\(ODKOData.origin(request, tls: services.configuration.tls != nil))\(ODKModule.base)/projects/\(team.id)/forms/\(ODKOData.encoded(form.id)).svc"
            return Self.json(
                .object([
                    "@odata.context": .string("\(root)/$metadata"),
                    "value": .array([
                        .object(["name": .string("Submissions"), "kind": .string("EntitySet"), "url": .string("Submissions")])
                    ]),
                ]))
        }
        let (form, questionnaire) = try await form(named: segment, for: user)
        return Self.json(formJSON(form, questionnaire, project: team))
    }
}

/// Times as Central writes them: UTC with milliseconds.
enum ODKTime {
    static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}
