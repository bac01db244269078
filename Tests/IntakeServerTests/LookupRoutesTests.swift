import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

struct LookupRoutesTests {
    @Test func findsNamesRegardlessOfCaseAndAccentsBestFirst() async throws {
        let server = try await TestServer.make()
        let exact = server.record(seed: 1, familyName: "Şahin", givenName: "Leyla")
        let prefix = server.record(seed: 2, familyName: "Sahinoglu", givenName: "Ahmet")
        let inside = server.record(seed: 3, familyName: "Al-Sahin", givenName: "Omar")
        let other = server.record(seed: 4, familyName: "Haddad", givenName: "Nour")
        let otherTeam = server.record(seed: 5, familyName: "Sahin", givenName: "Secret")
        try await server.application().test(.router) { client in
            for record in [inside, prefix, exact, other] {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            }
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-b", in: server, json: otherTeam).status == .created)
            let response = try await client.send(.get, "/v1/records?familyName=SAHIN", as: "coordinator-a", in: server)
            #expect(response.status == .ok)
            let results = try #require(response.json["results"] as? [[String: Any]])
            #expect(results.compactMap { $0["id"] as? String } == [exact, prefix, inside].map { $0.id.uuidString.lowercased() })
            #expect(!response.text.contains("Secret"), "another team's records never appear")
        }
    }

    @Test func ranksByEveryFieldGivenAndPaginates() async throws {
        let server = try await TestServer.make()
        let records = (1...5).map { server.record(seed: UInt64($0), familyName: "Haddad", givenName: "Amina \($0)") }
        var target = server.record(seed: 9, familyName: "Haddad", givenName: "Amina")
        target.patient.dateOfBirth = LocalDate(iso: "1990-05-01")
        target.patient.externalId = "UNHCR-42"
        try await server.application().test(.router) { [target] client in
            for record in records + [target] {
                _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            }
            let best = try await client.send(
                .get, "/v1/records?familyName=haddad&givenName=amina&dateOfBirth=1990-05-01&externalId=unhcr-42&limit=2",
                as: "fieldworker-a",
                in: server)
            let page = try #require(best.json["results"] as? [[String: Any]])
            #expect(page.count == 2)
            #expect(page.first?["id"] as? String == target.id.uuidString.lowercased())
            #expect(best.json["nextOffset"] as? Int == 2)
            var seen = Set<String>()
            var offset: Int? = 0
            while let next = offset {
                let response = try await client.send(
                    .get, "/v1/records?familyName=haddad&limit=2&offset=\(next)", as: "fieldworker-a", in: server)
                for result in response.json["results"] as? [[String: Any]] ?? [] { seen.insert(result["id"] as! String) }
                offset = response.json["nextOffset"] as? Int
            }
            #expect(seen.count == 6)
        }
    }

    @Test func manyLookupsInARowKeepWorking() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: server.record(familyName: "Haddad"))
            for _ in 0..<25 {
                let response = try await client.send(.get, "/v1/records?familyName=hadd", as: "fieldworker-a", in: server)
                #expect((response.json["results"] as? [Any])?.count == 1)
            }
        }
    }

    @Test func explainsBadQueries() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let none = try await client.send(.get, "/v1/records", as: "fieldworker-a", in: server)
            #expect(none.status == .unprocessableContent && none.errorCode == "no_criteria")
            #expect(none.text.contains("give at least one of familyName, givenName, dateOfBirth or externalId"))
            let date = try await client.send(.get, "/v1/records?dateOfBirth=01/02/1990", as: "fieldworker-a", in: server)
            #expect(date.text.contains("dateOfBirth must be written YYYY-MM-DD"))
            let limit = try await client.send(.get, "/v1/records?familyName=a&limit=1000", as: "fieldworker-a", in: server)
            #expect(limit.status == .badRequest)
            let wildcard = try await client.send(.get, "/v1/records?familyName=%25", as: "fieldworker-a", in: server)
            #expect(wildcard.status == .ok)
        }
    }
}
