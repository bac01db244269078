import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeServer
import IntakeService
import Mustache

/// The web console, served by `intake serve` under `/console`: pages rendered on the server from
/// the Mustache templates in `Templates/`, usable without JavaScript (one small script keeps the
/// unread badge current where it runs). Every page and action goes through the services the API
/// uses, so the same record-access policy decides: a console action and its API route answer the
/// same people the same way.
public struct ConsoleModule: ServerModule {
    let library: MustacheLibrary
    let assets: [String: (type: String, body: String)]

    /// Reads the templates and assets shipped with the module.
    public static func load() async throws -> ConsoleModule {
        guard let templates = Bundle.module.url(forResource: "Templates", withExtension: nil),
            let assets = Bundle.module.url(forResource: "Assets", withExtension: nil)
        else { throw ConsoleLoadError("the console's templates are missing from the build; rebuild intake") }
        let library = try await MustacheLibrary(directory: templates.path)
        var files: [String: (type: String, body: String)] = [:]
        for (name, type) in [
            ("console.css", "text/css; charset=utf-8"), ("console.js", "text/javascript; charset=utf-8"), ("icon.svg", "image/svg+xml"),
        ] {
            files[name] = (type, try String(contentsOf: assets.appendingPathComponent(name), encoding: .utf8))
        }
        return ConsoleModule(library: library, assets: files)
    }

    public func register(on router: Router<IntakeRequestContext>, services: IntakeServices) {
        ConsoleRoutes(services: services, library: library, assets: assets).register(on: router)
    }
}

public struct ConsoleLoadError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Who is asking, in which language, and the token their forms must carry.
struct ConsoleSession: Sendable {
    var user: User?
    var token: String?
    var language: ConsoleLanguage
    /// The CSRF token forms carry: the session's, or before sign-in this browser's pre-session value.
    var csrf: String
    /// A pre-session value to set as a cookie with the answer (the browser had none).
    var newPreSession: String?
    /// The signed-in user's unread notifications, for the menu's badge.
    var unread = 0
}

/// A page's answer before the session's cookies and the headers are added.
enum ConsoleAnswer {
    case page(String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:])
    case redirect(String)
    /// A tar archive streamed from a folder, removed once it is sent.
    case archive(name: String, TarArchive, removing: URL)
    case json(String)
    /// Signed in: the token goes to the session cookie (and nowhere else), then to `location`.
    case signedIn(token: String, location: String)
    /// Signed out: the session cookie is cleared.
    case signedOut(location: String)
    /// The language cookie set.
    case language(ConsoleLanguage, location: String)
}

struct ConsoleRoutes: Sendable {
    let services: IntakeServices
    let library: MustacheLibrary
    let assets: [String: (type: String, body: String)]

    static let secretName = "console-csrf"

    func register(on router: Router<IntakeRequestContext>) {
        registerSessionPages(on: router)
        registerRecordPages(on: router)
        registerCasePages(on: router)
        registerInboxPages(on: router)
        registerExportPages(on: router)
        registerTeamPages(on: router)
    }

    // MARK: Sessions, forms and answers

    func key() async throws -> SymmetricKey { SymmetricKey(data: try await services.store.secret(named: Self.secretName)) }

    /// Cookies are Secure when the server serves https, or when the request reached a proxy over
    /// https (`X-Forwarded-Proto: https`: the header can only add the flag, never take it away).
    func security(_ request: Request? = nil) async throws -> ConsoleSecurity {
        let forwarded = request?.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
        return ConsoleSecurity(
            key: try await key(), secure: services.configuration.tls != nil || forwarded,
            sessionLifetime: services.configuration.sessionLifetime)
    }

    /// Reads the session, checks the form's CSRF token (`form`), admits only whom the route's row
    /// of ``RoutePolicy`` admits (a page whose row needs a token sends the signed-out to sign in),
    /// runs `body`, and answers in HTML with the console's headers and cookies. A refusal becomes
    /// a page saying why, with the API's status; a failure of the server, a page saying so (503
    /// when the store is out), never its details.
    func handle(
        _ request: Request, _ context: IntakeRequestContext, form readsForm: Bool = false, multipart: Bool = false,
        _ body: (ConsoleSession, ConsoleForm?) async throws -> ConsoleAnswer
    ) async throws -> Response {
        // This page's or action's row of the policy (a console page stands for an API route and
        // shares its row). A route without a row is refused to everyone; a test finds any.
        let rule = context.endpointPath.flatMap { RoutePolicy.rule(request.method.rawValue, $0) }
        let signedIn = rule?.roles != nil || rule == nil
        let security = try await security(request)
        let cookies = request.cookies
        let language = ConsoleLanguage(rawValue: cookies[ConsoleSecurity.languageCookie]?.value ?? "") ?? .en
        var session = ConsoleSession(user: nil, token: nil, language: language, csrf: "", newPreSession: nil)
        if let token = cookies[ConsoleSecurity.sessionCookie]?.value, !token.isEmpty,
            let user = try await services.accounts.user(token: token)
        {
            session.user = user
            session.token = token
            session.csrf = security.csrf(session: token)
            // The user's own choice, wherever they sign in; the browser's until they make one.
            if let chosen = user.language.flatMap(ConsoleLanguage.init(rawValue:)) { session.language = chosen }
        } else {
            let existing = cookies[ConsoleSecurity.preSessionCookie]?.value
            let value = existing.flatMap { $0.count == 32 ? $0 : nil } ?? ConsoleSecurity.randomToken()
            session.csrf = value
            if value != existing { session.newPreSession = value }
        }
        if let user = session.user { session.unread = try await unreadCount(user) }
        var answer: ConsoleAnswer
        do {
            var form: ConsoleForm?
            if readsForm || multipart {
                let read =
                    multipart
                    ? try await ConsoleForm.readMultipart(request, limit: services.configuration.maxBodyBytes)
                    : try await ConsoleForm.read(request)
                let fine =
                    session.token.map { security.accepts(read["csrf"], session: $0) }
                    ?? security.acceptsPreSession(read["csrf"], cookie: cookies[ConsoleSecurity.preSessionCookie]?.value)
                guard fine else {
                    throw APIError(.forbidden, code: "csrf", message: session.language["staleForm"])
                }
                form = read
            }
            if signedIn && session.user == nil {
                answer = .redirect("/console/sign-in")
            } else {
                // The row admits the user, or the console refuses as the API route it stands for would.
                guard let rule else { throw APIError(.forbidden, code: "forbidden", message: session.language["forbiddenPage"]) }
                if var refusal = RoutePolicy.refusal(rule, session.user) {
                    if refusal.code == "forbidden" { refusal.message = session.language["forbiddenPage"] }
                    throw refusal
                }
                // Times on the page in the user's team's time zone (UTC without a team or a zone set).
                var zone = ConsoleZone.utc
                if let user = session.user, let found = try await services.teams.timeZone(of: user) { zone = found }
                let (page, current) = (session, form)
                answer = try await ConsoleZone.$current.withValue(zone) { try await body(page, current) }
                // On the audit trail as the API route would be: a read or a change, by whom, the path
                // (ids and names; never a form's values).
                if rule.audit == .request, let user = session.user {
                    try await services.audit.record(
                        request.method == .get ? .tokenRead : .apiChange, by: user.username, subject: request.uri.path,
                        details: ["method": request.method.rawValue, "via": "console"])
                }
            }
        } catch {
            answer = problem(error, session, context)
        }
        var response: Response
        switch answer {
        case .page(let html, let status, let headers):
            response = Response(
                status: status, headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
            response.headers.append(contentsOf: headers)
        case .redirect(let location):
            response = Response(status: .seeOther, headers: [.location: location])
        case .archive(let name, let archive, let folder):
            response = Response(
                status: .ok,
                headers: [
                    .contentType: "application/x-tar", .contentDisposition: "attachment; filename=\"\(name)\"",
                    .contentLength: String(archive.length),
                ],
                body: ResponseBody { writer in
                    defer { try? FileManager.default.removeItem(at: folder) }
                    try await archive.write { try await writer.write($0) }
                    try await writer.finish(nil)
                })
        case .json(let text):
            response = Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        case .signedIn(let token, let location):
            response = Response(status: .seeOther, headers: [.location: location])
            response.setCookie(security.sessionCookie(token))
        case .signedOut(let location):
            response = Response(status: .seeOther, headers: [.location: location])
            response.setCookie(security.expiredSessionCookie())
        case .language(let language, let location):
            response = Response(status: .seeOther, headers: [.location: location])
            response.setCookie(security.languageCookie(language))
        }
        ConsoleSecurity.harden(&response)
        if let value = session.newPreSession { response.setCookie(security.preSessionCookie(value)) }
        return response
    }

    func problem(_ error: any Error, _ session: ConsoleSession, _ context: IntakeRequestContext) -> ConsoleAnswer {
        let language = session.language
        if let answer = APIError.answer(for: error) {
            let message: String
            switch answer.status {
            case .notFound, .gone: message = answer.status == .gone ? answer.message : language["notFound"]
            default: message = answer.message
            }
            return .page(
                render("error", session, title: language["problemTitle"], ["message": message, "back": "/console"]), status: answer.status)
        }
        if let outage = services.outage(of: error) {
            context.logger.error("console: storage outage", metadata: ["outage": "\(outage)"])
            return .page(
                render(
                    "error", session, title: language["problemTitle"], ["message": language["databaseUnavailable"], "back": "/console"]),
                status: .serviceUnavailable, headers: APIError.unavailable(outage).headers)
        }
        context.logger.error("console: request failed", metadata: ["error.type": "\(type(of: error))"])
        return .page(
            render("error", session, title: language["problemTitle"], ["message": language["serverFailed"], "back": "/console"]),
            status: .internalServerError)
    }

    /// What the action a page follows did (`?done=`), in the user's words: only the console's own
    /// messages, never text from the address.
    func done(_ request: Request, _ session: ConsoleSession) -> String? {
        guard let key = request.uri.queryParameters["done"].map(String.init), Self.doneMessages.contains(key) else { return nil }
        return session.language[key]
    }

    static let doneMessages: Set<String> = [
        "reviewSaved", "reopened", "commentSaved", "allRead", "referralDone", "stateDone", "publishedDone", "unlocked", "signedOut",
        "signedOutEverywhere",
        "memberRemoved", "invitationConfirmed", "invitationRevoked", "announced", "userCreated", "consentRecorded", "patientSaved",
        "tokenRevoked", "timeZoneSet", "caseSaved",
    ]

    func recordId(_ context: IntakeRequestContext) throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("record") }
        return id
    }

    func home(_ user: User) -> String {
        switch user.role {
        case .coordinator, .admin: "/console/day"
        case .fieldworker: "/console/records"
        case .researcher: "/console/exports"
        }
    }

    func unreadCount(_ user: User) async throws -> Int {
        try await services.teams.unreadCounts(of: user).values.reduce(0, +)
    }

    /// Renders a page: the template with the session's language, user, menu and CSRF token.
    func render(_ template: String, _ session: ConsoleSession, title: String, _ values: [String: Any]) -> String {
        let language = session.language
        var context: [String: Any] = [
            "lang": language.rawValue, "dir": language.direction, "t": language.table, "title": title, "csrf": session.csrf,
            "otherLanguages": language.others.map { ["code": $0.rawValue, "name": $0.name] },
            "liveTypes": NotificationType.all.joined(separator: " "),
        ]
        if let user = session.user {
            var user: [String: Any] = [
                "name": user.username, "roleName": language["role.\(user.role.rawValue)"], "teamName": user.teamName ?? "",
                "nav": menu(user, language, current: template, unread: session.unread),
            ]
            if (user["teamName"] as? String)?.isEmpty == true { user["teamName"] = nil }
            context["user"] = user
        }
        for (key, value) in values { context[key] = value }
        return library.render(context, withTemplate: template) ?? ""
    }

    func menu(_ user: User, _ language: ConsoleLanguage, current: String, unread: Int) -> [[String: Any]] {
        var items: [(String, String, String)] = []
        switch user.role {
        case .coordinator:
            items = [
                ("day", "teamDay", "/console/day"), ("records", "records", "/console/records"), ("cases", "cases", "/console/cases"),
                ("referrals", "referrals", "/console/referrals"),
                ("patients", "patients", "/console/patients"), ("team", "team", "/console/team"),
            ]
        case .admin:
            items = [
                ("day", "teamDay", "/console/day"), ("records", "records", "/console/records"),
                ("patients", "patients", "/console/patients"),
            ]
        case .fieldworker:
            items = [
                ("records", "records", "/console/records"), ("cases", "cases", "/console/cases"),
                ("referrals", "referrals", "/console/referrals"), ("patients", "patients", "/console/patients"),
            ]
        case .researcher: items = []
        }
        items.append(("questionnaires", "questionnaires", "/console/questionnaires"))
        items.append(("inbox", "inbox", "/console/inbox"))
        if RoutePolicy.admits("GET", "/console/exports", user) { items.append(("exports", "exports", "/console/exports")) }
        if RoutePolicy.admits("GET", "/console/admin", user) { items.append(("admin", "admin", "/console/admin")) }
        return items.map { template, key, href in
            var item: [String: Any] = ["label": language[key], "href": href]
            if template == current || current == template.dropLast() || (template == "admin" && current == "team" && user.role == .admin) {
                item["current"] = true
            }
            if template == "inbox" {
                item["badge"] = language.number(unread)
                item["count"] = unread
            }
            return item
        }
    }
}
