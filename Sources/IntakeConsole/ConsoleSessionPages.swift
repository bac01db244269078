import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService
import Mustache

/// Signing in and out, the language, the assets: the pages every browser meets first.
/// Each page asks its row of `RoutePolicy` (in `handle`) and reads through the services the API uses.
extension ConsoleRoutes {
    func registerSessionPages(on router: Router<IntakeRequestContext>) {
        router.get("/console/assets/{name}") { _, context -> Response in
            guard let asset = context.parameters.get("name").flatMap({ assets[$0] }) else { return Response(status: .notFound) }
            var response = Response(
                status: .ok, headers: [.contentType: asset.type], body: ResponseBody(byteBuffer: ByteBuffer(string: asset.body)))
            ConsoleSecurity.harden(&response)
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }
        router.get("/console") { request, context in
            try await handle(request, context) { session, _ in
                .redirect(session.user == nil ? "/console/sign-in" : home(session.user!))
            }
        }
        router.get("/console/sign-in") { request, context in
            try await handle(request, context) { session, _ in
                if let user = session.user { return .redirect(home(user)) }
                return .page(
                    render("sign-in", session, title: session.language["signIn"], done(request, session).map { ["flash": $0] } ?? [:]))
            }
        }
        router.post("/console/sign-in") { request, context in
            try await handle(request, context, form: true) { session, form in
                try await signIn(session, form!, address: context.clientAddress)
            }
        }
        // This browser: its own session token, nothing else.
        router.post("/console/sign-out") { request, context in
            try await handle(request, context, form: true) { session, _ in
                if let token = session.token { try await services.accounts.revoke(token: token) }
                return .signedOut(location: "/console/sign-in?done=signedOut")
            }
        }
        // Every session sign-in gave the account: other browsers, and `intake login` on every
        // machine (a lost laptop); tokens made for scripts and enrolled machines stay.
        router.post("/console/sign-out-everywhere") { request, context in
            try await handle(request, context, form: true) { session, _ in
                _ = try await services.accounts.revokeSessions(of: session.user!)
                return .signedOut(location: "/console/sign-in?done=signedOutEverywhere")
            }
        }
        // Browsers ask every site for this; the pages name their icon, this answers the ones that ask anyway.
        router.get("/favicon.ico") { _, _ -> Response in
            .redirect(to: "/console/assets/icon.svg", type: .permanent)
        }
        router.post("/console/language") { request, context in
            try await handle(request, context, form: true) { session, form in
                let language = ConsoleLanguage(rawValue: form?["lang"] ?? "") ?? .en
                if let user = session.user { try await services.accounts.setLanguage(language.rawValue, of: user) }
                return .language(language, location: session.user.map(home) ?? "/console/sign-in")
            }
        }
    }

    // MARK: Signing in

    /// The same sign-in as `POST /v1/sessions`: the same throttling (per account and per
    /// address), lockout and session lifetime. The token goes to the session cookie only.
    func signIn(_ session: ConsoleSession, _ form: ConsoleForm, address: String?) async throws -> ConsoleAnswer {
        let language = session.language
        let username = (form["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form["password"] ?? ""
        func refused(_ key: String, status: HTTPResponse.Status) -> ConsoleAnswer {
            .page(render("sign-in", session, title: language["signIn"], ["problem": language[key]]), status: status)
        }
        guard !username.isEmpty, !password.isEmpty, username.count <= 64, password.utf8.count <= 200 else {
            return refused("badCredentials", status: .unauthorized)
        }
        // On the trail as the API's sign-in is: the account tried, never the password.
        let subject = String(username.prefix(100))
        switch try await services.accounts.signIn(username: username, password: password, address: address) {
        case .signedIn(let token, let user, _):
            try await services.audit.record(.signIn, by: user.username, subject: user.username, details: ["via": "console"])
            return .signedIn(token: token, location: home(user))
        case .refused:
            try await services.audit.record(
                .signInFailed, by: "", subject: subject, details: ["reason": "bad_credentials", "via": "console"])
            return refused("badCredentials", status: .unauthorized)
        case .throttled:
            try await services.audit.record(.signInFailed, by: "", subject: subject, details: ["reason": "throttled", "via": "console"])
            return refused("throttled", status: .tooManyRequests)
        case .locked:
            try await services.audit.record(
                .signInFailed, by: "", subject: subject, details: ["reason": "account_locked", "via": "console"])
            return refused("lockedAccount", status: .unauthorized)
        }
    }
}
