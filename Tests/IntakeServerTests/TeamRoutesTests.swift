import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// A team run by its coordinators over HTTP: invitations with passcodes, members, history, and
/// the notifications each step leaves.
struct TeamRoutesTests {
    struct Invite: Encodable {
        var username: String
        var role: String?
    }

    struct Code: Encodable {
        var passcode: String
    }

    @Test func aCoordinatorInvitesTheInviteeAcceptsAndIsConfirmedAndEachIsTold() async throws {
        var made = try await TestServer.make()
        try await made.addUser("newcomer", role: .fieldworker, team: nil)
        let server = made
        try await server.application().test(.router) { client in
            let issued = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server, json: Invite(username: "newcomer"))
            #expect(issued.status == .created, "\(issued.text)")
            let passcode = try #require(issued.json["passcode"] as? String)
            #expect(passcode.count == 6 && passcode.allSatisfy(\.isNumber))
            let id = try #require((issued.json["invitation"] as? [String: Any])?["id"] as? String)
            let again = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server, json: Invite(username: "newcomer"))
            #expect(again.status == .conflict && again.errorCode == "already_invited")

            let counts = try await client.send(.get, "/v1/notifications/counts", as: "newcomer", in: server)
            #expect((counts.json["unread"] as? [String: Int]) == ["invitation_received": 1])
            let inbox = try await client.send(.get, "/v1/notifications", as: "newcomer", in: server)
            let first = try #require((inbox.json["notifications"] as? [[String: Any]])?.first)
            #expect((first["subject"] as? [String: String])?["invitation"] == id && first["read"] as? Bool == false)

            let wrong = try await client.send(
                .post, "/v1/invitations/\(id)/accept", as: "newcomer", in: server, json: Code(passcode: "x" + passcode))
            #expect(wrong.status == .forbidden && wrong.errorCode == "wrong_passcode")
            #expect(((wrong.json["error"] as? [String: Any])?["details"] as? [String: Any])?["remaining"] as? Int == 4)
            let notTheirs = try await client.send(
                .post, "/v1/invitations/\(id)/accept", as: "fieldworker-a", in: server, json: Code(passcode: passcode))
            #expect(notTheirs.status == .notFound, "someone else's invitation is not found")
            let early = try await client.send(.post, "/v1/invitations/\(id)/confirm", as: "coordinator-a", in: server)
            #expect(early.status == .conflict && early.errorCode == "invitation_pending")
            let accepted = try await client.send(
                .post, "/v1/invitations/\(id)/accept", as: "newcomer", in: server, json: Code(passcode: passcode))
            #expect(accepted.status == .ok && accepted.json["state"] as? String == "accepted", "\(accepted.text)")

            let leadCounts = try await client.send(.get, "/v1/notifications/counts", as: "coordinator-a", in: server)
            #expect((leadCounts.json["unread"] as? [String: Int]) == ["invitation_accepted": 1])
            let otherTeam = try await client.send(.post, "/v1/invitations/\(id)/confirm", as: "coordinator-b", in: server)
            #expect(otherTeam.status == .notFound, "another team's coordinator cannot tell it exists")
            let confirmed = try await client.send(.post, "/v1/invitations/\(id)/confirm", as: "coordinator-a", in: server)
            #expect(confirmed.status == .ok && confirmed.json["state"] as? String == "confirmed")

            let members = try await client.send(.get, "/v1/teams/team-a/members", as: "coordinator-a", in: server)
            let names = (members.json["members"] as? [[String: Any]])?.compactMap { $0["username"] as? String }
            #expect(names == ["coordinator-a", "fieldworker-a", "newcomer"])
            let history = try await client.send(.get, "/v1/teams/team-a/history", as: "coordinator-a", in: server)
            let last = (history.json["events"] as? [[String: Any]])?.last
            #expect(
                last?["username"] as? String == "newcomer" && last?["event"] as? String == "joined"
                    && last?["by"] as? String == "coordinator-a")

            // Accepting read the invitation's notification; the confirmation is new.
            let newcomer = try await client.send(.get, "/v1/notifications/counts", as: "newcomer", in: server)
            #expect(
                newcomer.json["total"] as? Int == 1 && (newcomer.json["unread"] as? [String: Int])?["invited"] == nil, "\(newcomer.text)")
            struct All: Encodable { var all = true }
            let marked = try await client.send(.post, "/v1/notifications/read", as: "newcomer", in: server, json: All())
            #expect(marked.json["marked"] as? Int == 1)
            let none = try await client.send(.get, "/v1/notifications?unread=true", as: "newcomer", in: server)
            #expect((none.json["notifications"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func anInvitationCarriesTheInvitersMessage() async throws {
        var server = try await TestServer.make()
        try await server.addUser("newcomer", role: .fieldworker, team: nil)
        try await server.application().test(.router) { [server] client in
            let blank = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server, json: ["username": "newcomer", "message": "   "])
            #expect(blank.status == .unprocessableContent)
            let sent = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server,
                json: ["username": "newcomer", "message": "Welcome to the mobile clinic"])
            #expect(sent.status == .created, "\(sent.text)")
            let mine = try await client.send(.get, "/v1/invitations", as: "newcomer", in: server)
            #expect(
                (mine.json["invitations"] as? [[String: Any]])?.first?["message"] as? String == "Welcome to the mobile clinic",
                "\(mine.text)")
        }
    }

    @Test func aMemberWithoutATeamFormsOneAndLeadsItWhereTheServerAllowsIt() async throws {
        for setting in [TeamCreation.admins, .members] {
            var server = try await TestServer.make { $0.teamCreation = setting }
            try await server.addUser("newcomer", role: .fieldworker, team: nil)
            try await server.application().test(.router) { [server] client in
                let formed = try await client.send(.post, "/v1/teams", as: "newcomer", in: server, json: ["name": "mobile-unit"])
                guard setting == .members else {
                    #expect(formed.status == .forbidden, "only admins, by default")
                    return
                }
                #expect(formed.status == .created, "\(formed.text)")
                let me = try await client.send(.get, "/v1/me", as: "newcomer", in: server)
                #expect(me.json["team"] as? String == "mobile-unit" && me.json["role"] as? String == "coordinator", "\(me.text)")
                let members = try await client.send(.get, "/v1/teams/mobile-unit/members", as: "newcomer", in: server)
                #expect(members.status == .ok)
                #expect(
                    try await client.send(.post, "/v1/teams", as: "newcomer", in: server, json: ["name": "second"]).errorCode
                        == "already_in_team")
                #expect(
                    try await client.send(.post, "/v1/teams", as: "fieldworker-a", in: server, json: ["name": "mine"]).status == .conflict)
                #expect(try await client.send(.post, "/v1/teams", as: "researcher", in: server, json: ["name": "lab"]).status == .forbidden)
                let audit = try await server.services.store.auditEvents(AuditQuery(action: "team.create"))
                #expect(audit.contains { $0.actor == "newcomer" && $0.subject == "mobile-unit" })
            }
        }
    }

    @Test func fiveWrongPasscodesLockTheInvitationEvenAgainstTheRightOne() async throws {
        var made = try await TestServer.make()
        try await made.addUser("newcomer", role: .fieldworker, team: nil)
        let server = made
        try await server.application().test(.router) { client in
            let issued = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server, json: Invite(username: "newcomer"))
            let passcode = try #require(issued.json["passcode"] as? String)
            let id = try #require((issued.json["invitation"] as? [String: Any])?["id"] as? String)
            let wrongCode = passcode == "000000" ? "111111" : "000000"
            var codes: [String?] = []
            for _ in 1...6 {
                let answer = try await client.send(
                    .post, "/v1/invitations/\(id)/accept", as: "newcomer", in: server, json: Code(passcode: wrongCode))
                codes.append(answer.errorCode)
            }
            #expect(
                codes == ["wrong_passcode", "wrong_passcode", "wrong_passcode", "wrong_passcode", "invitation_locked", "invitation_locked"])
            let right = try await client.send(
                .post, "/v1/invitations/\(id)/accept", as: "newcomer", in: server, json: Code(passcode: passcode))
            #expect(
                right.status == .conflict && right.errorCode == "invitation_locked"
                    && right.text.contains("ask the coordinator for a new one"))
        }
    }

    @Test func onlyATeamsCoordinatorsOrAnAdminManageIt() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            for (user, uri, status) in [
                ("fieldworker-a", "/v1/teams/team-a/members", HTTPResponse.Status.forbidden),
                ("coordinator-b", "/v1/teams/team-a/members", .forbidden),
                ("researcher", "/v1/teams/team-a/history", .forbidden), ("coordinator-a", "/v1/teams/team-a/members", .ok),
                ("admin", "/v1/teams/team-b/history", .ok), ("admin", "/v1/teams/nope/members", .notFound),
            ] {
                let response = try await client.send(.get, uri, as: user, in: server)
                #expect(response.status == status, "\(user) \(uri): \(response.text)")
            }
            let invite = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-b", in: server, json: Invite(username: "researcher"))
            #expect(invite.status == .forbidden)
            for (name, code) in [("researcher", "invalid_request"), ("fieldworker-b", "already_in_team"), ("nobody", "not_found")] {
                let response = try await client.send(
                    .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server, json: Invite(username: name))
                #expect(response.errorCode == code, "\(name): \(response.text)")
            }
        }
    }

    @Test func aTeamKeepsACoordinatorAndItsHistorySaysWhoChangedWhat() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            struct RoleBody: Encodable { var role: String }
            let demote = try await client.send(
                .patch, "/v1/teams/team-a/members/coordinator-a", as: "coordinator-a", in: server, json: RoleBody(role: "fieldworker"))
            #expect(demote.status == .conflict && demote.errorCode == "last_coordinator")
            let promote = try await client.send(
                .patch, "/v1/teams/team-a/members/fieldworker-a", as: "coordinator-a", in: server, json: RoleBody(role: "coordinator"))
            #expect(promote.status == .ok && promote.json["role"] as? String == "coordinator")
            let admin = try await client.send(
                .patch, "/v1/teams/team-a/members/fieldworker-a", as: "coordinator-a", in: server, json: RoleBody(role: "admin"))
            #expect(admin.status == .unprocessableContent)
            let removed = try await client.send(.delete, "/v1/teams/team-a/members/coordinator-a", as: "fieldworker-a", in: server)
            #expect(removed.status == .noContent)
            let gone = try await client.send(.get, "/v1/teams/team-a/members", as: "coordinator-a", in: server)
            #expect(gone.status == .forbidden, "a removed coordinator manages the team no more")
            let history = try await client.send(.get, "/v1/teams/team-a/history", as: "fieldworker-a", in: server)
            let events = (history.json["events"] as? [[String: Any]]) ?? []
            #expect(
                events.suffix(2).map { "\($0["username"]!) \($0["event"]!) by \($0["by"]!)" } == [
                    "fieldworker-a role_changed by coordinator-a", "coordinator-a left by fieldworker-a",
                ])
            let told = try await client.send(.get, "/v1/notifications?type=membership_changed", as: "coordinator-a", in: server)
            #expect((told.json["notifications"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test func coordinatorsAnnounceToTheirTeamAndAdminsToEveryone() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            struct Body: Encodable {
                var text: String
                var team: String?
            }
            let own = try await client.send(
                .post, "/v1/announcements", as: "coordinator-a", in: server, json: Body(text: "Clinic closed Friday"))
            #expect(own.status == .created && own.json["team"] as? String == "team-a" && own.json["recipients"] as? Int == 1, "\(own.text)")
            let inbox = try await client.send(.get, "/v1/notifications?type=announcement", as: "fieldworker-a", in: server)
            let subject = ((inbox.json["notifications"] as? [[String: Any]])?.first?["subject"] as? [String: String])
            #expect(subject?["text"] == "Clinic closed Friday" && subject?["by"] == "coordinator-a")
            let elsewhere = try await client.send(
                .post, "/v1/announcements", as: "coordinator-a", in: server, json: Body(text: "Hi", team: "team-b"))
            #expect(elsewhere.status == .forbidden)
            let everyone = try await client.send(.post, "/v1/announcements", as: "admin", in: server, json: Body(text: "Update on Monday"))
            #expect(everyone.status == .created && everyone.json["team"] == nil && everyone.json["recipients"] as? Int == 5)
            let blank = try await client.send(.post, "/v1/announcements", as: "admin", in: server, json: Body(text: "  \n "))
            #expect(blank.status == .unprocessableContent)
            let fieldworker = try await client.send(.post, "/v1/announcements", as: "fieldworker-a", in: server, json: Body(text: "Hi"))
            #expect(fieldworker.status == .forbidden)
        }
    }

    @Test func passcodesAreKeptSaltedAndComparedWhole() {
        let stored = PasscodeHash.make("123456")
        #expect(!stored.contains("123456") && stored.hasPrefix("sha256$"))
        #expect(PasscodeHash.make("123456") != stored, "salted: the same passcode hashes differently each time")
        #expect(PasscodeHash.matches("123456", stored))
        for wrong in ["123457", "12345", "1234567", "", " 123456"] { #expect(!PasscodeHash.matches(wrong, stored), "\(wrong)") }
        #expect(!PasscodeHash.matches("123456", "sha256$zz$00") && !PasscodeHash.matches("123456", "plain"))
    }
}
