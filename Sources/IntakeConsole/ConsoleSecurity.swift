import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeServer
import IntakeService

/// The console's cookies, forms and headers: what keeps a browser session safe.
///
/// - The session is a sign-in token (the API's, with its throttling, lockout and lifetime) in a
///   cookie the page's scripts cannot read (HttpOnly), sent to /console only, never from another
///   site (SameSite=Strict), and only over https when the server serves https (Secure).
/// - Every form carries a CSRF token: for a session, an HMAC of the session's token under a
///   deployment secret (every server of a deployment checks it alike); before sign-in, a random
///   value that must equal a cookie of the same browser (double submit).
/// - Every page forbids inline script and anything not from the server itself (CSP), framing,
///   MIME sniffing, referrers and caching.
struct ConsoleSecurity: Sendable {
    static let sessionCookie = "intake_console"
    static let preSessionCookie = "intake_csrf"
    static let languageCookie = "intake_lang"
    static let path = "/console"
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    let key: SymmetricKey
    /// Whether the server serves https: cookies are then Secure.
    let secure: Bool
    let sessionLifetime: TimeInterval

    /// The CSRF token of a session.
    func csrf(session token: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(("console-csrf:" + token).utf8), using: key)
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether a form's token is the session's (compared in constant time).
    func accepts(_ sent: String?, session token: String) -> Bool {
        guard let sent else { return false }
        return Self.same(sent, csrf(session: token))
    }

    /// Whether a form sent before sign-in carries the value of this browser's pre-session cookie.
    func acceptsPreSession(_ sent: String?, cookie: String?) -> Bool {
        guard let sent, let cookie, cookie.count == 32 else { return false }
        return Self.same(sent, cookie)
    }

    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    func sessionCookie(_ token: String) -> Cookie {
        Cookie(
            name: Self.sessionCookie, value: token, maxAge: Int(sessionLifetime), path: Self.path, secure: secure, httpOnly: true,
            sameSite: .strict)
    }

    func expiredSessionCookie() -> Cookie {
        Cookie(name: Self.sessionCookie, value: "", maxAge: 0, path: Self.path, secure: secure, httpOnly: true, sameSite: .strict)
    }

    func preSessionCookie(_ value: String) -> Cookie {
        Cookie(name: Self.preSessionCookie, value: value, maxAge: 3600, path: Self.path, secure: secure, httpOnly: true, sameSite: .strict)
    }

    func languageCookie(_ language: ConsoleLanguage) -> Cookie {
        Cookie(
            name: Self.languageCookie, value: language.rawValue, maxAge: 366 * 86_400, path: Self.path, secure: secure, httpOnly: true,
            sameSite: .strict)
    }

    /// The headers every console answer carries.
    static func harden(_ response: inout Response) {
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
    }
}

/// A form's fields (`application/x-www-form-urlencoded`, or `multipart/form-data` with files),
/// each name with every value sent.
struct ConsoleForm: Sendable {
    var fields: [String: [String]]
    /// Files of a multipart form: the field's name, the file's name, its bytes.
    var files: [(field: String, name: String, content: Data)] = []

    subscript(_ name: String) -> String? { fields[name]?.first }
    func all(_ name: String) -> [String] { fields[name] ?? [] }
    func flag(_ name: String) -> Bool { self[name] == "1" }

    static let limit = 64 * 1024

    static func read(_ request: Request) async throws -> ConsoleForm {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, code: "body_too_large", message: "the form holds more than \(limit / 1024) KB; send less text")
        }
        return ConsoleForm(String(buffer: buffer))
    }

    /// A `multipart/form-data` body of at most `limit` bytes: its text fields and its files.
    static func readMultipart(_ request: Request, limit: Int) async throws -> ConsoleForm {
        guard let type = request.headers[.contentType],
            let boundary = type.split(separator: ";").lazy
                .map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.hasPrefix("boundary=") })?.dropFirst("boundary=".count)
        else { throw APIError(.unsupportedMediaType, code: "multipart_expected", message: "send the files as multipart/form-data") }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, code: "body_too_large", message: "the files hold more than \(limit / 1_048_576) MB")
        }
        let body = Data(buffer: buffer)
        let delimiter = Data(("--" + boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\""))).utf8)
        var form = ConsoleForm("")
        var parts: [Data] = []
        var start = body.range(of: delimiter)?.upperBound
        while let from = start, let next = body.range(of: delimiter, in: from..<body.endIndex) {
            parts.append(body[from..<next.lowerBound])
            start = next.upperBound
        }
        for part in parts {
            guard let split = part.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            var content = part[split.upperBound...]
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            guard let disposition = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-disposition:") }) else {
                continue
            }
            func parameter(_ name: String) -> String? {
                guard let range = disposition.range(of: "\(name)=\"") else { return nil }
                return String(disposition[range.upperBound...].prefix { $0 != "\"" })
            }
            guard let field = parameter("name") else { continue }
            if let file = parameter("filename") {
                form.files.append((field, file, Data(content)))
            } else {
                form.fields[field, default: []].append(String(decoding: content, as: UTF8.self))
            }
        }
        return form
    }

    init(_ text: String) {
        var fields: [String: [String]] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            let name = decode(parts[0])
            fields[name, default: []].append(parts.count > 1 ? decode(parts[1]) : "")
        }
        self.fields = fields
    }
}
