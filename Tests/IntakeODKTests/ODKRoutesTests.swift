import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeODK
@testable import IntakeServer
@testable import IntakeService

/// ODK Central's API under /odk, over HTTP, on SQLite and PostgreSQL alike: the same accounts
/// and access rules as Intake's API, the export's de-identification, records written through the
/// record service and reviews through the review workflow. pyodk itself drives it in
/// scripts/odk-client.py.
struct ODKRoutesTests {
    static func application(_ server: TestServer) -> some ApplicationProtocol {
        server.application(modules: [ODKModule()])
    }

    /// A record as an XForm instance of the questionnaire (as ODK Collect would send it).
    static func instance(_ record: PatientResponse, _ questionnaire: Questionnaire, formId: String = "refugee-health") -> String {
        func text(_ answer: Answer) -> String {
            switch answer {
            case .text(let value), .choice(let value):
                value.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            case .integer(let value): "\(value)"
            case .decimal(let value): "\(value)"
            case .date(let value): value.description
            case .yesNo(let value): value ? "yes" : "no"
            case .choices(let codes): codes.joined(separator: " ")
            case .geopoint(let point):
                [point.latitude, point.longitude, point.altitude ?? 0, point.accuracy ?? 0].map { "\($0)" }.joined(separator: " ")
            default: ""
            }
        }
        func elements(_ questions: [Question], _ answers: [Int: Answer]) -> String {
            var xml = ""
            for question in questions {
                let answer = answers[question.position.index]
                switch answer {
                case .instances(let list)?:
                    let members = questionnaire.members(of: question.position).filter { $0.group == question.position }
                    for instance in list { xml += "<\(question.key)>\(elements(members, instance))</\(question.key)>" }
                case .dictionary(let fields)?:
                    xml += "<\(question.key)>" + fields.map { "<\($0.key)>\(text($0.value))</\($0.key)>" }.joined() + "</\(question.key)>"
                case .attachment?, nil: xml += "<\(question.key)/>"
                case let answer?: xml += "<\(question.key)>\(text(answer))</\(question.key)>"
                }
            }
            return xml
        }
        var xml =
            "<data id=\"\(formId)\" version=\"\(record.questionnaire.version)\"><patient><given_name>\(record.patient.givenName)</given_name>"
        xml += "<family_name>\(record.patient.familyName)</family_name><sex>\(record.patient.sex?.rawValue ?? "")</sex></patient>"
        for section in questionnaire.sections {
            xml +=
                "<\(section.name)>\(elements(section.questions.filter { $0.group == nil }, record.answers[section.number] ?? [:]))</\(section.name)>"
        }
        return xml + "<meta><instanceID>uuid:\(record.id.uuidString.lowercased())</instanceID></meta></data>"
    }

    @Test func signingInAndSeeingTeamsAndFormsFollowIntakesAccounts() async throws {
        let server = try await TestServer.make()
        try await Self.application(server).test(.router) { client in
            let bad = try await client.execute(
                uri: "/odk/v1/sessions", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer stale"],
                body: ByteBuffer(string: #"{"email":"coordinator-a","password":"wrong"}"#))
            #expect(
                bad.status == .unauthorized && bad.json["code"] as? Double == 401.2,
                "a stale token is ignored at sign-in; a wrong password is refused: \(bad.text)")
            let good = try await client.execute(
                uri: "/odk/v1/sessions", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"email":"coordinator-a","password":"password-coordinator-a"}"#))
            #expect(good.status == .ok, "pyodk wants 200: \(good.text)")
            let token = try #require(good.json["token"] as? String)
            let me = try await client.execute(uri: "/odk/v1/users/current", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(me.status == .ok && me.json["displayName"] as? String == "coordinator-a")
            let nobody = try await client.send(.get, "/odk/v1/users/current", as: nil, in: server)
            #expect(nobody.status == .unauthorized && nobody.json["code"] as? Double == 401.2)

            let own = try await client.send(.get, "/odk/v1/projects", as: "coordinator-a", in: server)
            #expect((own.jsonArray.map { $0["name"] as? String }) == ["team-a"], "a coordinator sees their team: \(own.text)")
            let all = try await client.send(.get, "/odk/v1/projects", as: "admin", in: server)
            #expect(all.jsonArray.count == 2)
            let other = try await client.send(.get, "/odk/v1/projects/2/forms", as: "coordinator-a", in: server)
            #expect(other.status == .notFound && other.json["code"] as? Double == 404.1)

            let forms = try await client.send(.get, "/odk/v1/projects/1/forms", as: "coordinator-a", in: server)
            let form = try #require(forms.jsonArray.first)
            for key in [
                "projectId", "xmlFormId", "version", "hash", "state", "createdAt", "name", "enketoId", "keyId", "updatedAt", "publishedAt",
            ] {
                #expect(form.keys.contains(key), "pyodk requires \(key)")
            }
            #expect(
                form["xmlFormId"] as? String == "refugee-health" && form["state"] as? String == "open"
                    && form["version"] as? String == server.questionnaire.version)
            let xml = try await client.send(.get, "/odk/v1/projects/1/forms/refugee-health.xml", as: "fieldworker-a", in: server)
            #expect(xml.status == .ok && xml.text.contains("<data id=\"refugee-health\"") && xml.text.contains("jr:template"))
            let missing = try await client.send(.get, "/odk/v1/projects/1/forms/nothing.xml", as: "fieldworker-a", in: server)
            #expect(missing.status == .notFound)
        }
    }

    @Test func theSubmissionsTableIsTheExportsRecordsPagedFilteredAndDeidentified() async throws {
        let server = try await TestServer.make()
        let records = (1...3).map { server.record(seed: UInt64(70 + $0), familyName: "Haddad") }
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        _ = try await server.services.records.ingest(
            [server.record(seed: 80, collector: "fieldworker-b")], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        let table = "/odk/v1/projects/1/forms/refugee-health.svc/Submissions"
        try await Self.application(server).test(.router) { client in
            let first = try await client.send(.get, "\(table)?%24top=2&%24count=True", as: "coordinator-a", in: server)
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.json["@odata.count"] as? Int == 3 && (first.json["value"] as? [Any])?.count == 2, "\(first.text.prefix(300))")
            let next = try #require(first.json["@odata.nextLink"] as? String)
            let path = String(next[next.range(of: "/odk/v1/")!.lowerBound...])
            let second = try await client.send(.get, path, as: "coordinator-a", in: server)
            #expect((second.json["value"] as? [Any])?.count == 1 && second.json["@odata.nextLink"] == nil)
            #expect(!first.text.contains("Haddad") && !second.text.contains("Haddad"), "names are never served")

            let row = try #require((second.json["value"] as? [[String: Any]])?.first)
            let system = try #require(row["__system"] as? [String: Any])
            #expect(
                (row["__id"] as? String)?.hasPrefix("uuid:") == true && system["reviewState"] is NSNull
                    && system["submitterName"] as? String == "fieldworker-a")
            #expect(row["demographics"] is [String: Any] && row["meta"] is [String: Any])

            // A repeat's navigation link answers its instances, each naming itself and its submission.
            let demographics = try #require(row["demographics"] as? [String: Any])
            if let link = demographics.first(where: { $0.key.hasSuffix("@odata.navigationLink") })?.value as? String {
                let encoded = link.replacingOccurrences(of: "'", with: "%27").replacingOccurrences(of: ":", with: "%3A")
                let repeatRows = try await client.send(
                    .get, "/odk/v1/projects/1/forms/refugee-health.svc/\(encoded)", as: "coordinator-a", in: server)
                #expect(repeatRows.status == .ok, "\(link): \(repeatRows.text.prefix(300))")
                let instances = (repeatRows.json["value"] as? [[String: Any]]) ?? []
                #expect(
                    instances.allSatisfy { $0["__id"] is String && $0["__Submissions-id"] as? String == row["__id"] as? String },
                    "\(instances.prefix(1))")
                let expanded = try await client.send(.get, "\(table)?%24expand=*", as: "coordinator-a", in: server)
                let same = (expanded.json["value"] as? [[String: Any]])?.first { $0["__id"] as? String == row["__id"] as? String }
                let key = String(link.split(separator: "/").last!)
                #expect(
                    ((same?["demographics"] as? [String: Any])?[key] as? [Any])?.count == instances.count,
                    "the link's instances are the expanded row's")
            }

            let filtered = try await client.send(
                .get, "\(table)?%24filter=__system%2FreviewState+eq+null+and+__system%2FsubmissionDate+gt+2000-01-01", as: "coordinator-a",
                in: server)
            #expect((filtered.json["value"] as? [Any])?.count == 3, "\(filtered.text.prefix(300))")
            let unsupported = try await client.send(.get, "\(table)?%24orderby=__id", as: "coordinator-a", in: server)
            #expect(unsupported.status == .notImplemented && unsupported.json["code"] as? Double == 501.1)
            let badFilter = try await client.send(
                .get, "\(table)?%24filter=year(__system%2FsubmissionDate)+eq+2024", as: "coordinator-a", in: server)
            #expect(badFilter.status == .notImplemented)
            let huge = try await client.send(.get, "\(table)?%24skip=1&%24top=9223372036854775807", as: "coordinator-a", in: server)
            #expect(huge.status == .ok && (huge.json["value"] as? [Any])?.count == 2, "no overflow: \(huge.status)")
            let deep = String(repeating: "(", count: 40) + "__id+eq+null" + String(repeating: ")", count: 40)
            let nested = try await client.send(.get, "\(table)?%24filter=\(deep)", as: "coordinator-a", in: server)
            #expect(nested.status == .notImplemented, "a filter nests 32 deep at most")
            let notADate = try await client.send(
                .get, "\(table)?%24filter=__system%2FsubmissionDate+gt+%27soon%27", as: "coordinator-a", in: server)
            #expect(notADate.status == .notImplemented, "a date that is none is said so")
            let selected = try await client.send(
                .get, "\(table)?%24select=__id,demographics%2Fhousehold_size", as: "coordinator-a", in: server)
            let selectedRow = try #require((selected.json["value"] as? [[String: Any]])?.first)
            #expect(
                Set(selectedRow.keys) == ["__id", "demographics"]
                    && (selectedRow["demographics"] as? [String: Any])?.keys.sorted() == ["household_size"])

            let fieldworker = try await client.send(.get, table, as: "fieldworker-a", in: server)
            #expect(fieldworker.status == .forbidden, "field workers do not export")
            let otherTeam = try await client.send(
                .get, "/odk/v1/projects/2/forms/refugee-health.svc/Submissions", as: "coordinator-a", in: server)
            #expect(otherTeam.status == .notFound)
            let researcher = try await client.send(.get, table, as: "researcher", in: server)
            #expect(
                researcher.status == .ok && (researcher.json["value"] as? [Any])?.isEmpty == true,
                "no consent, nothing: \(researcher.text.prefix(200))")
        }
    }

    @Test func aSubmissionIsARecordAndItsReviewIsTheWorkflows() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 90)
        let submissions = "/odk/v1/projects/1/forms/refugee-health/submissions"
        let xml = Self.instance(record, server.questionnaire)
        try await Self.application(server).test(.router) { client in
            func post(_ body: String, as user: String) async throws -> TestResponse {
                try await client.execute(
                    uri: submissions, method: .post,
                    headers: [.contentType: "application/xml", .authorization: "Bearer \(server.tokens[user]!)"],
                    body: ByteBuffer(string: body))
            }
            let byResearcher = try await post(xml, as: "researcher")
            #expect(byResearcher.status == .forbidden || byResearcher.status == .notFound)
            let created = try await post(xml, as: "fieldworker-a")
            #expect(created.status == .ok, "\(created.text)")
            #expect(
                created.json["instanceId"] as? String == "uuid:\(record.id.uuidString.lowercased())" && created.json["submitterId"] is Int)
            #expect(created.json["attachments"] == nil, "pyodk passes attachments itself")
            let stored = try #require(try await server.services.store.record(id: record.id))
            #expect(stored.record.status == .complete && stored.record.collector == "fieldworker-a")
            for (section, answers) in record.answers {
                for (index, answer) in answers {
                    if case .attachment = answer { continue }
                    #expect(stored.record.answers[section]?[index] == answer, "answer \(section).\(index) arrives as sent")
                }
            }
            let again = try await post(xml, as: "fieldworker-a")
            #expect(again.status == .conflict)
            let wrongForm = try await post(xml.replacingOccurrences(of: "id=\"refugee-health\"", with: "id=\"other\""), as: "fieldworker-a")
            #expect(wrongForm.status == .badRequest && wrongForm.json["code"] as? Double == 400.8)
            let broken = try await post("<data id=\"refugee-health\"><meta>", as: "fieldworker-a")
            #expect(broken.status == .badRequest)
            let notANumber = try await post(
                Self.instance(server.record(seed: 91), server.questionnaire).replacingOccurrences(
                    of: "<household_size>", with: "<household_size>many"),
                as: "fieldworker-a")
            #expect(notANumber.status == .badRequest && notANumber.text.contains("household_size"), "\(notANumber.text)")

            let attachments = try await client.send(
                .get, "\(submissions)/uuid%3A\(record.id.uuidString.lowercased())/attachments", as: "fieldworker-a", in: server)
            #expect(attachments.status == .ok && attachments.text.hasPrefix("["))
            let instance = "\(submissions)/uuid%3A\(record.id.uuidString.lowercased())"
            struct State: Encodable { var reviewState: String }
            let byOtherLead = try await client.send(
                .patch, instance.replacingOccurrences(of: "projects/1", with: "projects/2"), as: "coordinator-b", in: server,
                json: State(reviewState: "approved"))
            #expect(byOtherLead.status == .notFound || byOtherLead.status == .forbidden)
            let edited = try await client.send(.patch, instance, as: "coordinator-a", in: server, json: State(reviewState: "edited"))
            #expect(edited.status == .badRequest && edited.json["code"] as? Double == 400.8)
            let approved = try await client.send(.patch, instance, as: "coordinator-a", in: server, json: State(reviewState: "approved"))
            #expect(approved.status == .ok && approved.json["reviewState"] as? String == "approved", "\(approved.text)")
            let (review, _) = try await server.services.reviews.review(
                record.id, by: try #require(try await server.services.accounts.user(token: server.tokens["coordinator-a"]!)))
            #expect(review.state == .approved && review.reviewedBy == "coordinator-a")
            let table = try await client.send(
                .get, "/odk/v1/projects/1/forms/refugee-health.svc/Submissions?%24filter=__system%2FreviewState+eq+%27approved%27",
                as: "coordinator-a", in: server)
            #expect(
                (table.json["value"] as? [[String: Any]])?.map { $0["__id"] as? String } == ["uuid:\(record.id.uuidString.lowercased())"])

            // Comments are listed back, oldest first, each with its author's actor id.
            struct Comment: Encodable { var body: String }
            #expect(
                try await client.send(
                    .post, "\(instance)/comments", as: "coordinator-a", in: server, json: Comment(body: "Weight rechecked")
                ).status == .ok)
            let comments = try await client.send(.get, "\(instance)/comments", as: "coordinator-a", in: server)
            #expect(
                comments.status == .ok && comments.jsonArray.last?["body"] as? String == "Weight rechecked"
                    && comments.jsonArray.last?["actorId"] is Int, "\(comments.text)")
            #expect(
                try await client.send(.get, "\(instance)/comments", as: "coordinator-b", in: server).status != .ok,
                "another team's submission")
            // The submitter is the same actor id everywhere: creation's answer, the table's row, a filter on it.
            let actor = try #require(created.json["submitterId"] as? Int)
            let row = try #require((table.json["value"] as? [[String: Any]])?.first?["__system"] as? [String: Any])
            #expect(row["submitterId"] as? String == String(actor) && row["submitterName"] as? String == "fieldworker-a", "\(row)")
            for literal in [String(actor), "'\(actor)'"] {
                let mine = try await client.send(
                    .get, "/odk/v1/projects/1/forms/refugee-health.svc/Submissions?%24filter=__system%2FsubmitterId+eq+\(literal)",
                    as: "coordinator-a", in: server)
                #expect((mine.json["value"] as? [[String: Any]])?.count == 1, "\(literal): \(mine.text.prefix(200))")
            }
            // One submission's metadata (pyodk's submissions.get).
            let one = try await client.send(.get, instance, as: "coordinator-a", in: server)
            #expect(
                one.status == .ok && one.json["submitterId"] as? Int == actor && one.json["reviewState"] as? String == "approved",
                "\(one.text)")
            #expect(try await client.send(.get, instance, as: "coordinator-b", in: server).status != .ok, "another team's submission")
            // Central's error shape on any ODK path, a known one or not.
            for path in ["/odk/v1/nothing/here", "\(instance)/audits/x", "/odk/v1/projects/1/forms/refugee-health/versions/1/fields"] {
                let unknown = try await client.send(.get, path, as: "coordinator-a", in: server)
                #expect(unknown.status == .notFound && unknown.json["code"] as? Double == 404.1, "\(path): \(unknown.text)")
            }
            let nobody = try await client.send(
                .get, "/odk/v1/projects/1/forms/refugee-health.svc/Submissions?%24filter=__system%2FsubmitterId+eq+\(actor + 1000)",
                as: "coordinator-a", in: server)
            #expect((nobody.json["value"] as? [[String: Any]])?.isEmpty == true)

            // An edit (pyodk's submissions.edit) is the record's next revision, through the access policy.
            func put(_ body: String, as user: String, at path: String = instance) async throws -> TestResponse {
                try await client.execute(
                    uri: path, method: .put, headers: [.contentType: "application/xml", .authorization: "Bearer \(server.tokens[user]!)"],
                    body: ByteBuffer(string: body))
            }
            let old = "uuid:\(record.id.uuidString.lowercased())"
            let newVersion =
                "<meta><instanceID>uuid:\(UUID().uuidString.lowercased())</instanceID><deprecatedID>\(old)</deprecatedID></meta>"
            let edit = xml.replacingOccurrences(of: "<meta><instanceID>\(old)</instanceID></meta>", with: newVersion)
            #expect(edit != xml, "the instance names its version in meta")
            let undeclared = try await put(xml, as: "coordinator-a")
            #expect(undeclared.status == .badRequest && undeclared.text.contains("deprecatedID"), "\(undeclared.text)")
            #expect(
                try await put(edit, as: "coordinator-b", at: instance.replacingOccurrences(of: "projects/1", with: "projects/2")).status
                    != .ok, "another team's submission")
            #expect(try await put(edit, as: "researcher").status != .ok, "a researcher edits nothing")
            let before = try #require(try await server.services.store.record(id: record.id))
            let saved = try await put(edit, as: "coordinator-a")
            #expect(saved.status == .ok && saved.json["instanceId"] as? String == old, "\(saved.text)")
            let after = try #require(try await server.services.store.record(id: record.id))
            #expect(after.revision == before.revision, "an edit that changes nothing makes no revision")
            let renamed = edit.replacingOccurrences(
                of: "<given_name>\(record.patient.givenName)</given_name>", with: "<given_name>\(record.patient.givenName)a</given_name>")
            #expect(renamed != edit)
            let changed = try await put(renamed, as: "coordinator-a")
            #expect(changed.status == .ok, "\(changed.text)")
            let revised = try #require(try await server.services.store.record(id: record.id))
            #expect(revised.revision == before.revision + 1 && revised.record.patient.givenName == record.patient.givenName + "a")
            #expect(revised.record.collector == "fieldworker-a", "the record keeps its collector")
            let list = try await client.send(.get, submissions, as: "coordinator-a", in: server)
            #expect(
                list.status == .ok && list.jsonArray.contains { $0["instanceId"] as? String == old && $0["submitterId"] as? Int == actor },
                "\(list.text.prefix(300))")
            let media = try await client.send(.get, "/odk/v1/projects/1/forms/refugee-health/attachments", as: "coordinator-a", in: server)
            #expect(media.status == .ok && media.text == "[]")
            let project = try await client.send(.get, "/odk/v1/projects/1", as: "coordinator-a", in: server)
            #expect(project.json["lastSubmission"] is String, "\(project.text)")
        }
    }
    /// A follow-up form's case list is its entity-list attachment: listed with `datasetExists`,
    /// and read as ODK Collect reads an entity list (name, label, __version, the properties), only
    /// the open cases the caller follows. Another form has no attachment.
    @Test func aFollowUpsCaseListIsItsEntityListAttachment() async throws {
        var made = try await TestServer.make()
        try await made.addUser("fieldworker-a2", role: .fieldworker, team: "team-a")
        let server = made
        _ = try await server.services.questionnaires.publish(
            directory: TestServer.repositoryRoot.appendingPathComponent("Questionnaires/follow-up"))
        try await Self.application(server).test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 900)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let caseId = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first?["id"]
                    as? String)
            func get(_ path: String, as user: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/odk/v1/projects/1/forms/" + path, method: .get,
                    headers: [.authorization: "Bearer \(server.tokens[user] ?? user)"])
            }
            let listed = try await get("follow-up/attachments", as: "fieldworker-a")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [[String: Any]])
            #expect(entries.count == 1 && entries[0]["name"] as? String == "follow-up.csv" && entries[0]["datasetExists"] as? Bool == true)
            let csv = try await get("follow-up/attachments/follow-up.csv", as: "fieldworker-a")
            #expect(csv.status == .ok && csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = String(buffer: csv.body).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(lines.first?.hasPrefix("name,label,__version,") == true && lines.first?.contains("phq2") == true, "\(lines)")
            #expect(lines.count == 2 && lines[1].hasPrefix("\(caseId),\(screening.patient.fullName),1,"), "\(lines)")
            // Not followed by another field worker; no attachment of another name, nor of the screening.
            let other = try await get("follow-up/attachments/follow-up.csv", as: "fieldworker-a2")
            #expect(String(buffer: other.body).components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 1)
            #expect(try await get("follow-up/attachments/other.csv", as: "fieldworker-a").status == .notFound)
            #expect(String(buffer: try await get("refugee-health/attachments", as: "fieldworker-a").body) == "[]")
        }
    }

    /// A follow-up's XForm is ODK's entity update: it picks the case from the list's CSV, reads
    /// its properties through it, saves answers to properties and names the entity in
    /// meta/entity; a submission of it visits the case it picks, with the case's patient, as
    /// `intake fill --case` does. One that picks no case, or a case not of the team, is refused
    /// saying what to send.
    @Test func aFollowUpSubmittedThroughODKVisitsTheCaseItPicks() async throws {
        let server = try await TestServer.make()
        let (published, _) = try await server.services.questionnaires.publish(
            directory: TestServer.repositoryRoot.appendingPathComponent("Questionnaires/follow-up"))
        let followUp = try #require(
            try await server.services.questionnaires.questionnaire(QuestionnaireReference(id: published.id, version: published.version)))
        try await Self.application(server).test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 950)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let pulled = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first)
            let caseId = try #require(pulled["id"] as? String)

            let form = try await client.execute(
                uri: "/odk/v1/projects/1/forms/follow-up.xml", method: .get,
                headers: [.authorization: "Bearer \(server.tokens["fieldworker-a"]!)"])
            let xform = String(buffer: form.body)
            #expect(form.status == .ok, "\(xform.prefix(300))")
            #expect(xform.contains(#"<instance id="follow-up" src="jr://file-csv/follow-up.csv"/>"#))
            #expect(
                xform.contains(#"<select1 ref="/data/intake_case">"#)
                    && xform.contains(#"<itemset nodeset="instance('follow-up')/root/item">"#))
            #expect(xform.contains(#"<entity dataset="follow-up" id="" update="1" baseVersion=""/>"#))
            #expect(xform.contains("instance('follow-up')/root/item[name= /data/intake_case ]/phq2"), "case.phq2 reads the picked entity")
            #expect(xform.contains(#"entities:saveto="phq2""#) && xform.contains(#"<bind nodeset="/data/patient" relevant="false()"/>"#))

            // A coordinator changes the case by hand meanwhile: revision 2, phq2 5. The visit,
            // made from version 1, names revision 1 and the properties it read then.
            struct Change: Encodable { var data: [String: String] }
            let changed = try await client.send(
                .patch, "/odk/v1/projects/1/datasets/follow-up/entities/\(caseId)?force=true", as: "coordinator-a", in: server,
                json: Change(data: ["phq2": "5"]))
            #expect(changed.status == .ok, "\(changed.text)")
            let before = try #require(pulled["properties"] as? [String: Any])

            var visit = try CaseFixtures.followUp(
                followUp, of: pulled, collector: "fieldworker-a", seed: 951, outcome: "resolved", phq: ("0", "1"))
            visit.patient = PatientIdentification()
            var xml = Self.instance(visit, followUp, formId: "follow-up")
            xml = xml.replacingOccurrences(
                of: #"<patient><given_name></given_name><family_name></family_name><sex></sex></patient>"#, with: "<patient/>")
            func post(_ body: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/odk/v1/projects/1/forms/follow-up/submissions", method: .post,
                    headers: [.contentType: "application/xml", .authorization: "Bearer \(server.tokens["fieldworker-a"]!)"],
                    body: ByteBuffer(string: body))
            }
            let unpicked = try await post(xml)
            #expect(unpicked.status == .badRequest && unpicked.text.contains("intake_case"), "\(unpicked.text)")
            let opening = #"<data id="follow-up" version="\#(visit.questionnaire.version)">"#
            let stranger = try await post(
                xml.replacingOccurrences(of: opening, with: opening + "<intake_case>\(UUID().uuidString.lowercased())</intake_case>"))
            #expect(stranger.status == .badRequest && stranger.text.contains("no case of the list"), "\(stranger.text)")
            let picked = xml.replacingOccurrences(
                of: "<meta>", with: #"<meta><entity dataset="follow-up" id="\#(caseId)" update="1" baseVersion="1"/>"#
            ).replacingOccurrences(of: opening, with: opening + "<intake_case>\(caseId)</intake_case>")
            let sent = try await post(picked)
            #expect(sent.status == .ok, "\(sent.text)")
            let stored = try #require(try await server.services.store.record(id: visit.id))
            #expect(stored.record.caseLink?.id.uuidString.lowercased() == caseId && stored.record.caseLink?.revision == 1)
            let phq2 = try #require(followUp.cases.follows?.properties.firstIndex { $0.name == "phq2" })
            #expect(
                stored.record.caseLink?.properties[phq2 + 1] == .integer((before["phq2"] as? [String: Any])?["integer"] as? Int ?? -1),
                "the properties as the form read them, at version 1, not the change made since")
            #expect(stored.record.patient == screening.patient, "the case's patient, as intake fill --case takes it")
            try await server.services.cases.catchUpAll()
            let shown = try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server)
            #expect(shown.json["status"] as? String == "closed" && (shown.json["visits"] as? [Any])?.count == 1, "\(shown.text)")

            // A second visit made offline before the case closed still visits it; another
            // team's field worker cannot name it; an edit cannot move a visit to another case.
            var late = try CaseFixtures.followUp(
                followUp, of: pulled, collector: "fieldworker-a", seed: 952, outcome: "resolved", phq: ("1", "1"))
            late.patient = PatientIdentification()
            let lateXML = Self.instance(late, followUp, formId: "follow-up").replacingOccurrences(
                of: opening, with: opening + "<intake_case>\(caseId)</intake_case>")
            #expect(try await post(lateXML).status == .ok, "a visit to a case closed since is kept")
            try await server.services.cases.catchUpAll()
            let again = try await client.send(.get, "/v1/cases/\(caseId)", as: "coordinator-a", in: server)
            #expect((again.json["visits"] as? [Any])?.count == 2, "\(again.text)")
            let otherTeam = try await client.execute(
                uri: "/odk/v1/projects/2/forms/follow-up/submissions", method: .post,
                headers: [.contentType: "application/xml", .authorization: "Bearer \(server.tokens["fieldworker-b"]!)"],
                body: ByteBuffer(
                    string: lateXML.replacingOccurrences(of: late.id.uuidString.lowercased(), with: UUID().uuidString.lowercased())))
            #expect(otherTeam.status == .badRequest || otherTeam.status == .notFound, "\(otherTeam.text)")
            let screening2 = CaseFixtures.screening(server, flagged: true, from: 990)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening2).status == .created)
            try await server.services.cases.catchUpAll()
            let cases = (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]]) ?? []
            let second = try #require(cases.compactMap { $0["id"] as? String }.first { $0 != caseId })
            let moved = try await client.execute(
                uri: "/odk/v1/projects/1/forms/follow-up/submissions/uuid%3A\(visit.id.uuidString.lowercased())", method: .put,
                headers: [.contentType: "application/xml", .authorization: "Bearer \(server.tokens["coordinator-a"]!)"],
                body: ByteBuffer(
                    string: picked.replacingOccurrences(
                        of: "<intake_case>\(caseId)</intake_case>", with: "<intake_case>\(second)</intake_case>"
                    )
                    .replacingOccurrences(
                        of: "<instanceID>uuid:\(visit.id.uuidString.lowercased())</instanceID>",
                        with:
                            "<instanceID>uuid:\(UUID().uuidString.lowercased())</instanceID><deprecatedID>uuid:\(visit.id.uuidString.lowercased())</deprecatedID>"
                    )))
            #expect(moved.status == .badRequest && moved.text.contains("An edit keeps the case"), "\(moved.text)")
        }
    }
}

extension TestResponse {
    var jsonArray: [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [[String: Any]] ?? []
    }

}
