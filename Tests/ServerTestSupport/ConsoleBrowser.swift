import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// A browser: keeps the cookies the console sets, sends them back, reads forms' CSRF tokens.
package final class ConsoleBrowser: @unchecked Sendable {
    package let client: any TestClientProtocol
    package var cookies: [String: String] = [:]
    package var setCookies: [String] = []

    package init(_ client: any TestClientProtocol) { self.client = client }

    @discardableResult
    package func get(_ uri: String) async throws -> TestResponse { try await send(.get, uri, body: nil) }

    @discardableResult
    package func post(_ uri: String, _ fields: [(String, String)]) async throws -> TestResponse {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try await send(.post, uri, body: body)
    }

    package func send(_ method: HTTPRequest.Method, _ uri: String, body: String?) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        setCookies = response.headers[values: .setCookie]
        for line in setCookies {
            let pair = line.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let (name, value) = (String(pair[0]), pair.count > 1 ? String(pair[1]) : "")
            if value.isEmpty || line.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return response
    }

    /// The CSRF token of the page's forms.
    package static func csrf(_ page: TestResponse) -> String? {
        let html = String(buffer: page.body)
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    package static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    package func signIn(_ username: String) async throws {
        let page = try await get("/console/sign-in")
        let answer = try await post(
            "/console/sign-in", [("csrf", Self.csrf(page) ?? ""), ("username", username), ("password", "password-\(username)")])
        #expect(answer.status == .seeOther, "\(username): \(String(buffer: answer.body).prefix(300))")
    }
}
