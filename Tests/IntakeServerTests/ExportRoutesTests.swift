import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeDeployment
import IntakePostgres
import IntakeSQLite
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

struct ExportRoutesTests {
    /// These records point to no registry patient; the tests are about formats, cursors and
    /// roles, so researchers are let in on them (consent is ConsentExportTests' subject).
    static func formatsOnly(_ configuration: inout ServerConfiguration) { configuration.unlinkedRecordsReachResearchers = true }

    static let cursor = HTTPField.Name("Intake-Export-Cursor")!
    static let count = HTTPField.Name("Intake-Export-Records")!

    @Test func coordinatorsExportTheirTeamAndResearchersEveryTeamDeidentified() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        let a = server.record(seed: 1, familyName: "Haddad", givenName: "Amina")
        let b = server.record(seed: 2, familyName: "Sahin", givenName: "Leyla")
        try await server.application().test(.router) { client in
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: a).status == .created)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-b", in: server, json: b).status == .created)

            let coordinator = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            #expect(coordinator.status == .ok && coordinator.headers[.contentType]?.hasPrefix("application/x-ndjson") == true)
            #expect(coordinator.headers[Self.count] == "1" && coordinator.headers[.cacheControl] == "no-store")
            #expect(lines(coordinator).map { $0["id"] as? String } == [a.id.uuidString.lowercased()])

            let researcher = try await client.send(.get, "/v1/exports?format=jsonl", as: "researcher", in: server)
            #expect(researcher.headers[Self.count] == "2" && lines(researcher).count == 2)
            for text in ["Amina", "Haddad", "Leyla", "Sahin"] { #expect(!researcher.text.contains(text)) }
            #expect(lines(researcher).allSatisfy { ($0["patientKey"] as? String)?.hasPrefix("pk-") == true })

            let csv = try await client.send(.get, "/v1/exports", as: "researcher", in: server)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.text.hasPrefix("record_id,patient_key,sex,age_years,") && csv.text.split(separator: "\r\n").count == 3)
        }
    }

    /// Answers marked `identifying` (the emergency contact, free text that may name people) are
    /// in no de-identified export, in any format; a coordinator's export with identifiers has them.
    @Test func identifyingAnswersLeaveEveryDeidentifiedExport() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        var record = server.record(seed: 5)
        let contact = try #require(server.questionnaire.allQuestions.first { $0.key == "emergency_contact" })
        let comments = try #require(server.questionnaire.allQuestions.first { $0.text.base == "Comments from the health worker" })
        record[contact.position] = .dictionary([
            "name": .text("Rania Zeidan"), "relationship": .choice("sibling"), "phone": .text("+961-70-123456"),
        ])
        record[comments.position] = .text("Lives with her uncle Farouk near the bakery")
        try await server.application().test(.router) { [record] client in
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            let secrets = ["Rania", "Zeidan", "+961-70-123456", "Farouk", "bakery"]
            for format in ["jsonl", "csv", "long", "fhir", "codebook", "codebook-md", "spss", "r", "datapackage"] {
                for user in ["coordinator-a", "researcher"] {
                    let export = try await client.send(.get, "/v1/exports?format=\(format)", as: user, in: server)
                    #expect(export.status == .ok, "\(format) as \(user)")
                    for secret in secrets { #expect(!export.text.contains(secret), "\(format) as \(user) holds \(secret)") }
                    #expect(!export.text.contains("emergency_contact_phone"), "\(format) as \(user) has the column")
                }
            }
            let codebook = try await client.send(.get, "/v1/exports?format=codebook-md", as: "coordinator-a", in: server)
            #expect(
                codebook.text.contains("Left out as identifying") && codebook.text.contains("`emergency_contact` (Emergency contact)"),
                "\(codebook.text.prefix(3000))")
            let identified = try await client.send(
                .get, "/v1/exports?format=jsonl&includeIdentifiers=true", as: "coordinator-a", in: server)
            for secret in ["Rania Zeidan", "+961-70-123456", "Farouk"] {
                #expect(identified.text.contains(secret), "with identifiers: \(secret)")
            }
            let identifiedCodebook = try await client.send(
                .get, "/v1/exports?format=codebook-md&includeIdentifiers=true", as: "coordinator-a", in: server)
            #expect(identifiedCodebook.text.contains("Identifying answers are included"))
            let csv = try await client.send(.get, "/v1/exports?format=csv&includeIdentifiers=true", as: "coordinator-a", in: server)
            #expect(csv.text.contains("emergency_contact_phone") && csv.text.contains("Rania Zeidan"))
        }
    }

    @Test func aResearcherInATeamExportsThatTeamOnly() async throws {
        var server = try await TestServer.make(configure: Self.formatsOnly)
        try await server.addUser("researcher-b", role: .researcher, team: "team-b")
        try await server.application().test(.router) { [server] client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: server.record(seed: 1))
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-b", in: server, json: server.record(seed: 2))
            let own = try await client.send(.get, "/v1/exports?format=jsonl", as: "researcher-b", in: server)
            #expect(own.status == .ok && own.headers[Self.count] == "1")
            #expect(lines(own).map { $0["id"] as? String } == [server.record(seed: 2).id.uuidString.lowercased()])
        }
    }

    @Test func onlyCoordinatorsMayIncludeIdentifiers() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        let a = server.record(seed: 1, familyName: "Haddad", givenName: "Amina")
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: a)
            let denied = try await client.send(.get, "/v1/exports?includeIdentifiers=true", as: "researcher", in: server)
            #expect(denied.status == .forbidden && denied.errorCode == "forbidden")
            let full = try await client.send(.get, "/v1/exports?includeIdentifiers=true", as: "coordinator-a", in: server)
            #expect(full.status == .ok && full.text.contains("Haddad") && full.text.contains("given_name,family_name"))
        }
    }

    @Test func sinceACursorExportsOnlyWhatChangedIncludingEdits() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        let first = server.record(seed: 1), second = server.record(seed: 2)
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: first)
            let all = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            let cursor = try #require(all.headers[Self.cursor])
            #expect(cursor == "team-1", "a coordinator's export carries a cursor of the team's own changes")
            let none = try await client.send(.get, "/v1/exports?format=jsonl&since=\(cursor)", as: "coordinator-a", in: server)
            #expect(none.status == .ok && none.headers[Self.count] == "0" && none.text.isEmpty && none.headers[Self.cursor] == cursor)

            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: second)
            let edited = first.with { $0.patient.externalId = "CASE-9" }
            let put = try await client.send(
                .put, "/v1/records/\(first.id.uuidString.lowercased())", as: "fieldworker-a", in: server,
                json: Update(baseRevision: 1, record: edited))
            #expect(put.status == .ok)
            let later = try await client.send(.get, "/v1/exports?format=jsonl&since=\(cursor)", as: "coordinator-a", in: server)
            let rows = lines(later)
            #expect(rows.map { $0["id"] as? String } == [second.id, first.id].map { $0.uuidString.lowercased() })
            #expect(rows.map { $0["revision"] as? Int } == [1, 2])
            #expect(later.headers[Self.cursor] == "team-3")

            let future = try await client.send(.get, "/v1/exports?format=jsonl&since=2999-01-01", as: "coordinator-a", in: server)
            #expect(future.status == .ok && future.headers[Self.count] == "0")
            let past = try await client.send(.get, "/v1/exports?format=jsonl&since=2000-01-01T00:00:00Z", as: "coordinator-a", in: server)
            #expect(past.headers[Self.count] == "2")
        }
    }

    @Test func aTeamsCursorsSayNothingOfAnotherTeamsWork() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: server.record(seed: 1))
            let before = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            for seed in 2...6 {
                _ = try await client.send(.post, "/v1/records", as: "fieldworker-b", in: server, json: server.record(seed: UInt64(seed)))
            }
            let after = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            #expect(before.headers[Self.cursor] == "team-1" && after.headers[Self.cursor] == "team-1", "team b's five records move nothing")
            let b = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-b", in: server)
            #expect(b.headers[Self.cursor] == "team-5")
            let everyTeam = try await client.send(.get, "/v1/exports?format=jsonl", as: "researcher", in: server)
            #expect(everyTeam.headers[Self.cursor] == "6" && everyTeam.headers[Self.count] == "6")

            // A cursor of the other kind, or one not given yet, is refused rather than read as something else.
            for (user, since, code) in [
                ("coordinator-a", "6", "wrong_cursor"), ("researcher", "team-1", "wrong_cursor"),
                ("coordinator-a", "team-2", "unknown_cursor"),
                ("researcher", "7", "unknown_cursor"),
            ] {
                let response = try await client.send(.get, "/v1/exports?format=jsonl&since=\(since)", as: user, in: server)
                #expect(response.status == .unprocessableContent && response.errorCode == code, "\(user) since=\(since): \(response.text)")
            }
            let resumed = try await client.send(.get, "/v1/exports?format=jsonl&since=team-1", as: "coordinator-a", in: server)
            #expect(resumed.status == .ok && resumed.headers[Self.count] == "0")
        }
    }

    @Test func shiftedExportsMoveEachPatientsDates() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        let a = server.record(seed: 1)
        try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: a)
            let plain = lines(try await client.send(.get, "/v1/exports?format=jsonl", as: "researcher", in: server))
            let shifted = lines(try await client.send(.get, "/v1/exports?format=jsonl&shiftDates=true", as: "researcher", in: server))
            #expect(plain[0]["datesShifted"] == nil && shifted[0]["datesShifted"] as? Bool == true)
            let before = try #require(Timestamp.date(from: plain[0]["createdAt"] as! String))
            let after = try #require(Timestamp.date(from: shifted[0]["createdAt"] as! String))
            let days = before.timeIntervalSince(after) / 86_400
            #expect((1...365).contains(days) && days == days.rounded())
            let both = try await client.send(.get, "/v1/exports?shiftDates=true&includeIdentifiers=true", as: "coordinator-a", in: server)
            // Each is a valid flag; together they contradict each other: 422, not a malformed request.
            #expect(both.status == .unprocessableContent && both.errorCode == "conflicting_options")
        }
    }

    @Test func badParametersAreClearErrors() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        try await server.application().test(.router) { client in
            for (uri, fragment) in [
                ("/v1/exports?format=xls", "unknown format 'xls'"),
                ("/v1/exports?format=xlsx", "(records.xlsx) is written only in an export folder"),
                ("/v1/exports?since=yesterday", "'since' is not a cursor or time"),
                ("/v1/exports?includeIdentifiers=maybe", "'includeIdentifiers' is true or false"),
                ("/v1/exports?includeIdentifiers=", "'includeIdentifiers' is true or false"),
                ("/v1/exports?shiftDates=1", "'shiftDates' is true or false"),
                ("/v1/exports?limit=3", "unknown parameter 'limit'"),
            ] {
                let response = try await client.send(.get, uri, as: "researcher", in: server)
                #expect(response.status == .badRequest, "\(uri)")
                let message = (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains(fragment), "\(uri)")
            }
            let unknown = try await client.send(.get, "/v1/exports?questionnaire=nope", as: "researcher", in: server)
            #expect(unknown.status == .notFound && unknown.text.contains("refugee-health"))
        }
    }

    @Test func everyFormatStreamsWithItsType() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        try await server.application().test(.router) { client in
            for seed in 1...3 {
                _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: server.record(seed: UInt64(seed)))
            }
            for (format, type) in [
                ("csv", "text/csv"), ("long", "text/csv"), ("jsonl", "application/x-ndjson"), ("fhir", "application/fhir+json"),
                ("codebook", "text/csv"), ("codebook-md", "text/markdown"), ("datapackage", "application/json"), ("spss", "text/plain"),
                ("r", "text/plain"),
            ] {
                let response = try await client.send(.get, "/v1/exports?format=\(format)", as: "coordinator-a", in: server)
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix(type) == true, "\(format)")
                #expect(!response.text.isEmpty, "\(format)")
            }
            let fhir = try await client.send(.get, "/v1/exports?format=fhir", as: "coordinator-a", in: server)
            let bundle = try #require(try JSONSerialization.jsonObject(with: Data(fhir.text.utf8)) as? [String: Any])
            #expect((bundle["entry"] as? [Any])?.count == 4)
        }
    }

    @Test func patientKeysStayTheSameAcrossExportsAndServerRestarts() async throws {
        let server = try await TestServer.make(configure: Self.formatsOnly)
        let a = server.record(seed: 1, familyName: "Haddad", givenName: "Amina")
        let again = server.record(seed: 2, familyName: "haddad", givenName: "AMINA").with { $0.patient.dateOfBirth = a.patient.dateOfBirth }
        let keys = try await server.application().test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: a)
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: again)
            let rows = lines(try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server))
            return rows.compactMap { $0["patientKey"] as? String }
        }
        #expect(keys.count == 2 && keys[0] == keys[1], "one patient, one key")
        let reopened = try await IntakeServices.open(server.services.configuration)
        let prepared = try await reopened.exports.prepare(ExportService.Request())
        let page = try #require(try await reopened.exports.pager(prepared, formats: [.jsonLines]).next())
        #expect(page.map(\.record?.patientKey) == [keys[0], keys[0]])
    }

    private func lines(_ response: TestResponse) -> [[String: Any]] {
        response.text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
