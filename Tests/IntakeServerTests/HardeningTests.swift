import Foundation
import HummingbirdTesting
import Testing

@testable import IntakeServer

/// Hostile and malformed requests: each gets a JSON error that says what to fix, never a 500,
/// and nothing it sends is taken other than as sent.
struct HardeningTests {
    static func body(_ text: String) -> Data { Data(text.utf8) }

    @Test func aNulInAnyJsonStringIsRefusedNotCut() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            // A user name or password followed by NUL and more used to sign in as the part before it.
            for text in [#"{"username":"admin\u0000x","password":"password-admin"}"#, #"{"username":"admin","password":"password-admin\u0000x"}"#] {
                let response = try await client.send(.post, "/v1/sessions", as: nil, in: server, body: Self.body(text))
                #expect(response.status == .badRequest && response.errorCode == "bad_request", "\(text)")
                #expect(response.text.contains("NUL"))
            }
            // A record holding one is refused as a whole, with where it is.
            var record = String(decoding: server.record(seed: 3).jsonData(), as: UTF8.self)
            record = record.replacingOccurrences(of: #""familyName":""#, with: #""familyName":"\u0000"#)
            let posted = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, body: Self.body(record))
            #expect(posted.status == .badRequest && posted.text.contains("NUL"))
        }
    }

    @Test func aNulInThePathOrQueryIsRefusedNotCut() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            // A lookup for a bare NUL used to match the whole team.
            let lookup = try await client.send(.get, "/v1/records?familyName=%00", as: "fieldworker-a", in: server)
            #expect(lookup.status == .badRequest && lookup.errorCode == "nul_character")
            let path = try await client.send(.get, "/v1/users/admin%00", as: "admin", in: server)
            #expect(path.status == .badRequest && path.errorCode == "nul_character")
        }
    }

    @Test func bodiesAreReadAsStrictJson() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let cases = [
                #"{"name":"t1",}"#,  // trailing comma
                "\u{FEFF}{\"name\":\"t1\"}",  // byte order mark
                #"{"name":"t1","name":"t2"}"#,  // a key twice
                #"{"name":"t1"} x"#,  // text after the document
                #"["t1"]"#,  // not an object
            ]
            for text in cases {
                let response = try await client.send(.post, "/v1/teams", as: "admin", in: server, body: Self.body(text))
                #expect(response.status == .badRequest && response.errorCode == "bad_request", "\(text)")
            }
            let utf16 = try await client.send(
                .post, "/v1/teams", as: "admin", in: server, body: #"{"name":"t1"}"#.data(using: .utf16LittleEndian)!)
            #expect(utf16.status == .badRequest && utf16.text.contains("UTF-16"))
            #expect(try await client.send(.get, "/v1/teams", as: "admin", in: server).text.contains("t1") == false)
        }
    }

    @Test func unknownFieldsAndMeaninglessNullsAreRefused() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let typo = try await client.send(.patch, "/v1/users/fieldworker-a", as: "admin", in: server, body: Self.body(#"{"disable":true}"#))
            #expect(typo.status == .badRequest && typo.text.contains("field 'disable' is not one this request takes"))
            let null = try await client.send(.patch, "/v1/users/fieldworker-a", as: "admin", in: server, body: Self.body(#"{"role":null}"#))
            #expect(null.status == .badRequest && null.text.contains("field 'role' is null"))
            // Where null means something it is still taken: out of the team.
            let unassign = try await client.send(
                .patch, "/v1/users/researcher", as: "admin", in: server, body: Self.body(#"{"team":null}"#))
            #expect(unassign.status == .ok, "\(unassign.text)")
        }
    }

    @Test func aKnownPathAskedWithAnotherMethodAnswers405WithAllow() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let response = try await client.send(.put, "/v1/records", as: "fieldworker-a", in: server)
            #expect(response.status == .methodNotAllowed && response.errorCode == "method_not_allowed")
            #expect(response.headers[.allow] == "GET, POST")
            let byId = try await client.send(.post, "/v1/records/\(UUID().uuidString)", as: "fieldworker-a", in: server)
            #expect(byId.status == .methodNotAllowed && byId.headers[.allow]?.contains("PUT") == true)
            #expect(try await client.send(.get, "/v1/nothing-here", as: "fieldworker-a", in: server).status == .notFound)
        }
    }

    @Test func overlongLookupsAndQueriesGetAClearErrorNotA500() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let name = String(repeating: "a", count: 201)
            let long = try await client.send(.get, "/v1/records?familyName=\(name)", as: "fieldworker-a", in: server)
            #expect(long.status == .badRequest && long.text.contains("familyName is longer than 200 characters"))
            let huge = try await client.send(
                .get, "/v1/records?familyName=\(String(repeating: "b", count: 50_000))", as: "fieldworker-a", in: server)
            #expect(huge.status == .uriTooLong && huge.errorCode == "uri_too_long")
        }
    }
}
