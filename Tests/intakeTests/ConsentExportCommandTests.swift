import Foundation
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 15's must-hold, with real processes: a roster of 1,000 patients imported (and imported
/// again without change), records linked to them, scopes given, changed and withdrawn; each
/// researcher level's export holds exactly the records a list computed here says, no_sharing
/// reaches nobody, withdrawals are in the next incremental export's removed.csv, and every
/// export passes the validators (fhir.resources, frictionless, strict CSV, PSPP, R).
@Suite(.serialized)
struct ConsentExportCommandTests {
    let intake = IntakeProcess()
    static let patients = 1_000
    static let scopes = [nil, "no_sharing", "sponsors_and_partners", "all_qualified_researchers"]
    static let reaches = ["study": ["sponsors_and_partners", "all_qualified_researchers"], "external": ["all_qualified_researchers"]]

    struct Server {
        let base: URL
        let token: String

        func send(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, text: String) {
            var request = URLRequest(url: URL(string: base.absoluteString + path)!)
            request.httpMethod = method
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.httpBody = body.map { Data($0.utf8) }
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
    }

    @Test func eachResearcherReceivesExactlyWhatConsentSharesAndWithdrawalsAreRemoved() async throws {
        let cora = try intake.prepareServerWithCoordinator()
        for (name, access) in [("stella", "study"), ("rex", "external")] {
            #expect(
                try intake.run(["admin", "user", "create", name, "--role", "researcher", "--password-stdin"], input: ["researcher-1"])
                    .status == 0)
            let set = try intake.run(["admin", "user", "update", name, "--research-access", access])
            #expect(set.status == 0, "\(set.stderr)")
        }
        let tokens = [
            "study": try intake.run(["admin", "token", "create", "stella"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            "external": try intake.run(["admin", "token", "create", "rex"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
        ]
        let (process, port) = try intake.startServer()
        defer { process.terminate() }
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let server = Server(base: base, token: cora)
        func run(_ arguments: [String], as token: String = cora) throws -> IntakeProcess.Result {
            try intake.run(arguments + ["--server", base.absoluteString, "--token", token])
        }

        // The roster: 1,000 patients, imported once; again, it changes nothing.
        try FileManager.default.createDirectory(at: intake.dataDirectory, withIntermediateDirectories: true)
        let roster = intake.dataDirectory.appendingPathComponent("roster.csv")
        var text = "given_name,family_name,date_of_birth,sex,external_id\n"
        for index in 0..<Self.patients {
            text +=
                "Given\(index),Family\(index),19\(50 + index % 50)-0\(1 + index % 9)-1\(index % 10),\(index.isMultiple(of: 2) ? "female" : "male"),STUDY-\(index)\n"
        }
        try text.write(to: roster, atomically: true, encoding: .utf8)
        let imported = try run(["patient", "import", roster.path])
        #expect(imported.status == 0 && imported.stdout.contains("Registered 1000, already registered 0, refused 0."), "\(imported.stderr)")
        let again = try run(["patient", "import", roster.path])
        #expect(again.status == 0 && again.stdout.contains("Registered 0, already registered 1000, refused 0."), "\(again.stdout)")

        // A roster with bad rows: refused whole, naming each row and column, unless asked.
        let bad = intake.dataDirectory.appendingPathComponent("bad.csv")
        try """
        given_name,family_name,date_of_birth,sex,external_id
        Ana,Ok,1990-01-01,female,EXTRA-1
        Ben,Ok,1990-02-30,male,EXTRA-2
        Cai,Ok,1990-01-03,robot,EXTRA-3
        Dee,Ok,1990-01-04,female,EXTRA-4
        """.write(to: bad, atomically: true, encoding: .utf8)
        let refused = try run(["patient", "import", bad.path])
        #expect(
            refused.status != 0 && refused.stderr.contains("row 3, column date_of_birth") && refused.stderr.contains("row 4, column sex"),
            "\(refused.stderr)")
        #expect(
            refused.stderr.contains("nothing was imported") && !refused.stderr.contains("robot") && !refused.stderr.contains("1990-02-30"))
        #expect(try await server.send("GET", "/v1/patients?externalId=EXTRA-1").text.contains("\"patients\":[]"), "nothing was imported")
        let skipped = try run(["patient", "import", bad.path, "--skip-invalid"])
        #expect(skipped.stdout.contains("Registered 2, already registered 0, refused 0."), "\(skipped.stdout)")

        // Each patient's id from the registry, a record linked to each, and a scope by index.
        var ids: [UUID] = []
        for index in 0..<Self.patients {
            let found = try await server.send("GET", "/v1/patients?externalId=STUDY-\(index)")
            let object = try JSONSerialization.jsonObject(with: Data(found.text.utf8)) as? [String: Any]
            let patients = object?["patients"] as? [[String: Any]] ?? []
            #expect(patients.count == 1, "STUDY-\(index): \(found.text)")
            let id = (patients.first?["id"] as? String).flatMap { UUID(uuidString: $0) }
            ids.append(try #require(id))
        }
        #expect(Set(ids).count == Self.patients)
        let questionnaire = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 15, collector: "cora")
        var recordOf: [UUID] = []
        for start in stride(from: 0, to: Self.patients, by: 250) {
            var batch: [PatientResponse] = []
            for index in start..<min(start + 250, Self.patients) {
                var record = generator.next()
                record.patientId = ids[index]
                batch.append(record)
                recordOf.append(record.id)
            }
            let body = "{\"records\":[" + batch.map { String(decoding: $0.jsonData(), as: UTF8.self) }.joined(separator: ",") + "]}"
            let posted = try await server.send("POST", "/v1/records/batch", body: body)
            let created = posted.text.components(separatedBy: "\"outcome\":\"created\"").count - 1
            #expect(posted.status == 200 && created == batch.count, "\(posted.status): \(created) created; \(posted.text.suffix(400))")
        }
        var scope: [String?] = (0..<Self.patients).map { Self.scopes[$0 % 4] }
        func consent(_ index: Int, _ value: String) async throws {
            let put = try await server.send(
                "PUT", "/v1/patients/\(ids[index])/consent", body: #"{"scope": "\#(value)", "method": "written"}"#)
            #expect(put.status == 200, "\(put.text)")
            scope[index] = value
        }
        for index in 0..<Self.patients { if let value = scope[index] { try await consent(index, value) } }
        // Follow-up reports for the first eight patients, two dates each.
        for index in 0..<8 {
            for date in ["2026-10-01", "2026-11-01"] {
                let put = try await server.send(
                    "PUT", "/v1/patients/\(ids[index])/reports/vitals/\(date)", body: #"{"weight": \#(60 + index), "note": "=1+1"}"#)
                #expect(put.status == 201, "\(put.text)")
            }
        }
        func reportCount(_ folder: URL) throws -> Int {
            try String(contentsOf: folder.appendingPathComponent("reports.jsonl"), encoding: .utf8).split(separator: "\n").count
        }
        func expectedReports(_ level: String) -> Int { 2 * (0..<8).filter { scope[$0].map(Self.reaches[level]!.contains) ?? false }.count }

        // What each level must receive, computed from the scopes alone.
        func expected(_ level: String) -> Set<UUID> {
            Set((0..<Self.patients).filter { scope[$0].map(Self.reaches[level]!.contains) ?? false }.map { recordOf[$0] })
        }
        func exported(_ folder: URL) throws -> (records: Set<UUID>, removed: [String: String]) {
            let csv = try String(contentsOf: folder.appendingPathComponent("records.csv"), encoding: .utf8)
            let records = Set(csv.components(separatedBy: "\r\n").dropFirst().compactMap { UUID(uuidString: String($0.prefix(36))) })
            var removed: [String: String] = [:]
            if let text = try? String(contentsOf: folder.appendingPathComponent("removed.csv"), encoding: .utf8) {
                for line in text.components(separatedBy: "\r\n").dropFirst() where !line.isEmpty {
                    let fields = line.split(separator: ",").map(String.init)
                    removed[fields[0]] = fields[1]
                }
            }
            return (records, removed)
        }
        let noSharing = Set((0..<Self.patients).filter { scope[$0] == "no_sharing" }.map { recordOf[$0] })
        var cursors: [String: String] = [:]
        for level in ["study", "external"] {
            let folder = intake.dataDirectory.appendingPathComponent("export-\(level)-1")
            let export = try run(["export", "--out", folder.path], as: tokens[level]!)
            #expect(export.status == 0, "\(export.stderr)")
            let got = try exported(folder)
            #expect(got.records == expected(level), "\(level): \(got.records.count) records, expected \(expected(level).count)")
            #expect(got.records.isDisjoint(with: noSharing))
            #expect(try reportCount(folder) == expectedReports(level), "\(level): reports follow consent as records do")
            try validate(folder)
            cursors[level] = folder.path
        }
        #expect(expected("external").count == 250 && expected("study").count == 500)

        // Withdraw 25, narrow 25 to the study, widen 25 to everyone; the next exports follow.
        var changed: [Int] = []
        for index in stride(from: 3, to: 100, by: 4) { try await consent(index, "no_sharing"); changed.append(index) }
        for index in stride(from: 103, to: 200, by: 4) { try await consent(index, "sponsors_and_partners"); changed.append(index) }
        for index in stride(from: 2, to: 100, by: 4) { try await consent(index, "all_qualified_researchers"); changed.append(index) }
        let withdrawn = Set(stride(from: 3, to: 100, by: 4).map { recordOf[$0].uuidString.lowercased() })
        let narrowed = Set(stride(from: 103, to: 200, by: 4).map { recordOf[$0].uuidString.lowercased() })
        for level in ["study", "external"] {
            let folder = intake.dataDirectory.appendingPathComponent("export-\(level)-2")
            let export = try run(["export", "--out", folder.path, "--since", cursors[level]!], as: tokens[level]!)
            #expect(export.status == 0, "\(export.stderr)")
            let got = try exported(folder)
            // A consent change counts as a change of the patient's records: those it now reaches come again.
            let reachedNow = Set(changed.map { recordOf[$0] }).intersection(expected(level))
            #expect(got.records == reachedNow, "\(level)")
            let mustRemove = level == "study" ? withdrawn : withdrawn.union(narrowed)
            #expect(Set(got.removed.keys) == mustRemove, "\(level): removed.csv lists \(got.removed.count), expected \(mustRemove.count)")
            #expect(Set(got.removed.values) == ["consent_withdrawn"])
            #expect(export.stdout.contains("\(mustRemove.count) record(s) of earlier exports must be deleted"), "\(export.stdout)")
            #expect(got.records.isDisjoint(with: Set((0..<Self.patients).filter { scope[$0] == "no_sharing" }.map { recordOf[$0] })))
            #expect(try reportCount(folder) == expectedReports(level), "\(level): every report of the patients it reaches now")
            try validate(folder)
        }
        // Nothing reaches a researcher whose patients all withdrew: a full export agrees with the list.
        let full = intake.dataDirectory.appendingPathComponent("export-external-3")
        #expect(try run(["export", "--out", full.path], as: tokens["external"]!).status == 0)
        #expect(try exported(full).records == expected("external"))
    }

    private func validate(_ folder: URL) throws { try ExportValidator.check(folder) }
}
