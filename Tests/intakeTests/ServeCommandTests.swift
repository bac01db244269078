import Foundation
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The operator's server walkthrough (docs/operator.md), with the built binary: bootstrap, team, field worker, token,
/// `intake serve`, a record POSTed over HTTP, a lookup, and clear errors.
@Suite(.serialized)
struct ServeCommandTests {
    let intake = IntakeProcess()

    private func send(_ method: String, _ port: Int, _ path: String, token: String?, body: Data? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
    }

    @Test func aNewcomerRunsTheServerAndPostsARecord() async throws {
        #expect(try intake.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"]).status == 0)
        #expect(try intake.run(["admin", "team", "create", "clinic-a"]).stdout == "Created team 'clinic-a'.\n")
        let user = try intake.run(
            ["admin", "user", "create", "amina", "--role", "fieldworker", "--team", "clinic-a", "--password-stdin"],
            input: ["field-password-1"])
        #expect(user.stdout == "Created fieldworker 'amina' in team 'clinic-a'.\n")
        let token = try intake.run(["admin", "token", "create", "amina", "--name", "laptop"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("itk_"))
        let again = try intake.run(["admin", "bootstrap", "--username", "other", "--password-stdin"], input: ["admin-password-2"])
        #expect(again.status != 0)
        #expect(again.stderr.contains("Error: The database already has users"))
        let noTeam = try intake.run(
            ["admin", "user", "create", "omar", "--role", "coordinator", "--password-stdin"], input: ["field-password-2"])
        #expect(
            noTeam.stdout == "Created coordinator 'omar' without a team (invite them from a team, or give --team).\n", "\(noTeam.stderr)")

        let sample = try intake.run(["sample", "--count", "1", "--seed", "5", "--collector", "amina"]).stdout
        let record = try PatientResponse(jsonData: Data(sample.utf8))
        let (server, port) = try intake.startServer(arguments: ["--publish", "refugee-health"])
        defer { server.terminate() }
        let (created, _) = try await send("POST", port, "/v1/records", token: token, body: Data(sample.utf8))
        #expect(created == 201)
        let (duplicate, body) = try await send("POST", port, "/v1/records", token: token, body: Data(sample.utf8))
        #expect(duplicate == 200 && body.contains("\"outcome\":\"duplicate\""))
        let family = record.patient.familyName.lowercased().addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
        let (found, matches) = try await send("GET", port, "/v1/records?familyName=\(family)", token: token)
        #expect(found == 200 && matches.contains(record.id.uuidString.lowercased()))
        #expect(try await send("POST", port, "/v1/records", token: token, body: Data("{".utf8)).0 == 400)
        #expect(try await send("POST", port, "/v1/records", token: nil, body: Data(sample.utf8)).0 == 401)
        #expect(try await send("GET", port, "/v1/teams", token: token).0 == 403)
    }
}
