import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// A patient referred across teams over HTTP: the referee reads that record and no other record
/// of the referring team, edits it only when allowed, and each side is told at each step.
struct ReferralRoutesTests {
    struct Refer: Encodable {
        var recordId: String
        var toTeam: String?
        var toUser: String?
        var reason: String
        var priority: String?
        var allowEdit: Bool?
    }

    /// Who may answer is asked again in the transaction, on the referral as it is: an answer that
    /// races a reassignment never leaves a referral accepted by someone it is not assigned to.
    @Test func anAnswerRacingAReassignmentNeverLeavesItAcceptedBySomeoneElse() async throws {
        var server = try await TestServer.make()
        try await server.addUser("fieldworker-b2", role: .fieldworker, team: "team-b")
        func user(_ name: String) async throws -> User { try #require(try await server.services.store.credentials(username: name)?.user) }
        let (referrer, lead, first) = (try await user("fieldworker-a"), try await user("coordinator-b"), try await user("fieldworker-b"))
        let services = server.services
        var refusedAnswers = 0
        for seed in 0..<30 {
            let record = server.record(seed: UInt64(400 + seed))
            _ = try await services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
            let referral = try await services.referrals.refer(
                record.id, toUser: nil, toTeam: "team-b", reason: "r", priority: .routine, allowEdit: false, by: referrer)
            _ = try await services.referrals.reassign(referral.id, to: "fieldworker-b", by: lead)
            let answer = Task { try await services.referrals.act(referral.id, .accept, by: first) }
            let move = Task { try await services.referrals.reassign(referral.id, to: "fieldworker-b2", by: lead) }
            do { _ = try await answer.value } catch let error as ServiceError {
                // Reassigned first: no longer theirs to answer (or, once it left them, to see).
                switch error.kind {
                case .forbidden, .notFound: refusedAnswers += 1
                default: throw error
                }
            }
            _ = try await move.value
            let final = try #require(try await services.store.referral(id: referral.id))
            #expect(final.assignee == "fieldworker-b2")
            #expect(
                final.state == ReferralState.open && final.acceptedBy == nil,
                "reassigned after or instead of the answer: open for the new assignee")
        }
        print("answers refused after a reassignment landed first: \(refusedAnswers) of 30")
    }

    /// A referral follows its record and its people, whatever races it: an answer racing the
    /// record's deletion ends closed (the referee reads nothing); an answer racing the removal of
    /// its assignee ends open with the team's coordinators, who may answer it.
    @Test func aReferralFollowsItsRecordAndItsAssigneeWhateverRacesIt() async throws {
        var server = try await TestServer.make()
        func user(_ name: String) async throws -> User { try #require(try await server.services.store.credentials(username: name)?.user) }
        let services = server.services
        let referrer = try await user("fieldworker-a")
        for seed in 0..<12 {
            try await server.addUser("member-\(seed)", role: .fieldworker, team: "team-b")
            let (lead, member) = (try await user("coordinator-b"), try await user("member-\(seed)"))
            let record = server.record(seed: UInt64(500 + seed))
            _ = try await services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
            let referral = try await services.referrals.refer(
                record.id, toUser: nil, toTeam: "team-b", reason: "r", priority: .urgent, allowEdit: false, by: referrer)
            _ = try await services.referrals.reassign(referral.id, to: "member-\(seed)", by: lead)
            if seed % 2 == 0 {
                let answer = Task { try? await services.referrals.act(referral.id, .accept, by: member) }
                let delete = Task { try await services.records.delete(record.id, teamId: 1, reason: "a duplicate", by: "coordinator-a") }
                _ = await answer.value
                _ = try await delete.value
                let final = try #require(try await services.store.referral(id: referral.id))
                #expect(final.state == .closed, "seed \(seed): \(final.state)")
                #expect(
                    try await services.store.referralAccess(
                        recordId: record.id, username: member.username, teamId: member.teamId ?? 0, role: .fieldworker
                    ).read == false)
            } else {
                let team = try #require(try await services.store.team(named: "team-b"))
                let answer = Task { try? await services.referrals.act(referral.id, .accept, by: member) }
                let remove = Task { try await services.teams.remove(member.username, from: team, by: lead) }
                _ = await answer.value
                try await remove.value
                let final = try #require(try await services.store.referral(id: referral.id))
                #expect(final.state == .open && final.assignee == nil && final.acceptedBy == nil, "seed \(seed): \(final)")
                #expect(ReferralService.actions(final, for: lead) == [.accept, .decline], "the coordinators may answer it now")
                #expect(try await services.referrals.act(referral.id, .accept, by: lead).state == .accepted)
            }
        }
    }

    /// Retargeting gives the new team the record: once the record left the referrer's team
    /// (transferred), the referral cannot be sent elsewhere.
    @Test func aReferralOfARecordTransferredSinceCannotBeRetargeted() async throws {
        let server = try await TestServer.make()
        func user(_ name: String) async throws -> User { try #require(try await server.services.store.credentials(username: name)?.user) }
        let (referrer, lead) = (try await user("fieldworker-a"), try await user("coordinator-a"))
        let record = server.record(seed: 480)
        _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        let referral = try await server.services.referrals.refer(
            record.id, toUser: nil, toTeam: "team-b", reason: "r", priority: .routine, allowEdit: false, by: referrer)
        let moved = try await server.services.records.transfer(
            TransferRequest(subject: .records([record.id]), fromTeamId: 1, toTeamId: 2, by: lead.username, at: Date()))
        guard case .transferred = moved else { Issue.record("not transferred: \(moved)"); return }
        do {
            _ = try await server.services.referrals.retarget(referral.id, toUser: "fieldworker-a", toTeam: nil, by: referrer)
            Issue.record("retargeted a record the team no longer holds")
        } catch let error as ServiceError {
            guard error.kind == .unprocessable(code: "record_gone") else { throw error }
        }
        #expect(try await server.services.store.referral(id: referral.id)?.toTeamId == 2, "the referral is as it was")
    }

    @Test func aRefereeInAnotherTeamReadsTheReferredRecordAndNothingElseUntilItIsCompleted() async throws {
        let server = try await TestServer.make()
        let referred = server.record(seed: 1), other = server.record(seed: 2)
        _ = try await server.services.records.ingest([referred, other], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        try await server.application().test(.router) { client in
            let id = referred.id.uuidString.lowercased()
            let before = try await client.send(.get, "/v1/records/\(id)", as: "coordinator-b", in: server)
            #expect(before.status == .notFound, "another team's record is invisible before the referral")

            let created = try await client.send(
                .post, "/v1/referrals", as: "fieldworker-a", in: server,
                json: Refer(recordId: id, toTeam: "team-b", reason: "Needs a cardiologist", priority: "urgent"))
            #expect(created.status == .created && created.json["state"] as? String == "open", "\(created.text)")
            let referral = try #require(created.json["id"] as? String)
            let counts = try await client.send(.get, "/v1/notifications/counts", as: "coordinator-b", in: server)
            #expect((counts.json["unread"] as? [String: Int])?["referral_received"] == 1)

            // The receiving coordinator reads the referred record, not the other one, and may not edit it.
            #expect(try await client.send(.get, "/v1/records/\(id)", as: "coordinator-b", in: server).status == .ok)
            #expect(try await client.send(.get, "/v1/records/\(id)/revisions", as: "coordinator-b", in: server).status == .ok)
            let unrelated = try await client.send(.get, "/v1/records/\(other.id.uuidString.lowercased())", as: "coordinator-b", in: server)
            #expect(unrelated.status == .notFound, "nothing else of the referring team")
            let edit = try await client.send(
                .put, "/v1/records/\(id)", as: "coordinator-b", in: server,
                json: Update(baseRevision: 1, record: referred.with { $0.patient.externalId = "B-1" }))
            #expect(edit.status == .forbidden && edit.errorCode == "read_only_referral")
            #expect(
                try await client.send(.get, "/v1/records/\(id)", as: "fieldworker-b", in: server).status == .notFound,
                "not assigned to them")
            // The short id works for whoever reads the record through the referral, and only for them.
            func shortId(_ user: String, _ record: PatientResponse) async throws -> [String]? {
                let prefix = String(record.id.uuidString.lowercased().prefix(8))
                return try await client.send(.get, "/v1/records/ids?prefix=\(prefix)", as: user, in: server).json["ids"] as? [String]
            }
            #expect(try await shortId("coordinator-b", referred) == [id])
            #expect(try await shortId("coordinator-b", other) == [], "nothing else of the referring team")
            #expect(try await shortId("fieldworker-b", referred) == [], "not assigned to them")

            // Assigned to a member, who accepts, writes, and completes; each side is told.
            struct To: Encodable { var toUser: String }
            let reassigned = try await client.send(
                .post, "/v1/referrals/\(referral)/reassign", as: "coordinator-b", in: server, json: To(toUser: "fieldworker-b"))
            #expect(reassigned.json["assignee"] as? String == "fieldworker-b")
            let read = try await client.send(.get, "/v1/notifications/counts", as: "coordinator-b", in: server)
            #expect((read.json["unread"] as? [String: Int])?["referral_received"] == nil, "acting on it read what told of it: \(read.text)")
            #expect(try await client.send(.post, "/v1/referrals/\(referral)/accept", as: "fieldworker-a", in: server).status == .forbidden)
            #expect(
                try await client.send(.post, "/v1/referrals/\(referral)/accept", as: "fieldworker-b", in: server).json["state"] as? String
                    == "accepted")
            struct Text: Encodable { var text: String }
            let message = try await client.send(
                .post, "/v1/referrals/\(referral)/messages", as: "fieldworker-b", in: server, json: Text(text: "Seen today"))
            #expect(message.status == .created)
            let sent = try await client.send(.get, "/v1/referrals?direction=sent", as: "fieldworker-a", in: server)
            #expect((sent.json["referrals"] as? [[String: Any]])?.count == 1)
            let thread = try await client.send(.get, "/v1/referrals/\(referral)", as: "fieldworker-a", in: server)
            #expect((thread.json["messages"] as? [[String: Any]])?.first?["text"] as? String == "Seen today")
            let told = try await client.send(.get, "/v1/notifications", as: "fieldworker-a", in: server)
            let types = (told.json["notifications"] as? [[String: Any]])?.compactMap { $0["type"] as? String }
            #expect(types == ["referral_accepted", "referral_message"], "\(told.text)")
            #expect(!told.text.contains("cardiologist"), "notifications never carry the reason")

            #expect(
                try await client.send(.post, "/v1/referrals/\(referral)/complete", as: "fieldworker-b", in: server).json["state"] as? String
                    == "completed")
            #expect(
                try await client.send(.get, "/v1/records/\(id)", as: "fieldworker-b", in: server).status == .notFound,
                "access ends with the referral")
            #expect(try await shortId("fieldworker-b", referred) == [], "and so does its short id")
            let again = try await client.send(.post, "/v1/referrals/\(referral)/withdraw", as: "fieldworker-a", in: server)
            #expect(again.status == .conflict && again.errorCode == "referral_completed")

            // Both coordinators export it: one row, de-identified (a patient key, never the reason).
            for (coordinator, team, direction) in [("coordinator-a", "team-a", "sent"), ("coordinator-b", "team-b", "received")] {
                let csv = try await client.send(.get, "/v1/teams/\(team)/referrals", as: coordinator, in: server)
                let lines = csv.text.split(separator: "\r\n").map(String.init)
                #expect(csv.status == .ok && lines.count == 2, "\(csv.text)")
                #expect(lines.first?.hasPrefix("referral_id,record_id,patient_key,direction,") == true)
                let cells = lines.last?.split(separator: ",", omittingEmptySubsequences: false).map(String.init) ?? []
                #expect(cells.count == 14 && cells[0] == referral && cells[1] == id && cells[2].hasPrefix("pk-") && cells[3] == direction)
                #expect(cells[9] == "completed" && cells[11] == "1", "\(cells)")
                #expect(!csv.text.contains("cardiologist") && !csv.text.contains(referred.patient.familyName))
            }
        }
    }

    /// One record's and one patient's referrals are listed to those who take part; the referrer
    /// sends one nobody accepted elsewhere; an accepted one keeps when and by whom.
    @Test func aRecordsReferralsAreListedAndAnUnacceptedOneIsSentElsewhere() async throws {
        var server = try await TestServer.make()
        _ = try await server.services.accounts.createTeam(name: "team-c")
        try await server.addUser("coordinator-c", role: .coordinator, team: "team-c")
        let patient = UUID()
        _ = try await server.services.store.registerPatients([
            NewPatient(
                id: patient, teamId: 1, identification: PatientIdentification(givenName: "Amina", familyName: "Haddad"), createdBy: "x",
                createdAt: Date())
        ])
        var record = server.record(seed: 40)
        record.patientId = patient
        try await server.application().test(.router) { [server, record] client in
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            let id = record.id.uuidString.lowercased()
            let created = try await client.send(
                .post, "/v1/referrals", as: "coordinator-a", in: server, json: Refer(recordId: id, toTeam: "team-b", reason: "Cardiology"))
            #expect(created.status == .created)
            let referral = try #require(created.json["id"] as? String)
            func listed(_ query: String, as user: String) async throws -> [String]? {
                let response = try await client.send(.get, "/v1/referrals?\(query)", as: user, in: server)
                return (response.json["referrals"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            }
            #expect(try await listed("record=\(id)", as: "coordinator-a") == [referral])
            #expect(try await listed("record=\(id)", as: "coordinator-b") == [referral], "the receiving coordinators take part")
            #expect(try await listed("record=\(id)", as: "fieldworker-b") == [], "not assigned to them")
            #expect(try await listed("patient=\(patient.uuidString.lowercased())", as: "coordinator-a") == [referral])
            #expect(
                try await client.send(.get, "/v1/referrals?patient=\(patient.uuidString.lowercased())", as: "coordinator-b", in: server)
                    .status == .notFound)
            let both = try await client.send(.get, "/v1/referrals?record=\(id)&direction=sent", as: "coordinator-a", in: server)
            #expect(both.status == .unprocessableContent && both.errorCode == "conflicting_parameters")
            #expect(try await client.send(.get, "/v1/referrals?record=nope", as: "coordinator-a", in: server).status == .badRequest)

            // Sent elsewhere before anyone accepted it: team-b no longer has it, team-c does.
            let moved = try await client.send(
                .post, "/v1/referrals/\(referral)/retarget", as: "coordinator-a", in: server, json: ["toTeam": "team-c"])
            #expect(moved.status == .ok && moved.json["toTeam"] as? String == "team-c", "\(moved.text)")
            #expect(try await client.send(.get, "/v1/referrals/\(referral)", as: "coordinator-b", in: server).status == .notFound)
            let told = try await client.send(.get, "/v1/notifications", as: "coordinator-b", in: server)
            #expect((told.json["notifications"] as? [[String: Any]])?.contains { $0["type"] as? String == "referral_retargeted" } == true)
            let again = try await client.send(
                .post, "/v1/referrals/\(referral)/retarget", as: "coordinator-a", in: server, json: ["toTeam": "team-c"])
            #expect(again.status == .conflict && again.errorCode == "referral_unchanged")
            #expect(
                try await client.send(
                    .post, "/v1/referrals/\(referral)/retarget", as: "fieldworker-a", in: server, json: ["toTeam": "team-b"]
                ).status == .notFound)

            let accepted = try await client.send(.post, "/v1/referrals/\(referral)/accept", as: "coordinator-c", in: server)
            #expect(accepted.json["acceptedBy"] as? String == "coordinator-c" && accepted.json["acceptedAt"] is String, "\(accepted.text)")
            let late = try await client.send(
                .post, "/v1/referrals/\(referral)/retarget", as: "coordinator-a", in: server, json: ["toTeam": "team-b"])
            #expect(late.status == .conflict && late.errorCode == "referral_accepted")
        }
    }

    @Test func aReferralThatAllowsEditingLetsTheRefereeSaveARevision() async throws {
        let server = try await TestServer.make()
        let referred = server.record(seed: 3)
        _ = try await server.services.records.ingest([referred], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        try await server.application().test(.router) { client in
            let id = referred.id.uuidString.lowercased()
            let created = try await client.send(
                .post, "/v1/referrals", as: "coordinator-a", in: server,
                json: Refer(recordId: id, toTeam: "team-b", reason: "Follow up", allowEdit: true))
            #expect(created.status == .created)
            let edit = try await client.send(
                .put, "/v1/records/\(id)", as: "coordinator-b", in: server,
                json: Update(baseRevision: 1, record: referred.with { $0.patient.externalId = "B-1" }))
            #expect(edit.status == .ok && edit.json["revision"] as? Int == 2, "\(edit.text)")
            let revisions = try await client.send(.get, "/v1/records/\(id)/revisions", as: "fieldworker-a", in: server)
            #expect((revisions.json["revisions"] as? [[String: Any]])?.last?["savedBy"] as? String == "coordinator-b")
            let wrongRecord = try await client.send(
                .post, "/v1/referrals", as: "fieldworker-b", in: server, json: Refer(recordId: id, toTeam: "team-a", reason: "x"))
            #expect(wrongRecord.status == .notFound, "a team refers only its own records")
            let both = try await client.send(
                .post, "/v1/referrals", as: "fieldworker-a", in: server,
                json: Refer(recordId: id, toTeam: "team-b", toUser: "coordinator-a", reason: "x"))
            #expect(both.status == .unprocessableContent)
        }
    }
}
