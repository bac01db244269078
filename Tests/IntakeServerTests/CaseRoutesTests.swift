import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Cases through the API, on the test store (both stores in CI): a screening opens a case for
/// its collector, only those who follow it pull it, a follow-up visit updates and closes it, two
/// visits made offline from one revision are both kept and flagged, and coordinators assign.
struct CaseRoutesTests {
    static let root = TestServer.repositoryRoot.appendingPathComponent("Questionnaires")

    @Test func aScreeningOpensACaseThatOnlyItsFollowerPullsAndAVisitClosesIt() async throws {
        var made = try await TestServer.make()
        try await made.addUser("fieldworker-a2", role: .fieldworker, team: "team-a")
        let server = made
        _ = try await server.services.questionnaires.publish(directory: Self.root.appendingPathComponent("follow-up"))
        let followUp = try QuestionnaireLoader.load(directory: Self.root.appendingPathComponent("follow-up"))
        let flagged = CaseFixtures.screening(server, flagged: true, from: 1)
        let plain = CaseFixtures.screening(server, flagged: false, from: 1)
        try await server.application().test(.router) { client in
            for record in [flagged, plain] {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            }
            // Nothing is pulled until the case service reads the records stored.
            #expect((try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [Any])?.isEmpty == true)
            #expect(try await server.services.cases.catchUpAll() == 2)
            #expect(try await server.services.cases.catchUpAll() == 0, "read once")

            let pull = try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server)
            #expect(pull.status == .ok)
            let cases = try #require(pull.json["cases"] as? [[String: Any]])
            #expect(cases.count == 1)
            let opened = cases[0]
            let caseId = try #require(opened["id"] as? String)
            #expect(opened["assignee"] as? String == "fieldworker-a" && opened["status"] as? String == "open")
            #expect(opened["openedBy"] as? String == flagged.id.uuidString.lowercased())
            #expect((opened["patient"] as? [String: Any])?["familyName"] as? String == flagged.patient.familyName)
            #expect((opened["properties"] as? [String: Any])?["reason"] != nil && opened["due"] is String)
            #expect(pull.json["caseIds"] as? [String] == [caseId] && pull.json["more"] as? Bool == false)

            // Another field worker of the team does not receive it, nor another team, nor a researcher.
            let other = try await client.send(.get, "/v1/cases", as: "fieldworker-a2", in: server)
            #expect((other.json["cases"] as? [Any])?.isEmpty == true && (other.json["caseIds"] as? [Any])?.isEmpty == true)
            #expect(try await client.send(.get, "/v1/cases/\(caseId)", as: "fieldworker-a2", in: server).status == .notFound)
            #expect(try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-b", in: server).status == .notFound)
            #expect(try await client.send(.get, "/v1/cases", as: "researcher", in: server).status == .forbidden)
            // A pull from the cursor brings nothing new.
            let cursor = try #require(pull.json["cursor"] as? Int)
            #expect(
                (try await client.send(.get, "/v1/cases?after=\(cursor)", as: "fieldworker-a", in: server).json["cases"] as? [Any])?.isEmpty
                    == true)

            // The follow-up visit, resolved: the case is updated and closed, and leaves A's machine.
            let visit = try CaseFixtures.followUp(
                followUp, of: opened, collector: "fieldworker-a", seed: 5, outcome: "resolved", phq: ("1", "0"))
            let sent = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: visit)
            #expect(sent.status == .created, "\(sent.text)")
            try await server.services.cases.catchUpAll()
            let closed = try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server)
            #expect(closed.json["status"] as? String == "closed" && closed.json["revision"] as? Int == 2)
            #expect((closed.json["properties"] as? [String: Any])?["phq2"] as? [String: Int] == ["integer": 1])
            #expect((closed.json["properties"] as? [String: Any])?["visits"] as? [String: Int] == ["integer": 1])
            #expect((closed.json["visits"] as? [[String: Any]])?.map { $0["record"] as? String } == [visit.id.uuidString.lowercased()])
            let after = try await client.send(.get, "/v1/cases?after=\(cursor)", as: "fieldworker-a", in: server)
            #expect((after.json["cases"] as? [Any])?.isEmpty == true && (after.json["caseIds"] as? [Any])?.isEmpty == true)
            #expect(try await client.send(.get, "/v1/cases/\(caseId)", as: "fieldworker-a", in: server).status == .notFound)
            // Sent again, the visit counts once.
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: visit).status == .ok)
            try await server.services.cases.catchUpAll()
            #expect(try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server).json["revision"] as? Int == 2)
        }
    }

    @Test func twoVisitsMadeOfflineFromOneRevisionAreBothKeptAndFlagged() async throws {
        var made = try await TestServer.make()
        try await made.addUser("fieldworker-a2", role: .fieldworker, team: "team-a")
        let server = made
        _ = try await server.services.questionnaires.publish(directory: Self.root.appendingPathComponent("follow-up"))
        let followUp = try QuestionnaireLoader.load(directory: Self.root.appendingPathComponent("follow-up"))
        try await server.application().test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 40)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let opened = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first)
            let caseId = try #require(opened["id"] as? String)
            // Two machines of A's, offline, each from revision 1: one scores 2, the other 5.
            let one = try CaseFixtures.followUp(
                followUp, of: opened, collector: "fieldworker-a", seed: 7, outcome: "continue", phq: ("1", "1"))
            let two = try CaseFixtures.followUp(
                followUp, of: opened, collector: "fieldworker-a", seed: 8, outcome: "continue", phq: ("3", "2"))
            for visit in [one, two] {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: visit).status == .created)
            }
            try await server.services.cases.catchUpAll()
            let state = try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server).json
            #expect(state["status"] as? String == "open" && state["revision"] as? Int == 3)
            let conflicts = try #require(state["conflicts"] as? [[String: Any]])
            #expect(conflicts.map { $0["property"] as? String }.contains("phq2"))
            let flagged = try #require(conflicts.first { $0["property"] as? String == "phq2" }?["records"] as? [String])
            #expect(Set(flagged) == Set([one.id, two.id].map { $0.uuidString.lowercased() }))
            // Both records are kept.
            for visit in [one, two] {
                #expect(
                    try await client.send(.get, "/v1/records/\(visit.id.uuidString.lowercased())", as: "coordinator-a", in: server).status
                        == .ok)
            }

            // A coordinator gives the case to the team: the other field worker now pulls it.
            let refused = try await client.send(
                .put, "/v1/cases/\(caseId)/assignee", as: "coordinator-a", in: server, json: ["assignee": "fieldworker-b"])
            #expect(refused.status == .unprocessableContent && refused.errorCode == "unknown_assignee")
            #expect(
                try await client.send(
                    .put, "/v1/cases/\(caseId)/assignee", as: "fieldworker-a", in: server, json: ["assignee": "fieldworker-a2"]
                ).status == .forbidden)
            let toTeam = try await client.send(
                .put, "/v1/cases/\(caseId)/assignee", as: "coordinator-a", in: server, body: Data(#"{"assignee":null}"#.utf8))
            #expect(toTeam.status == .ok && toTeam.json["assignee"] is NSNull)
            #expect((try await client.send(.get, "/v1/cases", as: "fieldworker-a2", in: server).json["caseIds"] as? [String]) == [caseId])
            let toA2 = try await client.send(
                .put, "/v1/cases/\(caseId)/assignee", as: "coordinator-a", in: server, json: ["assignee": "fieldworker-a2"])
            #expect(toA2.json["assignee"] as? String == "fieldworker-a2")
            #expect(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["caseIds"] as? [String])?.isEmpty == true)
            // Closed by the coordinator without a visit, and opened again.
            #expect(
                try await client.send(.put, "/v1/cases/\(caseId)/status", as: "coordinator-a", in: server, json: ["status": "closed"]).json[
                    "status"] as? String == "closed")
            #expect(
                try await client.send(.put, "/v1/cases/\(caseId)/status", as: "coordinator-a", in: server, json: ["status": "shut"]).status
                    == .unprocessableContent)
            let all = try await client.send(.get, "/v1/cases?all=true", as: "coordinator-a", in: server)
            #expect((all.json["cases"] as? [Any])?.count == 1 && all.json["caseIds"] == nil)
            #expect(try await client.send(.get, "/v1/cases?all=true", as: "fieldworker-a", in: server).status == .forbidden)
            #expect(try await client.send(.get, "/v1/cases?limit=0", as: "fieldworker-a", in: server).status == .badRequest)
        }
    }

    /// A record stored before its server kept case work on the row, and not yet read by the
    /// case service (marked `derive` by the migration), is read once: it opens its case as a
    /// record sent now does. The work kept at ingest is what the record itself gives.
    @Test func aRecordStoredBeforeCaseWorkWasKeptOpensItsCaseFromItself() async throws {
        let server = try await TestServer.make()
        let store = server.services.cases.store
        let team = try #require(try await store.team(named: "team-a"))
        let screening = CaseFixtures.screening(server, flagged: true, from: 80)
        let kept = try #require(CaseService.caseWork(of: screening, questionnaire: server.questionnaire))
        #expect(CaseWorkCodec.encode(try CaseWorkCodec.decode(kept)) == kept, "the work reads back as written")
        var item = IngestItem(record: screening)
        item.caseWork = CaseWorkCodec.derive
        let owner = RecordOwner(teamId: team.id, username: screening.collector)
        #expect(try await store.ingest([item], owner: owner, at: Date()) == [.created(revision: 1)])
        #expect(try await server.services.cases.catchUpAll() >= 1)
        let opened = try await store.openCases(teamId: team.id, visibleTo: nil, changedAfter: 0, limit: 10)
        #expect(opened.map(\.opening.recordId) == [screening.id])
        #expect(opened.first?.opening.patient == screening.patient && opened.first?.assignee == screening.collector)
    }

    /// Deleting a follow-up's record withdraws its visit: the case is what its other visits make
    /// it (here: open again, its properties the opening's), its revision does not go back, and it
    /// returns to its field worker's machine.
    @Test func deletingAVisitsRecordWithdrawsTheVisit() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.questionnaires.publish(directory: Self.root.appendingPathComponent("follow-up"))
        let followUp = try QuestionnaireLoader.load(directory: Self.root.appendingPathComponent("follow-up"))
        try await server.application().test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 90)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let opened = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first)
            let caseId = try #require(opened["id"] as? String)
            let before = try #require(opened["properties"] as? [String: Any])
            let visit = try CaseFixtures.followUp(
                followUp, of: opened, collector: "fieldworker-a", seed: 11, outcome: "resolved", phq: ("0", "0"))
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: visit).status == .created)
            try await server.services.cases.catchUpAll()
            let closed = try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server).json
            #expect(closed["status"] as? String == "closed" && closed["revision"] as? Int == 2)

            let deleted = try await client.send(
                .delete, "/v1/records/\(visit.id.uuidString.lowercased())", as: "coordinator-a", in: server,
                body: Data(#"{"reason": "filled for the wrong patient"}"#.utf8))
            #expect(deleted.status == .ok || deleted.status == .noContent, "\(deleted.text)")
            try await server.services.cases.catchUpAll()
            let withdrawn = try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server).json
            #expect(withdrawn["status"] as? String == "open" && withdrawn["revision"] as? Int == 2, "\(withdrawn)")
            #expect((withdrawn["visits"] as? [Any])?.isEmpty == true)
            let properties = try #require(withdrawn["properties"] as? [String: Any])
            #expect(Set(properties.keys) == Set(before.keys))
            #expect("\(properties["phq2"] ?? "")" == "\(before["phq2"] ?? "")", "the visit's score is gone with it")
            #expect(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["caseIds"] as? [String]) == [caseId])
        }
    }

    /// An open case past its due date is told to its assignee once (per due date) and the team's
    /// coordinators once a day, naming the case, never the patient; not before it is due, and not
    /// once it is closed.
    @Test func anOverdueCaseIsToldToItsAssigneeOnceAndToTheCoordinatorsOnceADay() async throws {
        let server = try await TestServer.make()
        let screening = CaseFixtures.screening(server, flagged: true, from: 120)
        _ = try await server.services.records.ingest([screening], owner: RecordOwner(teamId: 1, username: screening.collector))
        try await server.services.cases.catchUpAll()
        let store = server.services.cases.store
        let opened = try #require(try await store.openCasesByDue(teamId: 1, visibleTo: nil, limit: 10).first)
        let due = try #require(opened.due)
        let assignee = try #require(opened.assignee)
        let noon = try #require(Timestamp.date(from: "\(due)T12:00:00Z"))
        let coordinators = try await store.members(teamId: 1).filter { $0.role == .coordinator }.count
        #expect(coordinators >= 1)
        #expect(try await server.services.cases.notifyOverdue(at: noon) == 0, "due today is not overdue")
        let later = noon.addingTimeInterval(2 * 86_400)
        #expect(try await server.services.cases.notifyOverdue(at: later) == 1 + coordinators)
        #expect(try await server.services.cases.notifyOverdue(at: later.addingTimeInterval(600)) == 0, "told once")
        #expect(
            try await server.services.cases.notifyOverdue(at: later.addingTimeInterval(86_400)) == coordinators, "the coordinators daily")

        try await server.application().test(.router) { client in
            let told = try await client.send(.get, "/v1/notifications?type=case_overdue", as: assignee, in: server)
            let notices = try #require(told.json["notifications"] as? [[String: Any]])
            #expect(notices.count == 1)
            let subject = try #require(notices.first?["subject"] as? [String: String])
            #expect(subject == ["case": opened.id.uuidString.lowercased(), "list": opened.list], "no due date: it may say why")
            #expect(!told.text.contains(screening.patient.familyName), "never the patient")
            let digest = try await client.send(.get, "/v1/notifications?type=cases_overdue", as: "coordinator-a", in: server)
            #expect((digest.json["notifications"] as? [[String: Any]])?.count == 2)
            #expect(
                (try await client.send(.get, "/v1/notifications?type=cases_overdue", as: "coordinator-b", in: server).json["notifications"]
                    as? [Any])?.isEmpty == true)
            // Closed, it is told of no more.
            #expect(
                try await client.send(
                    .put, "/v1/cases/\(opened.id.uuidString.lowercased())/status", as: "coordinator-a", in: server,
                    json: ["status": "closed"]
                ).status == .ok)
        }
        #expect(try await server.services.cases.notifyOverdue(at: later.addingTimeInterval(3 * 86_400)) == 0)
    }

    /// An assignee who can no longer act on the case (disabled here; gone from the team alike) is
    /// not told of it: the coordinators' count has it.
    @Test func anOverdueCaseOfAnAssigneeWhoCannotActIsLeftToTheCoordinatorsCount() async throws {
        let server = try await TestServer.make()
        let screening = CaseFixtures.screening(server, flagged: true, from: 140)
        _ = try await server.services.records.ingest([screening], owner: RecordOwner(teamId: 1, username: screening.collector))
        try await server.services.cases.catchUpAll()
        let store = server.services.cases.store
        let opened = try #require(try await store.openCasesByDue(teamId: 1, visibleTo: nil, limit: 10).first)
        let due = try #require(opened.due)
        _ = try await store.updateUser(username: try #require(opened.assignee), UserChange(disabled: true))
        let coordinators = try await store.members(teamId: 1).filter { $0.role == .coordinator }.count
        let later = try #require(Timestamp.date(from: "\(due)T12:00:00Z")).addingTimeInterval(2 * 86_400)
        #expect(try await server.services.cases.notifyOverdue(at: later) == coordinators)
    }

    /// Deleting the record that opened a case leaves nothing of the patient in the case.
    @Test func deletingTheOpeningRecordClosesTheCaseAndErasesThePatient() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 60)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let opened = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first)
            let caseId = try #require(opened["id"] as? String)
            let deleted = try await client.send(
                .delete, "/v1/records/\(screening.id.uuidString.lowercased())", as: "coordinator-a", in: server,
                body: Data(#"{"reason": "entered for the wrong patient"}"#.utf8))
            #expect(deleted.status == .ok || deleted.status == .noContent, "\(deleted.text)")
            try await server.services.cases.catchUpAll()
            let erased = try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server)
            #expect(erased.json["status"] as? String == "closed")
            #expect(
                (erased.json["patient"] as? [String: Any])?.isEmpty == true
                    && (erased.json["properties"] as? [String: Any])?.isEmpty == true)
            #expect(!erased.text.contains(screening.patient.familyName))
            let reopen = try await client.send(
                .put, "/v1/cases/\(caseId)/status", as: "coordinator-a", in: server, json: ["status": "open"])
            #expect(reopen.status == .conflict && reopen.errorCode == "case_erased")
            #expect(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["caseIds"] as? [String])?.isEmpty == true)
        }
    }

    /// A case opened by hand (the ODK façade's entities): a coordinator's, in a declared list, its
    /// label the patient's name, nothing a terminal would run.
    @Test func aCaseOpenedByHandIsChecked() async throws {
        let server = try await TestServer.make()
        let coordinator = try #require(try await server.services.store.credentials(username: "coordinator-a")?.user)
        let fieldworker = try #require(try await server.services.store.credentials(username: "fieldworker-a")?.user)
        let made = try await server.services.cases.create(
            list: "follow-up", id: UUID(), label: "  Nadia   Al Saleh ", data: ["note": "at the market"], by: coordinator)
        #expect(made.opening.patient.givenName == "Nadia" && made.opening.patient.familyName == "Al Saleh" && made.assignee == nil)
        // Control characters, a name of no letter (a line break alone), a property named as the
        // case's own status: refused, never a crash.
        for (label, data) in [
            ("\u{1B}[31mNadia", [String: String]()), ("Nadia", ["note": "a\u{07}b"]), ("", [:]), ("\n", [:]), (" \n ", [:]),
            ("Nadia\nSaleh", [:]), ("\u{2028}", [:]), ("Nadia", ["status": "closed"]),
        ] {
            await #expect(throws: ServiceError.self) {
                _ = try await server.services.cases.create(list: "follow-up", id: UUID(), label: label, data: data, by: coordinator)
            }
        }
        await #expect(throws: ServiceError.self) {
            _ = try await server.services.cases.create(list: "no-such-list", id: UUID(), label: "Nadia", data: [:], by: coordinator)
        }
        await #expect(throws: ServiceError.self) {
            _ = try await server.services.cases.create(list: "follow-up", id: UUID(), label: "Nadia", data: [:], by: fieldworker)
        }
        await #expect(throws: ServiceError.self) {
            _ = try await server.services.cases.create(list: "follow-up", id: made.id, label: "Nadia", data: [:], by: coordinator)
        }
        // An empty value is no value (ODK's unset); a new label alone takes a revision too.
        let blank = try await server.services.cases.create(
            list: "follow-up", id: UUID(), label: "Omar Haddad", data: ["phq2": "", "note": ""], by: coordinator)
        #expect(blank.properties.isEmpty)
        let renamed = try await server.services.cases.update(
            blank.id, list: "follow-up", label: "Omar Al Haddad", data: [:], baseRevision: blank.revision, by: coordinator)
        #expect(renamed.label == "Omar Al Haddad" && renamed.revision == blank.revision + 1)
        let unchanged = try await server.services.cases.update(
            blank.id, list: "follow-up", label: "Omar Al Haddad", data: ["phq2": ""], baseRevision: renamed.revision, by: coordinator)
        #expect(unchanged.revision == renamed.revision, "a change that changes nothing takes no revision")
        await #expect(throws: ServiceError.self) {
            _ = try await server.services.cases.update(
                blank.id, list: "follow-up", label: "\n", data: [:], baseRevision: nil, by: coordinator)
        }
    }

    /// A CSV's rows, by column name (cells hold no comma or quote here).
    static func rows(_ text: String) -> [[String: String]] {
        let lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let header = lines.first?.components(separatedBy: ",") else { return [] }
        return lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.components(separatedBy: ",")).map { ($0, $1) })
        }
    }

    /// The exports hold the cases of the lists the questionnaire opens or follows and what set
    /// their properties, keyed and dated as the records are: a coordinator's with the registry
    /// id when identifiers are in, a researcher's only as far as the records reach them.
    @Test func exportsHoldTheCasesAndWhatSetTheirProperties() async throws {
        let server = try await TestServer.make { $0.unlinkedRecordsReachResearchers = true }
        _ = try await server.services.questionnaires.publish(directory: Self.root.appendingPathComponent("follow-up"))
        let followUp = try QuestionnaireLoader.load(directory: Self.root.appendingPathComponent("follow-up"))
        try await server.application().test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 300)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let opened = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first)
            let caseId = try #require(opened["id"] as? String)
            let visit = try CaseFixtures.followUp(
                followUp, of: opened, collector: "fieldworker-a", seed: 12, outcome: "continue", phq: ("2", "1"))
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: visit).status == .created)
            try await server.services.cases.catchUpAll()

            for (user, extra) in [("coordinator-a", "&includeIdentifiers=true"), ("researcher", "&shiftDates=true")] {
                let path = "/v1/exports?questionnaire=\(screening.questionnaire.id)" + extra
                let records = Self.rows(try await client.send(.get, path, as: user, in: server).text)
                let record = try #require(records.first { $0["record_id"] == screening.id.uuidString.lowercased() })
                let response = try await client.send(.get, path + "&format=cases", as: user, in: server)
                #expect(response.status == .ok, "\(response.text)")
                #expect(response.headers[HTTPField.Name("Intake-Export-Case-Lists")!] == "follow-up")
                let cases = Self.rows(response.text)
                #expect(cases.count == 1, "\(user): \(response.text)")
                let row = try #require(cases.first)
                #expect(row["case_id"] == caseId && row["list"] == "follow-up" && row["status"] == "open")
                #expect(row["opened_by_record"] == screening.id.uuidString.lowercased() && row["opened_by"] == "fieldworker-a")
                #expect(row["patient_key"] == record["patient_key"] && row["patient_key"]?.hasPrefix("pk-") == true)
                #expect(row["opened_at"] == record["created_at"], "dated as its opening record: \(row) \(record)")
                #expect(row["revision"] == "2" && row["visits"] == "1" && row["prop_phq2"] == "3" && row["prop_visits"] == "1")
                #expect((row["patient_id"] != nil) == (user == "coordinator-a"))
                if user == "researcher" { #expect(row["due"] != "2099-01-01", "the due date is moved with the patient's dates") }

                let history = Self.rows(try await client.send(.get, path + "&format=case-history", as: user, in: server).text)
                let phq = history.filter { $0["property"] == "phq2" }
                #expect(phq.map { $0["source"] } == ["opened", "visit"] && phq.last?["value"] == "3", "\(history)")
                #expect(phq.last?["record_id"] == visit.id.uuidString.lowercased())
                #expect(history.allSatisfy { $0["case_id"] == caseId })
                // The follow-up's export names the same list, and the same case.
                let fromFollowUp = Self.rows(
                    try await client.send(.get, "/v1/exports?questionnaire=follow-up&format=cases" + extra, as: user, in: server).text)
                #expect(fromFollowUp.map { $0["case_id"] } == [caseId])
            }
            // Another team's coordinator exports none of it.
            let other = try await client.send(
                .get, "/v1/exports?questionnaire=\(screening.questionnaire.id)&format=cases", as: "coordinator-b", in: server)
            #expect(other.status == .ok && Self.rows(other.text).isEmpty)
        }
    }

    /// A property set from an identifying question, or from such a property, is identifying; one
    /// set from a text question is free text: the case files' columns leave them out as the
    /// records' leave the questions out.
    @Test func caseFilesLeaveOutIdentifyingAndFreeTextPropertiesAsTheRecordsDo() async throws {
        let server = try await TestServer.make()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("follow-up-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("follow-up"), to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = folder.appendingPathComponent("cases.txt")
        let text = try String(contentsOf: rules, encoding: .utf8)
        try
            (text.replacingOccurrences(of: "property: visits integer 0..", with: "property: visits integer 0..\nproperty: last_notes text")
            + "set: last_notes = notes\nset: notes_seen = case.last_notes\nset: born = date_of_birth\nset: women = sex\n").write(
                to: rules, atomically: true, encoding: .utf8)
        _ = try await server.services.questionnaires.publish(directory: folder)
        try await server.application().test(.router) { client in
            func header(_ extra: String) async throws -> [String] {
                let response = try await client.send(
                    .get, "/v1/exports?questionnaire=refugee-health&format=cases" + extra, as: "coordinator-a", in: server)
                #expect(response.status == .ok, "\(response.text)")
                return response.text.components(separatedBy: "\r\n")[0].components(separatedBy: ",").filter { $0.hasPrefix("prop_") }
            }
            let all = try await header("&includeIdentifiers=true")
            #expect(all.contains("prop_last_notes") && all.contains("prop_notes_seen") && all.contains("prop_phq2"), "\(all)")
            let deIdentified = try await header("")
            #expect(!deIdentified.contains("prop_last_notes") && !deIdentified.contains("prop_notes_seen"), "\(deIdentified)")
            #expect(all.contains("prop_born") && !deIdentified.contains("prop_born"), "the date of birth identifies")
            #expect(deIdentified.contains("prop_women"), "the sex does not, as in the records")
            #expect(deIdentified.contains("prop_phq2") && deIdentified.contains("prop_last_contact"))
            let noText = try await header("&includeIdentifiers=true&dropFreeText=true")
            #expect(
                !noText.contains("prop_last_notes") && !noText.contains("prop_notes_seen") && noText.contains("prop_reason"), "\(noText)")
        }
    }

    /// A coordinator's change by hand (an ODK entity's update) is folded among the visits by its
    /// time: it takes the next revision, a visit made offline from the revision before it that
    /// sets the same property otherwise is flagged, it never reopens a closed case, and a stale
    /// revision is refused. Only a case opened by hand is deleted by hand.
    @Test func aChangeByHandIsFoldedAmongTheVisits() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.questionnaires.publish(directory: Self.root.appendingPathComponent("follow-up"))
        let followUp = try QuestionnaireLoader.load(directory: Self.root.appendingPathComponent("follow-up"))
        let coordinator = try #require(try await server.services.store.credentials(username: "coordinator-a")?.user)
        let fieldworker = try #require(try await server.services.store.credentials(username: "fieldworker-a")?.user)
        try await server.application().test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 500)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let opened = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first)
            let text = try #require(opened["id"] as? String)
            let id = try #require(UUID(uuidString: text))
            // Made offline from revision 1, before the change by hand; it arrives after it.
            let visit = try CaseFixtures.followUp(
                followUp, of: opened, collector: "fieldworker-a", seed: 21, outcome: "continue", phq: ("0", "1"))

            let edited = try await server.services.cases.update(
                id, list: "follow-up", label: nil, data: ["phq2": "5", "reason": ""], baseRevision: 1, by: coordinator)
            #expect(edited.revision == 2 && edited.properties["phq2"] == .integer(5) && edited.status == .open)
            #expect(edited.recordVisits.isEmpty && edited.visits.first?.byHand == true)
            let stale = await #expect(throws: ServiceError.self) {
                try await server.services.cases.update(
                    id, list: "follow-up", label: nil, data: ["phq2": "4"], baseRevision: 1, by: coordinator)
            }
            #expect(stale?.kind == .conflict(code: "version_mismatch"))
            await #expect(throws: ServiceError.self) {
                try await server.services.cases.update(
                    id, list: "follow-up", label: nil, data: ["phq2": "4"], baseRevision: nil, by: fieldworker)
            }
            let renamed = await #expect(throws: ServiceError.self) {
                try await server.services.cases.update(
                    id, list: "follow-up", label: "Someone Else", data: [:], baseRevision: nil, by: coordinator)
            }
            #expect(renamed?.kind == .conflict(code: "label_from_record"))

            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: visit).status == .created)
            try await server.services.cases.catchUpAll()
            let read = try #require(try await server.services.store.storedCase(id: id))
            #expect(read.revision == 3 && read.properties["phq2"] == .integer(5), "the later change by hand stands")
            #expect(read.conflicts.map(\.property).contains("phq2"), "\(read.conflicts)")
            #expect(read.recordVisits.map(\.recordId) == [visit.id])

            _ = try await server.services.cases.close(id, by: coordinator)
            let afterClose = try await server.services.cases.update(
                id, list: "follow-up", label: nil, data: ["phq2": "2"], baseRevision: nil, by: coordinator)
            #expect(afterClose.status == .closed && afterClose.properties["phq2"] == .integer(2), "a change by hand opens nothing")
            let refused = await #expect(throws: ServiceError.self) {
                try await server.services.cases.delete(id, list: "follow-up", by: coordinator)
            }
            #expect(refused?.kind == .conflict(code: "opened_by_record"))

            let byHand = try await server.services.cases.create(
                list: "follow-up", id: UUID(), label: "Nadia Saleh", data: ["phq2": "3"], by: coordinator)
            let deleted = try await server.services.cases.delete(byHand.id, list: "follow-up", by: coordinator)
            #expect(deleted.erased && deleted.status == .closed && deleted.properties.isEmpty && deleted.opening.patient.fullName.isEmpty)
            #expect(try await server.services.store.storedCase(id: byHand.id)?.erased == true)
        }
    }
}
