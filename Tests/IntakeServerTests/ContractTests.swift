import Foundation
import HummingbirdTesting
import IntakeServerTestSupport
import Testing
import Yams

@testable import IntakeServer
@testable import IntakeService

struct ContractTests {
    /// `GET /v1/records/{id}` for each operation in the document, read with a YAML parser.
    static func documentedRoutes(_ yaml: String) throws -> Set<String> {
        let document = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        var routes: Set<String> = []
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any], "\(path)")
            for method in ["get", "post", "put", "patch", "delete"] where operations[method] != nil {
                routes.insert("\(method.uppercased()) \(path)")
            }
        }
        return routes
    }

    @Test func everyRegisteredRouteIsInTheOpenAPIDocument() async throws {
        let server = try await TestServer.make()
        let document = try IntakeServerApp.openAPIDocument()
        let registered = Set(IntakeServerApp.router(server.services).routes)
        #expect(registered.count == 111)
        #expect(try Self.documentedRoutes(document) == registered)
    }

    @Test func servesTheDocumentAndHealth() async throws {
        let server = try await TestServer.make()
        let file = try String(
            contentsOf: TestServer.repositoryRoot.appendingPathComponent("Sources/IntakeServer/openapi.yaml"), encoding: .utf8)
        try await server.application().test(.router) { client in
            let document = try await client.send(.get, "/openapi.yaml", as: nil, in: server)
            #expect(document.text == file)
            #expect(document.headers[.contentType] == "application/yaml; charset=utf-8")
            let health = try await client.send(.get, "/health", as: nil, in: server)
            #expect(health.json["status"] as? String == "ok")
            let q = server.questionnaire.reference
            let detail = try await client.send(.get, "/v1/questionnaires/\(q.id)/versions/\(q.version)", as: "researcher", in: server)
            let questions = try #require(detail.json["questions"] as? [[String: Any]])
            #expect(questions.count == 67)
            #expect(questions[0]["id"] as? String == "birth_country" && questions[0]["type"] as? String == "single")
            let wrongMethod = try await client.send(.delete, "/v1/records", as: "fieldworker-a", in: server)
            #expect(wrongMethod.status == .methodNotAllowed && wrongMethod.errorCode == "method_not_allowed")
        }
    }

    /// The request examples of `openapi.yaml` (which schemathesis sends in its examples phase)
    /// are records of the bundled questionnaire that a field worker's server accepts.
    @Test func theDocumentsExamplesAreAccepted() async throws {
        var made = try await TestServer.make()
        // The examples' collector: a field worker of the team (the server checks).
        try await made.addUser("amina.h", role: .fieldworker, team: "team-a")
        let server = made
        let document = try #require(try Yams.load(yaml: try IntakeServerApp.openAPIDocument()) as? [String: Any])
        let examples = try #require((document["components"] as? [String: Any])?["examples"] as? [String: Any])
        func body(_ name: String) throws -> Data {
            let example = try #require(examples[name] as? [String: Any], "components.examples.\(name)")
            return try JSONSerialization.data(withJSONObject: try #require(example["value"]))
        }
        let (record, batchBody) = (try body("DraftRecord"), try body("DraftBatch"))
        try await server.application().test(.router) { client in
            let single = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, body: record)
            #expect(single.status == .created, "\(single.text)")
            let batch = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, body: batchBody)
            #expect(batch.status == .ok)
            #expect((batch.json["summary"] as? [String: Any])?["created"] as? Int == 1, "\(batch.text)")
        }
    }

    @Test func theServedDocumentGivesThisServersBatchLimit() async throws {
        let server = try await TestServer.make { $0.maxBatchRecords = 2_000 }
        try await server.application().test(.router) { client in
            let served = try await client.send(.get, "/openapi.yaml", as: nil, in: server)
            let document = try #require(try Yams.load(yaml: served.text) as? [String: Any])
            let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
            let batch = try #require((schemas["BatchRequest"] as? [String: Any])?["properties"] as? [String: Any])
            #expect((batch["records"] as? [String: Any])?["maxItems"] as? Int == 2_000)
        }
    }

    /// Like the router, a literal path segment wins over a parameter: `/v1/records/batch` takes
    /// POST only, though `/v1/records/{id}` takes DELETE, GET and PUT.
    @Test func allowNamesTheMethodsOfTheRouteThatMatches() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let batch = try await client.send(.get, "/v1/records/batch", as: "fieldworker-a", in: server)
            #expect(batch.status == .methodNotAllowed)
            #expect(batch.headers[.allow] == "POST")
            let record = try await client.send(.patch, "/v1/records/\(UUID().uuidString.lowercased())", as: "fieldworker-a", in: server)
            #expect(record.status == .methodNotAllowed)
            #expect(record.headers[.allow] == "DELETE, GET, PUT")
        }
    }

    /// A health probe or a sign-in that carries a stale token still works: routes that need no
    /// token ignore the Authorization header.
    @Test func routesThatNeedNoTokenIgnoreAStaleOne() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            for uri in ["/health", "/openapi.yaml"] {
                let response = try await client.send(.get, uri, as: "itk_revoked-or-made-up", in: server)
                #expect(response.status == .ok, "\(uri)")
            }
            let me = try await client.send(.get, "/v1/me", as: "itk_revoked-or-made-up", in: server)
            #expect(me.status == .unauthorized)
        }
    }
}
