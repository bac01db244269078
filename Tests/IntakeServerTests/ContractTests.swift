import Foundation
import HummingbirdTesting
import Testing
import Yams

@testable import IntakeServer

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
        #expect(registered.count == 22)
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
            #expect(questions.count == 53)
            #expect(questions[0]["id"] as? String == "birth_country" && questions[0]["type"] as? String == "single")
            let wrongMethod = try await client.send(.delete, "/v1/records", as: "fieldworker-a", in: server)
            #expect(wrongMethod.status == .methodNotAllowed && wrongMethod.errorCode == "method_not_allowed")
        }
    }
}
