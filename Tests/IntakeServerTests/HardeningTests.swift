import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Hostile and malformed requests: each gets a JSON error that says what to fix, never a 500,
/// and nothing it sends is taken other than as sent.
struct HardeningTests {
    static func body(_ text: String) -> Data { Data(text.utf8) }

    /// The spec's maxLength counts code points, as JSON Schema does; so does the server, so a short
    /// text of many combining marks (40 characters on screen, 150 code points) is refused.
    @Test func lengthsAreCountedInCodePointsAsTheSpecSays() async throws {
        let server = try await TestServer.make()
        let heavy = String(repeating: "e\u{0301}\u{0302}\u{0303}", count: 40)
        #expect(heavy.count == 40 && heavy.unicodeScalars.count == 160)
        try await server.application().test(.router) { client in
            struct Team: Encodable { var name: String }
            let team = try await client.send(.post, "/v1/teams", as: "admin", in: server, json: Team(name: heavy))
            #expect(team.status.code >= 400 && team.status.code < 500, "\(team.text)")
            struct Person: Encodable { var givenName: String; var familyName: String }
            let patient = try await client.send(
                .post, "/v1/patients", as: "fieldworker-a", in: server,
                json: Person(givenName: String(repeating: heavy, count: 2), familyName: "B"))
            #expect(patient.status == .unprocessableContent, "\(patient.text)")
        }
    }

    @Test func aNulInAnyJsonStringIsRefusedNotCut() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            // A user name or password followed by NUL and more used to sign in as the part before it.
            for text in [
                #"{"username":"admin\u0000x","password":"password-admin"}"#, #"{"username":"admin","password":"password-admin\u0000x"}"#,
            ] {
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
            let typo = try await client.send(
                .patch, "/v1/users/fieldworker-a", as: "admin", in: server, body: Self.body(#"{"disable":true}"#))
            #expect(typo.status == .badRequest && typo.text.contains("field 'disable' is not one this request takes"))
            let null = try await client.send(.patch, "/v1/users/fieldworker-a", as: "admin", in: server, body: Self.body(#"{"role":null}"#))
            #expect(null.status == .badRequest && null.text.contains("field 'role' is null"))
            // Where null means something it is still taken: out of the team.
            let unassign = try await client.send(
                .patch, "/v1/users/researcher", as: "admin", in: server, body: Self.body(#"{"team":null}"#))
            #expect(unassign.status == .ok, "\(unassign.text)")
        }
    }

    @Test func postingAnotherTeamsIdTellsNothingAboutThatRecord() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 11)
        try await server.application().test(.router) { client in
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            let same = try await client.send(.post, "/v1/records", as: "fieldworker-b", in: server, json: record)
            let changed = try await client.send(
                .post, "/v1/records", as: "fieldworker-b", in: server, json: record.with { $0.patient.familyName = "Other" })
            #expect(same.status == .conflict && same.errorCode == "id_taken")
            #expect(same.text == changed.text && !same.text.contains("Revision"))
            let batch = try await client.send(.post, "/v1/records/batch", as: "fieldworker-b", in: server, json: Batch(records: [record]))
            let result = try #require((batch.json["results"] as? [[String: Any]])?.first)
            #expect(
                result["outcome"] as? String == "conflict" && result["code"] as? String == "id_taken" && result["currentRevision"] == nil)
        }
    }

    @Test func aRecordWithThousandsOfProblemsGetsAShortAnswer() async throws {
        let server = try await TestServer.make()
        var built = server.record(seed: 12)
        for index in 1...5_000 { built[QuestionPosition(section: 9, index: index)] = .text("x") }
        let record = built
        try await server.application().test(.router) { client in
            let single = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            #expect(single.status == .unprocessableContent)
            let details = try #require((single.json["error"] as? [String: Any])?["details"] as? [String: Any])
            #expect((details["issues"] as? [Any])?.count == 100 && details["issueCount"] as? Int == 5_000)
            #expect(single.body.readableBytes < 64 * 1024)
            let batch = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, json: Batch(records: [record]))
            let result = try #require((batch.json["results"] as? [[String: Any]])?.first)
            #expect((result["issues"] as? [Any])?.count == 100 && result["issueCount"] as? Int == 5_000)
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
            // The longest lookup the spec allows (three 200-letter filters of four-byte letters,
            // 7.2 KB percent-encoded) is under the limit: 414 is only for what no valid lookup reaches.
            let letters = String(repeating: Array("𝒜".utf8).map { "%" + String($0, radix: 16, uppercase: true) }.joined(), count: 200)
            let longest = "/v1/records?familyName=\(letters)&givenName=\(letters)&externalId=\(letters)"
            #expect(longest.utf8.count > 7_200 && longest.utf8.count <= 8 * 1024)
            let valid = try await client.send(.get, longest, as: "fieldworker-a", in: server)
            #expect(valid.status == .ok, "\(valid.status): \(valid.text)")
        }
    }

    /// A misspelt or doubled query parameter is refused as a body's unknown field is: a
    /// `dropFreetext=true` that was silently ignored would export free text.
    @Test func unknownOrRepeatedQueryParametersAreRefused() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let q = server.questionnaire.reference.id
            let cases: [(user: String, uri: String, code: String)] = [
                ("coordinator-a", "/v1/exports?questionnaire=\(q)&dropFreetext=true", "unknown_parameter"),
                ("coordinator-a", "/v1/exports?questionnaire=\(q)&format=csv&format=jsonl", "repeated_parameter"),
                ("fieldworker-a", "/v1/records?familyName=Haddad&familyname=Haddad", "unknown_parameter"),
                ("fieldworker-a", "/v1/records?familyName=Haddad&familyName=Other", "repeated_parameter"),
                ("fieldworker-a", "/v1/me?verbose=1", "unknown_parameter"),
            ]
            for (user, uri, code) in cases {
                let response = try await client.send(.get, uri, as: user, in: server)
                #expect(response.status == .badRequest && response.errorCode == code, "\(uri): \(response.text)")
            }
            let ok = try await client.send(.get, "/v1/records?familyName=Haddad&limit=5", as: "fieldworker-a", in: server)
            #expect(ok.status == .ok)
        }
    }

    @Test func lookupPagesAreBoundedAndAHugeOffsetIsABadRequestNotAnOverflow() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            for offset in ["10001", "36688273630054653952", "-1", "1e3"] {
                let response = try await client.send(
                    .get, "/v1/records?familyName=Haddad&offset=\(offset)", as: "fieldworker-a", in: server)
                #expect(response.status == .badRequest && response.text.contains("from 0 to 10000"), "offset \(offset): \(response.text)")
            }
            for uri in ["/v1/records?familyName=Haddad&offset=", "/v1/records?familyName=%20&dateOfBirth=1990-04-12"] {
                let empty = try await client.send(.get, uri, as: "fieldworker-a", in: server)
                #expect(
                    empty.status == .badRequest && empty.text.contains("is empty; give it a value or leave it out"), "\(uri): \(empty.text)"
                )
            }
            let last = try await client.send(.get, "/v1/records?familyName=Haddad&offset=10000", as: "fieldworker-a", in: server)
            #expect(last.status == .ok)
        }
    }
}
