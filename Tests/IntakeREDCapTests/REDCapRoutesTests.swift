import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeREDCap
@testable import IntakeServer
@testable import IntakeService

/// REDCap's API at /redcap/{questionnaire}/api/, over HTTP, on SQLite and PostgreSQL alike: the
/// same tokens, export policy and consent as Intake's own API, REDCap's refusals, records in the
/// flat format both ways. PyCap itself drives it in scripts/redcap-client.py.
struct REDCapRoutesTests {
    static let url = "/redcap/refugee-health/api/"

    static func application(_ server: TestServer) -> some ApplicationProtocol {
        server.application(modules: [REDCapModule()])
    }

    /// A form-encoded POST, as PyCap sends it.
    static func post(_ client: some TestClientProtocol, _ fields: [(String, String)], path: String = url) async throws -> TestResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }
        .joined(separator: "&")
        return try await client.execute(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: body))
    }

    /// A JSON array of rows, every value as text (`redcap_repeat_instance` comes as a number).
    static func rows(_ answer: TestResponse) -> [[String: String]] {
        let rows = (try? JSONSerialization.jsonObject(with: Data(buffer: answer.body))) as? [[String: Any]] ?? []
        return rows.map { $0.mapValues { "\($0)" } }
    }

    static func token(_ server: TestServer, _ user: String) async throws -> String {
        try await server.services.accounts.issueToken(username: user, name: "redcap", expiresAt: nil, style: .redcap)
    }

    @Test func tokensAreREDCapsAndRefusalsAreREDCapsToo() async throws {
        let server = try await TestServer.make()
        let token = try await Self.token(server, "coordinator-a")
        #expect(token.count == 32 && token.allSatisfy { $0.isHexDigit && !$0.isLowercase })
        try await Self.application(server).test(.router) { client in
            let version = try await Self.post(client, [("token", token), ("content", "version")])
            #expect(version.status == .ok && version.text == "14.0.0")
            let unknown = try await Self.post(
                client, [("token", String(repeating: "A", count: 32)), ("content", "metadata"), ("format", "json")])
            #expect(unknown.status == .forbidden && unknown.json["error"] as? String == "You do not have permissions to use the API")
            let short = try await Self.post(client, [("token", String(token.prefix(31))), ("content", "metadata")])
            #expect(short.status == .forbidden)
            let csvError = try await Self.post(client, [("token", "x"), ("content", "record"), ("format", "csv")])
            #expect(csvError.text.lowercased().hasPrefix("error:"), "csv errors start with error: as PyCap reads them")
            let classic = try await Self.post(client, [("token", token), ("content", "formEventMapping"), ("format", "json")])
            #expect(classic.status == .badRequest && (classic.json["error"] as? String)?.contains("classic") == true)
            let nothing = try await Self.post(client, [("token", token), ("content", "metadata")], path: "/redcap/no-such-form/api/")
            #expect(nothing.status == .notFound && nothing.json["error"] != nil)
            let odd = try await Self.post(client, [("token", token), ("content", "survey")])
            #expect(odd.status == .badRequest && odd.json["error"] != nil)
            let notUTF8 = try await client.execute(
                uri: Self.url, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(bytes: [0xFF, 0xFE]))
            #expect(notUTF8.status == .badRequest)
            // The same token works as a bearer token of Intake's own API.
            let own = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(own.status != .unauthorized)
        }
    }

    /// Guessing tokens from one address is slowed as guessing passwords is: after the free
    /// failures, a wait, whatever token comes next (over a real socket, so the address is known).
    @Test func unknownTokensFromOneAddressAreThrottled() async throws {
        let server = try await TestServer.make()
        let token = try await Self.token(server, "coordinator-a")
        try await Self.application(server).test(.live) { client in
            for _ in 0..<SignInPolicy().addressFreeFailures {
                #expect(
                    try await Self.post(client, [("token", String(repeating: "B", count: 32)), ("content", "version")]).status == .forbidden
                )
            }
            _ = try await Self.post(client, [("token", String(repeating: "C", count: 32)), ("content", "version")])
            let slowed = try await Self.post(client, [("token", token), ("content", "version")])
            #expect(slowed.status == .tooManyRequests && slowed.text.contains("try again in"), "\(slowed.text)")
        }
    }

    @Test func theDictionaryPutsTheRecordIdFirstAndLeavesIdentifyingQuestionsOut() async throws {
        let server = try await TestServer.make()
        let token = try await Self.token(server, "fieldworker-a")
        try await Self.application(server).test(.router) { client in
            let metadata = Self.rows(try await Self.post(client, [("token", token), ("content", "metadata"), ("format", "json")]))
            #expect(metadata.first?["field_name"] == "record_id" && metadata.first?["form_name"] == "patient")
            #expect(metadata.allSatisfy { $0.count == 18 })
            let names = Set(metadata.compactMap { $0["field_name"] })
            #expect(
                names.contains("symptoms") && !names.contains("allergy_details") && !names.contains("member_name"),
                "identifying questions are left out")
            #expect(metadata.first { $0["field_name"] == "symptoms" }?["field_type"] == "checkbox")
            #expect(
                metadata.first { $0["field_name"] == "member_age" }?["form_name"] == "household_members", "a repeat is its own instrument")
            let byForm = Self.rows(
                try await Self.post(client, [("token", token), ("content", "metadata"), ("format", "json"), ("forms[0]", "patient")]))
            #expect(Set(byForm.compactMap { $0["form_name"] }) == ["patient"])
            let exportNames = Self.rows(
                try await Self.post(client, [("token", token), ("content", "exportFieldNames"), ("format", "json"), ("field", "symptoms")]))
            #expect(exportNames.contains { $0["export_field_name"] == "symptoms___fever" && $0["choice_value"] == "fever" })
            let repeating = Self.rows(
                try await Self.post(client, [("token", token), ("content", "repeatingFormsEvents"), ("format", "json")]))
            #expect(repeating.map { $0["form_name"] } == ["household_members"])
            let csv = try await Self.post(client, [("token", token), ("content", "metadata"), ("format", "csv")])
            #expect(csv.text.hasPrefix("field_name,form_name,section_header,field_type"))
        }
    }

    @Test func recordsAreTheExportsFlatAndOnlyWhatThePolicyAllows() async throws {
        let server = try await TestServer.make()
        let records = (UInt64(1)...4).map { server.record(seed: $0) }
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        _ = try await server.services.records.ingest(
            [server.record(seed: 9, collector: "fieldworker-b")], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        let coordinator = try await Self.token(server, "coordinator-a")
        let fieldworker = try await Self.token(server, "fieldworker-a")
        try await Self.application(server).test(.router) { client in
            let all = Self.rows(
                try await Self.post(client, [("token", coordinator), ("content", "record"), ("format", "json"), ("type", "flat")]))
            let base = all.filter { $0["redcap_repeat_instrument"] == "" }
            #expect(
                Set(base.compactMap { $0["record_id"] }) == Set(records.map { $0.id.uuidString.lowercased() }),
                "the team's records, not the other team's")
            #expect(base.allSatisfy { $0["given_name"] == "" && $0["family_name"] == "" }, "de-identified")
            #expect(base.allSatisfy { $0["patient_complete"] == "2" })
            // Values: a record's answers as REDCap's raw text.
            let record = records[0]
            let row = try #require(base.first { $0["record_id"] == record.id.uuidString.lowercased() })
            for section in server.questionnaire.sections {
                for question in section.questions where question.group == nil && !question.isIdentifying {
                    guard let answer = record[question.position] else { continue }
                    switch answer {
                    case .choices(let codes):
                        for choice in question.type.choices?.choices ?? [] {
                            #expect(
                                row["\(question.key)___\(REDCapProject.checkboxSuffix(choice.code))"]
                                    == (codes.contains(choice.code) ? "1" : "0"), "\(question.key)")
                        }
                    case .integer(let value): #expect(row[question.key] == String(value), "\(question.key)")
                    case .choice(let code): #expect(row[question.key] == code, "\(question.key)")
                    case .yesNo(let value): #expect(row[question.key] == (value ? "1" : "0"), "\(question.key)")
                    case .date(let value): #expect(row[question.key] == value.description, "\(question.key)")
                    default: break
                    }
                }
            }
            let one = Self.rows(
                try await Self.post(
                    client,
                    [("token", coordinator), ("content", "record"), ("format", "json"), ("records[0]", record.id.uuidString.lowercased())]))
            #expect(Set(one.compactMap { $0["record_id"] }) == [record.id.uuidString.lowercased()])
            let narrow = Self.rows(
                try await Self.post(client, [("token", coordinator), ("content", "record"), ("format", "json"), ("fields[0]", "symptoms")]))
            #expect(
                narrow.allSatisfy {
                    Set($0.keys).isSubset(
                        of: ["record_id", "redcap_repeat_instrument", "redcap_repeat_instance"]
                            + ["fever", "cough", "breath", "diarrhoea", "rash", "pain", "weight_loss", "night_sweats", "none"].map {
                                "symptoms___\($0)"
                            })
                })
            let sex = try #require(row["sex"])
            let filtered = Self.rows(
                try await Self.post(
                    client,
                    [
                        ("token", coordinator), ("content", "record"), ("format", "json"),
                        ("filterLogic", "[sex] = '\(sex)' and [record_id] <> ''"),
                    ]))
            #expect(Set(filtered.compactMap { $0["record_id"] }) == Set(base.filter { $0["sex"] == sex }.compactMap { $0["record_id"] }))
            let badLogic = try await Self.post(
                client, [("token", coordinator), ("content", "record"), ("format", "json"), ("filterLogic", "datediff([a], 'today') > 3")])
            #expect(badLogic.status == .badRequest && (badLogic.json["error"] as? String)?.contains("filterLogic") == true)
            let unknownField = try await Self.post(
                client, [("token", coordinator), ("content", "record"), ("format", "json"), ("fields[0]", "nope")])
            #expect(unknownField.status == .badRequest)
            let labels = Self.rows(
                try await Self.post(client, [("token", coordinator), ("content", "record"), ("format", "json"), ("rawOrLabel", "label")]))
            #expect(
                labels.filter { $0["redcap_repeat_instrument"] == "" }.allSatisfy {
                    ["Checked", "Unchecked", ""].contains($0["symptoms___fever"])
                })
            let csv = try await Self.post(client, [("token", coordinator), ("content", "record"), ("format", "csv")])
            #expect(csv.text.hasPrefix("record_id,redcap_repeat_instrument,redcap_repeat_instance,given_name"))
            let refused = try await Self.post(client, [("token", fieldworker), ("content", "record"), ("format", "json")])
            #expect(refused.status == .forbidden && (refused.json["error"] as? String)?.contains("privileges") == true)
            let delete = try await Self.post(
                client, [("token", coordinator), ("content", "record"), ("action", "delete"), ("records[0]", record.id.uuidString)])
            #expect(delete.status == .forbidden)
            #expect(try await server.services.store.record(id: record.id) != nil, "nothing is deleted")
        }
    }

    @Test func eachResearcherLevelReadsExactlyWhatConsentAllows() async throws {
        var made = try await TestServer.make()
        try await made.addUser("study-reader", role: .researcher, team: nil)
        let server = made
        let ids = try await ConsentFixture.records(server)
        _ = try await server.services.accounts.updateUser(
            username: "study-reader", role: nil, team: nil, password: nil, disabled: nil, researchAccess: .study)
        try await Self.application(server).test(.router) { client in
            func read(_ user: String) async throws -> Set<UUID> {
                let token = try await Self.token(server, user)
                let rows = Self.rows(try await Self.post(client, [("token", token), ("content", "record"), ("format", "json")]))
                return Set(rows.compactMap { $0["record_id"].flatMap(UUID.init(uuidString:)) })
            }
            let external = try await read("researcher")
            #expect(external == [ids["all_qualified_researchers"]!], "external access: only those who share with all")
            let study = try await read("study-reader")
            #expect(study == [ids["sponsors_and_partners"]!, ids["all_qualified_researchers"]!])
            for never in ["no_sharing", "unconsented", "unlinked"] {
                #expect(!external.contains(ids[never]!) && !study.contains(ids[never]!), "\(never) reaches no researcher through REDCap")
            }
            #expect(try await read("coordinator-a") == Set(ids.values), "a coordinator reads the whole team")
        }
    }

    @Test func anImportAddsValidatedRecordsAndRefusesWhatItCannotTake() async throws {
        let server = try await TestServer.make()
        let token = try await Self.token(server, "fieldworker-a")
        let researcher = try await Self.token(server, "researcher")
        try await Self.application(server).test(.router) { client in
            let rows: [[String: String]] = [
                [
                    "record_id": "clinic-7", "given_name": "Amal", "family_name": "Saleh", "sex": "female", "date_of_birth": "1990-02-03",
                    "patient_complete": "0",
                ],
                [
                    "record_id": "clinic-7", "redcap_repeat_instrument": "household_members", "redcap_repeat_instance": "1",
                    "member_age": "7",
                ],
            ]
            let data = String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
            let imported = try await Self.post(
                client,
                [
                    ("token", token), ("content", "record"), ("format", "json"), ("type", "flat"), ("data", data), ("returnContent", "ids"),
                    ("overwriteBehavior", "normal"),
                ])
            #expect(imported.status == .ok, "\(imported.text)")
            #expect(imported.text == #"["clinic-7"]"#, "ids are the names sent")
            // The name finds the record (its id is made from it).
            let coordinator = try await Self.token(server, "coordinator-a")
            let found = Self.rows(
                try await Self.post(
                    client, [("token", coordinator), ("content", "record"), ("format", "json"), ("records[0]", "clinic-7")]))
            let id = try #require(found.first.flatMap { $0["record_id"] }.flatMap(UUID.init(uuidString:)))
            let stored = try #require(try await server.services.store.record(id: id))
            #expect(
                stored.record.patient.familyName == "Saleh" && stored.record.collector == "fieldworker-a" && stored.record.status == .draft,
                "a form not complete is a draft")
            let group = try #require(server.questionnaire.question(id: "household_members"))
            let member = try #require(server.questionnaire.question(id: "member_age"))
            guard case .instances(let instances)? = stored.record[group.position] else {
                Issue.record("the repeat's instance is stored")
                return
            }
            #expect(
                instances.count == 1 && instances[0][member.position.index] == .integer(7),
                "the repeat's row is its instance (its calculations computed)")
            func send(_ rows: [[String: Any]], as sender: String = token, _ extra: [(String, String)] = []) async throws -> TestResponse {
                let data = String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
                return try await Self.post(client, [("token", sender), ("content", "record"), ("format", "json"), ("data", data)] + extra)
            }
            // Sent again with a change: the record is edited (REDCap's normal overwrite: a blank keeps the value).
            let again = try await send(
                [["record_id": "clinic-7", "family_name": "Saleh-Haddad", "given_name": ""]], [("returnContent", "ids")])
            #expect(again.status == .ok && again.text == #"["clinic-7"]"#, "\(again.text)")
            let edited = try #require(try await server.services.store.record(id: id))
            #expect(
                edited.revision == stored.revision + 1 && edited.record.patient.familyName == "Saleh-Haddad"
                    && edited.record.patient.givenName == "Amal")
            #expect(edited.record[group.position] == stored.record[group.position], "what was not sent is kept")
            // The same import again changes nothing: no revision is made.
            let same = try await send(
                [["record_id": "clinic-7", "family_name": "Saleh-Haddad", "given_name": ""]], [("returnContent", "ids")])
            #expect(same.status == .ok && same.text == #"["clinic-7"]"#, "\(same.text)")
            #expect(
                try await server.services.store.record(id: id)?.revision == edited.revision,
                "an import that changes nothing makes no revision")
            // One instance edited alone; a second added; a gap refused; a checkbox ticked and unticked column by column.
            let symptoms = try #require(server.questionnaire.question(id: "symptoms"))
            #expect(try await send([["record_id": "clinic-7", "symptoms___fever": "1", "symptoms___cough": "1"]]).status == .ok)
            #expect(
                try await send([
                    ["record_id": "clinic-7", "symptoms___cough": "0", "symptoms___rash": "1"],
                    [
                        "record_id": "clinic-7", "redcap_repeat_instrument": "household_members", "redcap_repeat_instance": 2,
                        "member_age": "40",
                    ],
                ]).status == .ok)
            let ticked = try #require(try await server.services.store.record(id: id))
            #expect(ticked.record[symptoms.position] == .choices(["fever", "rash"]), "fever kept, cough unticked, rash ticked")
            guard case .instances(let two)? = ticked.record[group.position] else {
                Issue.record("the instances are stored")
                return
            }
            #expect(two.count == 2 && two[0][member.position.index] == .integer(7) && two[1][member.position.index] == .integer(40))
            let gap = try await send([
                ["record_id": "clinic-7", "redcap_repeat_instrument": "household_members", "redcap_repeat_instance": 5, "member_age": "3"]
            ])
            #expect(gap.status == .badRequest && (gap.json["error"] as? String)?.contains("without gaps") == true)
            // overwrite: a blank sent clears that value only.
            #expect(try await send([["record_id": "clinic-7", "date_of_birth": ""]], [("overwriteBehavior", "overwrite")]).status == .ok)
            let cleared = try #require(try await server.services.store.record(id: id))
            #expect(
                cleared.record.patient.dateOfBirth == nil && cleared.record.patient.familyName == "Saleh-Haddad"
                    && cleared.record[symptoms.position] == .choices(["fever", "rash"]))
            // All or nothing: one bad record, and the good one is not stored either.
            let mixed = try await send([
                ["record_id": "clinic-8", "family_name": "New", "patient_complete": "0"],
                ["record_id": "clinic-9", "patient_complete": "2"],
            ])
            #expect(
                mixed.status == .badRequest && (mixed.json["error"] as? String)?.hasPrefix("No record was stored") == true, "\(mixed.text)")
            let none = Self.rows(
                try await Self.post(
                    client, [("token", coordinator), ("content", "record"), ("format", "json"), ("records[0]", "clinic-8")]))
            #expect(none.isEmpty, "clinic-8 was not stored")
            let otherTeam = try await Self.token(server, "fieldworker-b")
            let taken = try await send([["record_id": id.uuidString.lowercased(), "family_name": "X"]], as: otherTeam)
            #expect(
                taken.status == .badRequest && (taken.json["error"] as? String)?.contains("0 record(s) were stored") == true,
                "another team's record is not theirs to edit")
            #expect(try await server.services.store.record(id: id)?.record.patient.familyName == "Saleh-Haddad")
            // CSV, as PyCap sends a DataFrame: pandas writes whole numbers as 2.0 where a column has blanks.
            let csv =
                "record_id,family_name,household_size,redcap_repeat_instrument,redcap_repeat_instance,member_age\nclinic-7,,2.0,,,\nclinic-7,,,household_members,1.0,8.0\n"
            let viaCSV = try await Self.post(
                client, [("token", token), ("content", "record"), ("format", "csv"), ("data", csv), ("returnFormat", "json")])
            #expect(viaCSV.status == .ok && viaCSV.json["count"] as? Int == 1, "\(viaCSV.text)")
            let fromCSV = try #require(try await server.services.store.record(id: id))
            let size = try #require(server.questionnaire.question(id: "household_size"))
            #expect(fromCSV.record[size.position] == .integer(2) && fromCSV.record.patient.familyName == "Saleh-Haddad")
            let ragged = try await Self.post(
                client,
                [("token", token), ("content", "record"), ("format", "csv"), ("data", "record_id,sex\nx\n"), ("returnFormat", "json")])
            #expect(ragged.status == .badRequest && (ragged.json["error"] as? String)?.contains("Line 2") == true, "\(ragged.text)")
            let admin = try await Self.token(server, "admin")
            #expect(try await send([["record_id": "clinic-10"]], as: admin).status == .forbidden, "admins do not send records")
            let loop = try await Self.post(
                client, [("token", coordinator), ("content", "record"), ("format", "json"), ("filterLogic", "[sex] = 'female']")])
            #expect(loop.status == .badRequest, "a stray ] is refused, not read forever")
            let repeated = try await Self.post(
                client, [("token", coordinator), ("content", "record"), ("format", "json"), ("filterLogic", "[member_age] > 3")])
            #expect(repeated.status == .badRequest && (repeated.json["error"] as? String)?.contains("repeating") == true)
            let unknown = try await Self.post(
                client, [("token", token), ("content", "record"), ("format", "json"), ("data", #"[{"record_id":"1","nope":"x"}]"#)])
            #expect(unknown.status == .badRequest && (unknown.json["error"] as? String)?.contains("nope") == true)
            let badValue = try await Self.post(
                client,
                [("token", token), ("content", "record"), ("format", "json"), ("data", #"[{"record_id":"2","household_size":"many"}]"#)])
            #expect(
                badValue.status == .badRequest
                    && (badValue.json["error"] as? String)?.contains("household_size takes a whole number") == true)
            let notJSON = try await Self.post(client, [("token", token), ("content", "record"), ("format", "json"), ("data", "[{")])
            #expect(notJSON.status == .badRequest)
            let byResearcher = try await Self.post(
                client, [("token", researcher), ("content", "record"), ("format", "json"), ("data", data)])
            #expect(byResearcher.status == .forbidden)
        }
    }

    /// A questionnaire that opens cases has its follow-up as a repeating instrument: each
    /// record's rows are followed by a row per visit of the case it opened, in the order made,
    /// the follow-up's fields named after its instrument. Visits are read here, not imported.
    @Test func followUpVisitsAreARepeatingInstrumentOfTheRecordThatOpenedTheCase() async throws {
        let server = try await TestServer.make()
        let root = TestServer.repositoryRoot.appendingPathComponent("Questionnaires/follow-up")
        _ = try await server.services.questionnaires.publish(directory: root)
        let followUp = try QuestionnaireLoader.load(directory: root)
        let coordinator = try await Self.token(server, "coordinator-a")
        let other = try await Self.token(server, "coordinator-b")
        try await server.application(modules: [REDCapModule()]).test(.router) { client in
            let screening = CaseFixtures.screening(server, flagged: true, from: 700)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: screening).status == .created)
            try await server.services.cases.catchUpAll()
            let opened = try #require(
                (try await client.send(.get, "/v1/cases", as: "fieldworker-a", in: server).json["cases"] as? [[String: Any]])?.first)
            var visits: [PatientResponse] = []
            for (seed, phq) in [(UInt64(31), ("1", "1")), (32, ("2", "0"))] {
                let visit = try CaseFixtures.followUp(
                    followUp, of: opened, collector: "fieldworker-a", seed: seed, outcome: "continue", phq: phq)
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: visit).status == .created)
                visits.append(visit)
            }
            try await server.services.cases.catchUpAll()
            let made = visits.sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }

            let repeating = Self.rows(
                try await Self.post(client, [("token", coordinator), ("content", "repeatingFormsEvents"), ("format", "json")]))
            #expect(repeating.map { $0["form_name"] } == ["household_members", "follow_up"])
            let metadata = Self.rows(
                try await Self.post(
                    client, [("token", coordinator), ("content", "metadata"), ("format", "json"), ("forms[0]", "follow_up")]))
            #expect(metadata.first?["field_name"] == "follow_up_record_id" && metadata.allSatisfy { $0["form_name"] == "follow_up" })
            #expect(
                metadata.contains {
                    $0["field_name"] == "follow_up_outcome" && $0["field_annotation"] == "@INTAKE-QUESTION=follow-up:outcome"
                })
            #expect(!metadata.contains { $0["field_name"] == "follow_up_notes" }, "identifying questions are left out")

            let rows = Self.rows(
                try await Self.post(client, [("token", coordinator), ("content", "record"), ("format", "json"), ("type", "flat")]))
            let id = screening.id.uuidString.lowercased()
            let mine = rows.filter { $0["record_id"] == id }
            #expect(mine.first?["redcap_repeat_instrument"] == "" && mine.first?["follow_up_outcome"] == "")
            let visitRows = mine.filter { $0["redcap_repeat_instrument"] == "follow_up" }
            #expect(visitRows.map { $0["redcap_repeat_instance"] } == ["1", "2"])
            #expect(visitRows.map { $0["follow_up_record_id"] } == made.map { $0.id.uuidString.lowercased() })
            #expect(visitRows.allSatisfy { $0["follow_up_outcome"] == "continue" && $0["follow_up_complete"] == "2" }, "\(visitRows)")
            #expect(visitRows.allSatisfy { $0["phq2_score"] == "" }, "a visit's row holds none of the record's own fields")
            // Asked for the instrument alone: the record id and the visits.
            let only = Self.rows(
                try await Self.post(
                    client,
                    [("token", coordinator), ("content", "record"), ("format", "json"), ("type", "flat"), ("forms[0]", "follow_up")]))
            #expect(only.filter { $0["redcap_repeat_instrument"] == "follow_up" && $0["record_id"] == id }.count == 2)
            // Another team reads none of it; a filter on a visit's field is refused.
            let theirs = Self.rows(
                try await Self.post(client, [("token", other), ("content", "record"), ("format", "json"), ("type", "flat")]))
            #expect(!theirs.contains { $0["record_id"] == id || $0["redcap_repeat_instrument"] == "follow_up" })
            let filtered = try await Self.post(
                client,
                [
                    ("token", coordinator), ("content", "record"), ("format", "json"), ("type", "flat"),
                    ("filterLogic", "[follow_up_outcome] = 'continue'"),
                ])
            #expect(filtered.status == .badRequest)

            // A visit's row is refused on import, naming where visits go; the record's own row goes in.
            func send(_ rows: [[String: String]]) async throws -> TestResponse {
                let data = String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
                return try await Self.post(
                    client, [("token", coordinator), ("content", "record"), ("format", "json"), ("type", "flat"), ("data", data)])
            }
            let refused = try await send([visitRows[0]])
            #expect(refused.status == .badRequest && refused.text.contains("/redcap/follow-up/api/"), "\(refused.text)")
            var base = try #require(mine.first)
            base["follow_up_outcome"] = "resolved"
            #expect(try await send([base]).status == .badRequest, "a visit's cell in the record's row is refused")
            let stored = try #require(try await server.services.store.record(id: screening.id))
            base["follow_up_outcome"] = ""
            let accepted = try await send([base])
            #expect(accepted.status == .ok, "\(accepted.text)")
            #expect(try await server.services.store.record(id: screening.id)?.revision == stored.revision, "nothing changed")
        }
    }
}
