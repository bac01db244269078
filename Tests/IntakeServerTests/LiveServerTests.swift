import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server over real sockets on 127.0.0.1, called with URLSession as a field client would.
struct LiveServerTests {
    static func request(_ method: String, _ port: Int, _ path: String, token: String?, body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    static func send(_ request: URLRequest) async throws -> (Int, Data) {
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, data)
    }

    @Test func concurrentPostsOfOneRecordStoreItOnce() async throws {
        let server = try await TestServer.make()
        let record = server.record()
        let body = try record.jsonData()
        let token = server.tokens["fieldworker-a"]
        let statuses = try await server.application().test(.live) { client in
            let port = try #require(client.port)
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<24 {
                    group.addTask { try await Self.send(Self.request("POST", port, "/v1/records", token: token, body: body)).0 }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 200 }.count == 23)
        #expect(try await server.services.store.revisions(of: record.id).count == 1)
    }

    @Test func concurrentBatchesOfOverlappingRecordsStoreEachOnce() async throws {
        let server = try await TestServer.make()
        let records = (1...30).map { server.record(seed: UInt64($0)) }
        let token = server.tokens["coordinator-a"]
        let created = try await server.application().test(.live) { client in
            let port = try #require(client.port)
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for start in stride(from: 0, to: 30, by: 5) {
                    let slice = Array(records[start..<min(30, start + 15)])
                    let body = Batch(records: slice).jsonBody
                    group.addTask {
                        let (_, data) = try await Self.send(Self.request("POST", port, "/v1/records/batch", token: token, body: body))
                        let summary = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["summary"] as? [String: Int]
                        return summary?["created"] ?? -1000
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        #expect(created == 30)
        for record in records {
            #expect(try await server.services.store.revisions(of: record.id).count == 1)
        }
    }

    @Test func aFieldWorkerSignsInPostsAndLooksUpOverTheNetwork() async throws {
        let server = try await TestServer.make()
        let record = server.record(familyName: "Haddad")
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let signIn = try JSONSerialization.data(withJSONObject: ["username": "fieldworker-a", "password": "password-fieldworker-a"])
            let (status, data) = try await Self.send(Self.request("POST", port, "/v1/sessions", token: nil, body: signIn))
            #expect(status == 201)
            let token = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["token"] as? String)
            #expect(try await Self.send(Self.request("POST", port, "/v1/records", token: token, body: try record.jsonData())).0 == 201)
            let (lookupStatus, found) = try await Self.send(Self.request("GET", port, "/v1/records?familyName=HADDAD", token: token))
            #expect(lookupStatus == 200)
            #expect(String(decoding: found, as: UTF8.self).contains(record.id.uuidString.lowercased()))
            #expect(try await Self.send(Self.request("GET", port, "/v1/records?familyName=x", token: nil)).0 == 401)
        }
    }
}
