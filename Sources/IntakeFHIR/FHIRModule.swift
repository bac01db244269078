import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService

/// HL7 FHIR R4 REST, read-only, served by `intake serve` under `/fhir` (point a FHIR client such
/// as fhirclient at `http://host:port/fhir`):
///
/// * `GET /fhir/metadata`: the CapabilityStatement, public (no token);
/// * `Questionnaire/{id}` and `Questionnaire?…`: each published version (not drafts), for any
///   signed-in user;
/// * `QuestionnaireResponse/{record id}` and `QuestionnaireResponse?…`: the records, read from the
///   same export a JSON Lines download is (so the same access, consent and de-identification,
///   and every value the export's), for whoever may export them: coordinators their team's,
///   researchers what each patient's consent shares with their access level;
/// * `Patient/{patient key}` and `Patient?…`: the patients of those records, for whoever may
///   export identifiers (coordinators; never researchers).
///
/// Everything else needs the server's bearer token (`Authorization: Bearer …`), and every
/// refusal is an OperationOutcome with its HTTP status. Reads are audited as exports (`via: fhir`).
public struct FHIRModule: ServerModule {
    public init() {}

    static let base = "/fhir"
    public var publicPaths: Set<String> { ["\(Self.base)/metadata"] }

    public func register(on router: Router<IntakeRequestContext>, services: IntakeServices) {
        let api = FHIRRoutes(services: services)
        let b = Self.base
        router.get("\(b)/metadata") { request, context in
            await api.answer(request, context) {
                try FHIRRoutes.negotiate(request)
                return try api.capabilityStatement(request)
            }
        }
        router.get("\(b)/:type") { request, context in
            await api.answer(request, context) {
                try FHIRRoutes.negotiate(request)
                return try await api.search(request, context)
            }
        }
        router.get("\(b)/:type/:id") { request, context in
            await api.answer(request, context) {
                try FHIRRoutes.negotiate(request)
                return try await api.read(request, context)
            }
        }
        router.get("\(b)/:type/:id/**") { request, context in
            await api.answer(request, context) {
                throw FHIRError(
                    status: .notFound, code: "not-supported",
                    message: "This server reads resources (GET /fhir/{type}/{id}) and searches them (GET /fhir/{type}?…); nothing else.")
            }
        }
        for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
            for path in ["\(b)", "\(b)/metadata", "\(b)/:type", "\(b)/:type/:id", "\(b)/:type/:id/**"] {
                router.on(RouterPath(path), method: method) { request, context in
                    await api.answer(request, context) {
                        throw FHIRError(
                            status: .methodNotAllowed, code: "not-supported",
                            message:
                                "This FHIR server is read-only: it takes GET (read and search); records are written through Intake's own API.",
                            headers: [.allow: "GET"])
                    }
                }
            }
        }
    }
}

/// A refusal, answered as an OperationOutcome with its HTTP status.
struct FHIRError: Error {
    var status: HTTPResponse.Status
    /// The issue type (R4 `IssueType`): `invalid`, `login`, `forbidden`, `not-found`, `not-supported`, `transient`, `exception`…
    var code: String
    var message: String
    var headers: HTTPFields = [:]

    static let unauthenticated = FHIRError(
        status: .unauthorized, code: "login",
        message: "Send a valid token as 'Authorization: Bearer <token>' (intake admin token create, or POST /v1/sessions).",
        headers: [.wwwAuthenticate: "Bearer"])

    static func invalid(_ message: String) -> FHIRError { FHIRError(status: .badRequest, code: "invalid", message: message) }
    static func forbidden(_ message: String) -> FHIRError { FHIRError(status: .forbidden, code: "forbidden", message: message) }
    static func notFound(_ type: String, _ id: String) -> FHIRError {
        FHIRError(status: .notFound, code: "not-found", message: "\(type)/\(id.prefix(80)) is not known, or not yours to read.")
    }
    static func badModifier(_ parameter: FHIRQuery.Parameter) -> FHIRError {
        FHIRError(
            status: .badRequest, code: "not-supported",
            message: "The modifier :\(parameter.modifier?.prefix(40) ?? "") is not supported for \(parameter.name.prefix(40)).")
    }
}

struct FHIRRoutes: Sendable {
    let services: IntakeServices

    static let contentType = "application/fhir+json; charset=utf-8"

    /// This server answers in JSON only: a `_format` or an `Accept` that allows no JSON (XML,
    /// Turtle, HTML) is 406, as FHIR asks, never a JSON answer the client did not want.
    static func negotiate(_ request: Request) throws {
        func json(_ type: String) -> Bool {
            // A `+` in a query may arrive as a space (form encoding).
            let bare = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            return [
                "json", "application/json", "application/fhir+json", "application/fhir json", "application/json+fhir",
                "application/json fhir",
            ].contains(bare)
        }
        let refusal = FHIRError(
            status: .notAcceptable, code: "not-supported",
            message:
                "This server answers in JSON only (application/fhir+json): leave _format out or give _format=json, and accept application/fhir+json."
        )
        if let format = request.uri.queryParameters["_format"].map(String.init) {
            guard json(format) else { throw refusal }
        }
        if let accept = request.headers[.accept], !accept.isEmpty {
            let types = accept.split(separator: ",").map { String($0) }
            let acceptable = types.contains { type in
                let bare = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                return json(type) || bare == "*/*" || bare == "application/*"
            }
            guard acceptable else { throw refusal }
        }
    }

    // MARK: Answers

    /// Runs a handler and answers in FHIR's shape whatever it throws: its own refusals, the
    /// services' (with their status), an outage (503) or a failure (500, logged by kind only).
    func answer(_ request: Request, _ context: IntakeRequestContext, _ handler: () async throws -> Response) async -> Response {
        do {
            try admit(request, context)
            return try await handler()
        } catch let error as FHIRError {
            return Self.outcome(error)
        } catch {
            if let api = APIError.answer(for: error) {
                let code: String =
                    switch api.status.code {
                    case 400, 422: "invalid"
                    case 401: "login"
                    case 403: "forbidden"
                    case 404: "not-found"
                    case 409: "conflict"
                    case 410: "deleted"
                    case 429: "throttled"
                    default: "processing"
                    }
                return Self.outcome(FHIRError(status: api.status, code: code, message: api.message, headers: api.headers))
            }
            let outage = services.outage(of: error)
            // What failed, by kind only: never a query, an answer or a name.
            context.logger.error(
                "fhir: a request failed", metadata: ["error": "\(type(of: error))", "outage": "\(outage.map { "\($0)" } ?? "none")"])
            if let outage {
                let api = APIError.unavailable(outage)
                return Self.outcome(FHIRError(status: api.status, code: "transient", message: api.message, headers: api.headers))
            }
            return Self.outcome(
                FHIRError(status: .internalServerError, code: "exception", message: "The server failed; the request was not carried out."))
        }
    }

    static func outcome(_ error: FHIRError) -> Response {
        let body = OrderedJSON.object([
            ("resourceType", .string("OperationOutcome")),
            (
                "issue",
                .array([.object([("severity", .string("error")), ("code", .string(error.code)), ("diagnostics", .string(error.message))])])
            ),
        ])
        var response = resource(body.text, status: error.status)
        response.headers.append(contentsOf: error.headers)
        return response
    }

    static func resource(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The row of ``RoutePolicy`` for the route (and, named, the resource type it acts on) admits
    /// the caller, or refuses FHIR's way. A route without a row is refused to everyone.
    func admit(_ request: Request, _ context: IntakeRequestContext, type: String? = nil) throws {
        guard let path = context.endpointPath, let rule = RoutePolicy.rule(request.method.rawValue, path, action: type) else {
            throw type.map(Self.unknownType) ?? FHIRError(status: .notFound, code: "not-found", message: "No such route.")
        }
        guard let refusal = RoutePolicy.refusal(rule, context.identity) else { return }
        if refusal.status == .unauthorized { throw FHIRError.unauthenticated }
        throw refusal
    }

    func user(_ context: IntakeRequestContext) throws -> User {
        guard let user = context.identity else { throw FHIRError.unauthenticated }
        return user
    }

    static func parameter(_ context: IntakeRequestContext, _ name: String) -> String {
        context.parameters.get(name) ?? ""  // decoded by the context
    }

    /// The FHIR base as the request reached us (`https://host:port/fhir`): https when the server
    /// speaks TLS or a proxy says it did (`X-Forwarded-Proto`), so links followed never drop to http.
    func base(_ request: Request) -> String {
        let host = request.head.authority ?? "127.0.0.1"
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
        return "\(services.configuration.tls != nil || forwarded ? "https" : "http")://\(host)\(FHIRModule.base)"
    }

    // MARK: Dispatch

    func read(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let type = Self.parameter(context, "type")
        let id = Self.parameter(context, "id")
        try admit(request, context, type: type)
        switch type {
        case "QuestionnaireResponse": return try await readResponse(id, request, context)
        case "Questionnaire": return try await readQuestionnaire(id, request, context)
        case "Patient": return try await readPatient(id, request, context)
        default: throw Self.unknownType(type)
        }
    }

    func search(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let type = Self.parameter(context, "type")
        if type != "metadata" { try admit(request, context, type: type) }
        switch type {
        case "QuestionnaireResponse": return try await searchResponses(request, context)
        case "Questionnaire": return try await searchQuestionnaires(request, context)
        case "Patient": return try await searchPatients(request, context)
        case "metadata": return try capabilityStatement(request)
        default: throw Self.unknownType(type)
        }
    }

    static func unknownType(_ type: String) -> FHIRError {
        FHIRError(
            status: .notFound, code: "not-supported",
            message:
                "\(type.prefix(60)) is not served here: this server has Questionnaire, QuestionnaireResponse and Patient (see GET /fhir/metadata)."
        )
    }

    // MARK: Bundles

    /// A `searchset` Bundle: `total`, a `self` link of the parameters used and, when more
    /// follow, an absolute `next` link that carries the last key of this page as `_cursor`.
    func bundle(
        _ request: Request, type: String, used: [FHIRQuery.Parameter], count: Int, cursor: String?, total: Int,
        entries: [(id: String, resource: String)], more: Bool
    ) -> Response {
        let root = base(request)
        func link(_ cursor: String?) -> String {
            var pairs = used.map { (FHIRQuery.encoded($0.fullName), FHIRQuery.encoded($0.value)) }
            pairs.append(("_count", String(count)))
            if let cursor { pairs.append(("_cursor", FHIRQuery.encoded(cursor))) }
            return "\(root)/\(type)?" + pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        }
        var links: [OrderedJSON] = [.object([("relation", .string("self")), ("url", .string(link(cursor)))])]
        if more, count > 0, let last = entries.last {
            links.append(.object([("relation", .string("next")), ("url", .string(link(last.id)))]))
        }
        var members: [(String, OrderedJSON)] = [
            ("resourceType", .string("Bundle")),
            ("id", .string(UUID().uuidString.lowercased())),
            ("meta", .object([("lastUpdated", .string(Timestamp.string(from: Date())))])),
            ("type", .string("searchset")),
            ("total", .integer(total)),
            ("link", .array(links)),
        ]
        if !entries.isEmpty {
            members.append(
                (
                    "entry",
                    .array(
                        entries.map { entry in
                            .object([
                                ("fullUrl", .string("\(root)/\(type)/\(entry.id)")), ("resource", .raw(entry.resource)),
                                ("search", .object([("mode", .string("match"))])),
                            ])
                        })
                ))
        }
        return Self.resource(OrderedJSON.object(members).text)
    }
}
