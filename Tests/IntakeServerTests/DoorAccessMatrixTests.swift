import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeConsole
@testable import IntakeFHIR
@testable import IntakeODK
@testable import IntakeREDCap
@testable import IntakeServer
@testable import IntakeService

/// The doors beside the API (the console, ODK, REDCap, FHIR) answer as their rows of
/// ``RoutePolicy`` say: every route registered on the server has a row, and every row a route;
/// and every door's row × every role × the caller's own team, another team, another team's
/// record referred or granted to the caller, through each door's own client shape (a browser
/// with its session and form token, a bearer token, REDCap's form token), against what the
/// policy itself says: refused without a token (the console sends to its sign-in page), refused
/// to a role the row does not name, and what ``RecordAccessPolicy`` says of the record.
struct DoorAccessMatrixTests {
    static let callers: [String?] = [nil, "fieldworker-a", "coordinator-a", "researcher", "admin"]

    static func modules() async throws -> [any ServerModule] {
        [try await ConsoleModule.load(), ODKModule(), REDCapModule(), FHIRModule()]
    }

    @Test func everyRouteOfEveryDoorHasARowAndEveryRowARoute() async throws {
        let server = try await TestServer.make()
        let router = IntakeServerApp.router(server.services, modules: try await Self.modules()).router
        let registered = Set(router.routes.map { "\($0.method.rawValue) \($0.path)" })
        let rows = Set(RoutePolicy.all.filter { $0.action == nil }.map(\.key))
        #expect(registered.subtracting(rows).isEmpty, "routes without a row: \(registered.subtracting(rows).sorted())")
        #expect(rows.subtracting(registered).isEmpty, "rows without a route: \(rows.subtracting(registered).sorted())")
        #expect(Set(RoutePolicy.all.map(\.key)).count == RoutePolicy.all.count, "one row per route and action")
        for row in RoutePolicy.all {
            let door: Door =
                row.path.hasPrefix("/console") || row.path == "/favicon.ico"
                ? .console
                : row.path.hasPrefix("/odk") ? .odk : row.path.hasPrefix("/redcap") ? .redcap : row.path.hasPrefix("/fhir") ? .fhir : .api
            #expect(row.door == door, "\(row.key) is a row of \(row.door), its path of \(door)")
            // A console page stands for an API route and shares its row, or is one of its own.
            if let api = row.standsFor {
                let stood = try #require(RoutePolicy.rules.first { $0.key == api })
                #expect(stood.roles == row.roles && stood.needsTeam == row.needsTeam, "\(row.key)")
                #expect(stood.scope == row.scope || stood.scope == .none, "\(row.key) acts on what its API route acts on")
            }
            // A door's change is on the audit trail: the action itself audits, or the door as the API
            // route does (REDCap's actions are all POSTs: its import is the one that changes anything).
            let changes = row.door == .redcap ? row.action == "record:import" : row.method != "GET"
            if row.door != .api, changes, row.roles.map({ !$0.isEmpty }) ?? false {
                #expect(row.audit != .unrecorded, "\(row.key) changes something and nobody audits it")
            }
        }
        // REDCap's actions and FHIR's resource types are each the action of a row; any other is refused.
        #expect(
            Set(RoutePolicy.all.filter { $0.door == .redcap }.compactMap(\.action)).isSuperset(of: [
                "version", "metadata", "record:export", "record:import", "record:delete",
            ]))
        #expect(
            Set(RoutePolicy.all.filter { $0.door == .fhir }.compactMap(\.action)) == ["Questionnaire", "QuestionnaireResponse", "Patient"])
    }

    /// Whose resource a call is on.
    enum Side: String, CaseIterable {
        case own, other, referred, granted
    }

    static func facts(_ side: Side, for caller: String) -> RecordFacts {
        switch side {
        case .own: RecordFacts(teamId: 1, collector: "fieldworker-a")
        case .other: RecordFacts(teamId: 2, collector: "fieldworker-b")
        case .referred: RecordFacts(teamId: 2, collector: "fieldworker-b", referral: (caller == "coordinator-a", false))
        case .granted: RecordFacts(teamId: 2, collector: "fieldworker-b", grant: (caller == "fieldworker-a", false))
        }
    }

    /// What the policy says of `row` for `user` on `side`: refused (and how the door says it), a
    /// status the record's policy gives, or admitted (nil: any answer but a refusal).
    static func expected(_ row: RouteRule, caller: String?, user: User?, side: Side) -> HTTPResponse.Status? {
        if let refusal = RoutePolicy.refusal(row, user) {
            guard refusal.status == .unauthorized else { return refusal.status }
            switch row.door {
            // An event stream is read by a script, not a person: refused, not sent to sign in.
            case .console: return row.path == "/console/events" ? .unauthorized : .seeOther
            case .redcap: return .forbidden
            default: return .unauthorized
            }
        }
        guard let user, let caller else { return nil }
        switch (row.scope, side) {
        case (_, .own): return nil
        case (.record(let action), _):
            switch RecordAccessPolicy.decide(action, by: user, on: facts(side, for: caller)) {
            case .allowed: return nil
            case .notFound: return .notFound
            case .gone: return .gone
            case .forbidden: return .forbidden
            }
        case (.team, _): return user.role == .admin ? nil : .forbidden
        case (.patient(let write), _): return user.role == .admin && !write ? nil : .notFound
        default: return nil
        }
    }

    /// The sides a row's path can be called on: a record's four, a team's (or project's) two, or the caller's own.
    static func sides(_ row: RouteRule) -> [Side] {
        if case .record = row.scope { return Side.allCases }
        if row.path.contains("{team}") || row.path.contains("{project}") || row.path.contains("{id}") && row.path.contains("patients") {
            return [.own, .other]
        }
        return [.own]
    }

    @Test func everyDoorAnswersEveryRoleAsItsRowsSay() async throws {
        // Event streams (the console's) end after a moment here, so that the matrix can read them whole.
        let server = try await TestServer.make { $0.streamLifetime = .milliseconds(100) }
        let q = server.questionnaire.reference
        let own = server.record(seed: 1), other = server.record(seed: 2, collector: "fieldworker-b")
        let referred = server.record(seed: 3, collector: "fieldworker-b"), granted = server.record(seed: 4, collector: "fieldworker-b")
        _ = try await server.services.records.ingest([own], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        _ = try await server.services.records.ingest([other, referred, granted], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        let coordinatorB = try #require(try await server.services.store.credentials(username: "coordinator-b")?.user)
        _ = try await server.services.referrals.refer(
            referred.id, toUser: nil, toTeam: "team-a", reason: "second opinion", priority: .routine, allowEdit: false, by: coordinatorB)
        _ = try await server.services.store.createGrant(
            NewGrant(
                recordId: granted.id, fromTeamId: 2, toUser: "fieldworker-a", toTeam: nil, access: .read,
                expiresAt: Date().addingTimeInterval(86_400),
                grantedBy: "coordinator-b", grantedAt: Date()))
        let patients = (own: UUID(), other: UUID())
        for (id, team) in [(patients.own, Int64(1)), (patients.other, Int64(2))] {
            _ = try await server.services.store.registerPatients([
                NewPatient(
                    id: id, teamId: team, identification: PatientIdentification(givenName: "Amina", familyName: "Haddad"), createdBy: "x",
                    createdAt: Date())
            ])
        }
        var users: [String: User] = [:]
        var redcapTokens: [String: String] = [:]
        for caller in Self.callers.compactMap({ $0 }) {
            users[caller] = try #require(try await server.services.store.credentials(username: caller)?.user)
            redcapTokens[caller] = try await server.services.accounts.issueToken(
                username: caller, name: "redcap", expiresAt: nil, style: .redcap)
        }
        let application = server.application(modules: try await Self.modules(), logLevel: .critical)
        let (records, frozenServer, frozenUsers, tokens) = (
            [Side.own: own.id, .other: other.id, .referred: referred.id, .granted: granted.id], server, users, redcapTokens
        )
        let mismatches = try await application.test(.router) { client in
            var mismatches: [String] = []
            for row in RoutePolicy.doors {
                // Anything-else routes answer their door's 404 or 405 to everyone: no row to read there;
                // REDCap's one route is read through its actions' rows.
                if row.path.hasSuffix("/**") && row.roles == nil || row.door == .redcap && row.action == nil { continue }
                for caller in Self.callers {
                    for side in Self.sides(row) {
                        let ownSide = side == .own
                        let record = records[side]!.uuidString.lowercased()
                        var uri = row.path
                            .replacingOccurrences(
                                of: "{id}",
                                with: row.path.contains("patients")
                                    ? (ownSide ? patients.own : patients.other).uuidString.lowercased() : record
                            )
                            .replacingOccurrences(of: "{instance}", with: "uuid:\(record)")
                            .replacingOccurrences(of: "{team}", with: ownSide ? "team-a" : "team-b")
                            // A record is reached through the caller's own project; a project, of either team.
                            .replacingOccurrences(of: "{project}", with: ownSide || row.path.contains("{instance}") ? "1" : "2")
                            .replacingOccurrences(of: "{username}", with: "nobody")
                            .replacingOccurrences(of: "{token}", with: "000000000000")
                            .replacingOccurrences(of: "{name}", with: "console.css")
                            .replacingOccurrences(of: "{action}", with: "accept")
                            .replacingOccurrences(of: "{version}", with: q.version)
                            .replacingOccurrences(of: "{questionnaire}", with: q.id)
                            .replacingOccurrences(of: "{type}", with: row.action ?? "Questionnaire")
                            .replacingOccurrences(of: "{table}/**", with: "Submissions('uuid:\(record)')/sections")
                            .replacingOccurrences(of: "{table}", with: "Submissions")
                        uri = uri.replacingOccurrences(of: "/forms/{form}.svc", with: "/forms/\(q.id).svc")
                        if row.door == .odk {
                            uri = uri.replacingOccurrences(of: "{form}/Submissions", with: "\(q.id).svc/Submissions")
                                .replacingOccurrences(of: "{form}", with: q.id)
                        } else {
                            uri = uri.replacingOccurrences(of: "{form}", with: q.id)
                        }
                        if row.door == .fhir, row.path.hasSuffix("{id}") {
                            uri = uri.replacingOccurrences(
                                of: "/\(record)",
                                with: row.action == "Questionnaire"
                                    ? "/\(q.id)" : row.action == "Patient" ? "/\(patients.own.uuidString.lowercased())" : "/\(record)")
                        }
                        let status: HTTPResponse.Status
                        switch row.door {
                        case .console:
                            let browser = ConsoleBrowser(client)
                            if let caller { try await browser.signIn(caller) }
                            let page = try await browser.get(caller == nil ? "/console/sign-in" : "/console/inbox")
                            let csrf = ConsoleBrowser.csrf(page) ?? ""
                            if row.method == "GET" {
                                status = try await browser.get(uri).status
                            } else if row.path == "/console/questionnaires" {
                                let boundary = "matrix-boundary"
                                let body =
                                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n--\(boundary)--\r\n"
                                var headers: HTTPFields = [.contentType: "multipart/form-data; boundary=\(boundary)"]
                                headers[.cookie] = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
                                status = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
                                    .status
                            } else {
                                // What each action's form sends, so that the answer is the policy's, not a form's mistake.
                                let fields: [(String, String)] =
                                    row.path.hasSuffix("/review")
                                    ? [("state", "has_issues")]
                                    : row.path.hasSuffix("/comment")
                                        ? [("text", "checked")]
                                        : row.path.hasSuffix("/consent")
                                            ? [("scope", "sponsors_and_partners"), ("method", "written")]
                                            : row.path.hasSuffix("/edit")
                                                ? [("revision", "1"), ("givenName", "Amina"), ("familyName", "Haddad")] : []
                                status = try await browser.post(uri, [("csrf", csrf)] + fields).status
                            }
                        case .odk, .fhir:
                            var headers: HTTPFields = [:]
                            if let caller, let token = frozenServer.tokens[caller] { headers[.authorization] = "Bearer \(token)" }
                            if row.door == .fhir { headers[.accept] = "application/fhir+json" }
                            // What ODK's review and comment take, so that the answer is the policy's, not a body's mistake.
                            let body =
                                row.door == .odk && row.method == "PATCH"
                                ? #"{"reviewState":"hasIssues"}"#
                                : row.door == .odk && row.path.hasSuffix("/comments") && row.method == "POST" ? #"{"body":"checked"}"# : ""
                            if !body.isEmpty { headers[.contentType] = "application/json" }
                            status = try await client.execute(
                                uri: uri, method: HTTPRequest.Method(row.method)!, headers: headers, body: ByteBuffer(string: body)
                            ).status
                        case .redcap:
                            var fields = [
                                ("token", caller.flatMap { tokens[$0] } ?? String(repeating: "A", count: 32)), ("format", "json"),
                            ]
                            switch row.action {
                            case "record:export": fields.append(("content", "record"))
                            case "record:import": fields += [("content", "record"), ("data", "[]")]
                            case "record:delete": fields += [("content", "record"), ("action", "delete")]
                            case let action?: fields.append(("content", action))
                            case nil: fields.append(("content", "version"))
                            }
                            let body = fields.map { "\($0.0)=\(ConsoleBrowser.encode($0.1))" }.joined(separator: "&")
                            status = try await client.execute(
                                uri: uri, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                body: ByteBuffer(string: body)
                            ).status
                        case .api:
                            continue
                        }
                        let expected = Self.expected(row, caller: caller, user: caller.flatMap { frozenUsers[$0] }, side: side)
                        let fine: Bool
                        if row.roles == nil {
                            // No token needed: whatever the route answers (a redirect, a wrong password) is its own.
                            fine = true
                        } else if let expected {
                            fine = status == expected
                        } else {
                            // Admitted: whatever the route answers, but never a refusal of who the caller is.
                            fine =
                                status != .unauthorized && status != .forbidden && status != .seeOther
                                || row.door == .console && status == .seeOther && caller != nil
                        }
                        if !fine {
                            mismatches.append(
                                "\(row.door) \(row.method) \(uri)\(row.action.map { " [\($0)]" } ?? "") (\(side)) as \(caller ?? "anonymous"): \(status.code), expected \(expected.map { String($0.code) } ?? "admitted")"
                            )
                        }
                        if status.code >= 500 { mismatches.append("\(row.key) as \(caller ?? "anonymous"): \(status.code)") }
                    }
                }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }
}
