import Foundation
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 5's "done": a researcher runs one command and gets a folder that tools we did not write
/// accept, for records spanning two questionnaire versions. `scripts/test` sets
/// INTAKE_EXPORT_VALIDATOR to scripts/validate_export.py (fhir.resources, Python's csv in strict
/// mode, frictionless), which then checks every folder these tests make.
@Suite(.serialized)
struct ExportCommandTests {
    /// The exported records point to no registry patient: this server lets researchers have them.
    let intake = {
        var intake = IntakeProcess()
        intake.environment["INTAKE_SERVER_UNLINKED_RECORDS"] = "include"
        return intake
    }()

    @Test func aResearcherExportsRecordsOfTwoVersionsFromTheServerInOneCommand() async throws {
        let v1Folder = IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")
        let v2Folder = try SecondVersion.make(in: intake.dataDirectory)
        let v1 = try QuestionnaireLoader.load(directory: v1Folder), v2 = try QuestionnaireLoader.load(directory: v2Folder)
        #expect(v1.version != v2.version)

        _ = try intake.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        _ = try intake.run(["admin", "team", "create", "clinic"])
        _ = try intake.run(
            ["admin", "user", "create", "field", "--role", "fieldworker", "--team", "clinic", "--password-stdin"], input: ["fieldworker-1"])
        _ = try intake.run(["admin", "user", "create", "rita", "--role", "researcher", "--password-stdin"], input: ["researcher-1"])
        let token = try intake.run(["admin", "token", "create", "field"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, port) = try intake.startServer(arguments: ["--publish", v1Folder.path, "--publish", v2Folder.path])
        defer { server.terminate() }
        let base = URL(string: "http://127.0.0.1:\(port)")!

        var records = Self.samples(v1, count: 40, seed: 1) + Self.samples(v2, count: 40, seed: 2)
        try await Self.upload(records, to: base, token: token)
        _ = try intake.run(["login", "--server", base.absoluteString, "--username", "rita", "--password-stdin"], input: ["researcher-1"])

        let folder = intake.dataDirectory.appendingPathComponent("export-1")
        let export = try intake.run(["export", "--out", folder.path])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("Exported 80 record(s) of refugee-health (versions \(v1.version), \(v2.version))"))
        #expect(export.stdout.contains("De-identified"))
        try checkFolder(folder, records: records, versions: [v1.version, v2.version])

        // Incremental: nothing new, then only what was added since.
        let cursor = try #require(export.stdout.components(separatedBy: "--since ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let none = try intake.run(["export", "--out", intake.dataDirectory.appendingPathComponent("export-2").path, "--since", cursor])
        #expect(none.status == 0 && none.stdout.contains("Exported 0 record(s)"), "\(none.stderr)")
        #expect(none.stdout.contains("No record was exported.") && none.stdout.contains("consent"), "the reason is said: \(none.stdout)")
        let added = Self.samples(v2, count: 5, seed: 3)
        try await Self.upload(added, to: base, token: token)
        records += added
        let later = intake.dataDirectory.appendingPathComponent("export-3")
        let incremental = try intake.run(["export", "--out", later.path, "--since", folder.path])  // the previous export's folder
        #expect(incremental.stdout.contains("Exported 5 record(s)"), "\(incremental.stderr)")

        // Refusals are clear and change nothing.
        let identified = try intake.run([
            "export", "--out", intake.dataDirectory.appendingPathComponent("export-4").path, "--include-identifiers",
        ])
        #expect(identified.status == 1 && identified.stderr.contains("only coordinators may export identifiers"))
        #expect(!FileManager.default.fileExists(atPath: intake.dataDirectory.appendingPathComponent("export-4").path))
        let again = try intake.run(["export", "--out", folder.path])
        #expect(again.status == 1 && again.stderr.contains("already exists and is not empty"))
    }

    /// The statistics files are written through a spool on disk: a disk that fills as the spool,
    /// a file or the workbook's parts are written ends the export with one clear message and
    /// exit 1, and leaves nothing behind (no folder, no staging folder holding the answers).
    @Test func aStatisticsExportOnAFullDiskSaysSoAndLeavesNothing() throws {
        try FileManager.default.createDirectory(at: intake.dataDirectory, withIntermediateDirectories: true)
        let input = intake.dataDirectory.appendingPathComponent("many.jsonl")
        let sample = try intake.run(["sample", "--count", "300", "--output", input.path])
        #expect(sample.status == 0, "\(sample.stderr)")
        for format in ["sav", "dta", "xlsx"] {
            let out = intake.dataDirectory.appendingPathComponent("full-\(format)")
            // A (soft) file size limit of 256 KiB: the spool, and each file, outgrow it.
            let process = intake.process([])
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", "ulimit -S -f 512; exec \"$0\" export --input \"$1\" --format \"$2\" --out \"$3\"", IntakeProcess.binary.path,
                input.path, format, out.path,
            ]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            #expect(IntakeProcess.waitForExit(process, seconds: 60))
            let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 1 && complaint.contains("check the disk has room"), "\(format): \(complaint)")
            #expect(!complaint.contains("Fatal") && complaint.split(separator: "\n").count <= 2, "one clear line: \(complaint)")
            let left = try FileManager.default.contentsOfDirectory(atPath: intake.dataDirectory.path)
            #expect(!left.contains { $0.hasPrefix("full-\(format)") || $0.hasPrefix(".full-\(format)") }, "\(format): \(left)")
        }
        // With room, the same export is whole.
        let out = intake.dataDirectory.appendingPathComponent("roomy")
        let roomy = try intake.run([
            "export", "--input", input.path, "--format", "sav", "--format", "dta", "--format", "xlsx", "--out", out.path,
        ])
        #expect(roomy.status == 0, "\(roomy.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func jsonLinesFilesExportWithoutAServer() throws {
        let v2Folder = try SecondVersion.make(in: intake.dataDirectory)
        let a = intake.dataDirectory.appendingPathComponent("a.jsonl"), b = intake.dataDirectory.appendingPathComponent("b.jsonl")
        #expect(try intake.run(["sample", "--count", "30", "--output", a.path]).status == 0)
        #expect(
            try intake.run(["sample", "--questionnaire", v2Folder.path, "--count", "30", "--seed", "9", "--output", b.path]).status == 0)
        let folder = intake.dataDirectory.appendingPathComponent("local-export")
        let export = try intake.run(
            [
                "export", "--input", a.path, "--input", b.path, "-q", "refugee-health", "-q", v2Folder.path, "--out", folder.path,
                "--drop-free-text", "--shift-dates",
            ])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("Dates are shifted back"))
        #expect(export.stdout.contains("Exported 60 record(s)"))
        var records: [PatientResponse] = []
        for file in [a, b] {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                records.append(try PatientResponse(jsonData: Data(line.utf8)))
            }
        }
        try checkFolder(folder, records: records, versions: nil, fromServer: false)
        let key = intake.dataDirectory.appendingPathComponent("export-patient-key")
        #expect((try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int) == 0o600)

        let future = try intake.run(
            ["export", "--input", a.path, "--out", intake.dataDirectory.appendingPathComponent("future").path, "--since", "2999-01-01"])
        #expect(future.status == 0 && future.stdout.contains("Exported 0 record(s)"), "\(future.stderr)")
        let cursor = try intake.run([
            "export", "--input", a.path, "--out", intake.dataDirectory.appendingPathComponent("c").path, "--since", "42",
        ])
        #expect(cursor.status != 0 && cursor.stderr.contains("cursors come from server exports"))

        let missing = try intake.run(["export", "--input", b.path, "--out", intake.dataDirectory.appendingPathComponent("x").path])
        #expect(missing.status == 1 && missing.stderr.contains("pass the folder of each version with --questionnaire"))
        let broken = intake.dataDirectory.appendingPathComponent("broken.jsonl")
        try Data("{\"not\": \"a record\"}\n".utf8).write(to: broken)
        let bad = try intake.run(["export", "--input", broken.path, "--out", intake.dataDirectory.appendingPathComponent("y").path])
        #expect(bad.status == 1 && bad.stderr.contains("broken.jsonl:1:"))
    }

    /// Files, row counts, no identities, and the outside validators when scripts/test provides them.
    /// A server's export also holds its patients' reports.
    private func checkFolder(_ folder: URL, records: [PatientResponse], versions: [String]?, fromServer: Bool = true) throws {
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(
            files
                == Set(
                    [
                        "records.csv", "records_long.csv", "records.jsonl", "fhir-bundle.json", "codebook.csv", "codebook.md",
                        "datapackage.json",
                        "records.sps", "records_escaped.csv", "records.R", "export.json", "places.geojson", "repeat_household_members.csv",
                        "attachments.csv",
                        "records.sav", "records.dta", "records.xlsx", "repeat_household_members.sav", "repeat_household_members.dta",
                    ]
                        + (fromServer
                            ? [
                                "reports.jsonl", "reports_long.csv", "cases.csv", "case_history.csv", "cases.sav", "cases.dta",
                                "case_history.sav", "case_history.dta",
                            ] : [])))
        // Every place answered is a GeoJSON point, longitude first, of a record exported.
        let places = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("places.geojson"))) as? [String: Any])
        let features = places["features"] as? [[String: Any]] ?? []
        let located = records.filter { record in record.allAnswers.contains { if case .geopoint = $0.answer { true } else { false } } }
        #expect(places["type"] as? String == "FeatureCollection" && features.count >= located.count && !located.isEmpty)
        let byId = Dictionary(records.map { ($0.id.uuidString.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        for feature in features {
            let properties = feature["properties"] as? [String: Any]
            let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
            guard let id = properties?["record_id"] as? String, let record = byId[id] else { continue }
            let point = record.allAnswers.compactMap { if case .geopoint(let p) = $0.answer { p } else { nil } }.first
            #expect(coordinates.count >= 2 && coordinates[0] == point?.longitude && coordinates[1] == point?.latitude, "\(feature)")
        }
        let csv = try String(contentsOf: folder.appendingPathComponent("records.csv"), encoding: .utf8)
        #expect(csv.components(separatedBy: "\r\n").count - 2 >= records.count)
        if let versions { for version in versions { #expect(csv.contains(version)) } }
        for name in files {
            // The binary files' text is read as bytes (names would be in them as UTF-8); the
            // workbook's cells are compressed, so its sheets are checked by the stats-file tests.
            if name == "records.xlsx" { continue }
            let text = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            for record in records.prefix(20) {
                let fullName = "\(record.patient.givenName) \(record.patient.familyName)"
                #expect(!text.contains(fullName) && !text.contains("\"\(record.patient.familyName)\""), "\(name) names a patient")
            }
        }
        try ExportValidator.check(folder, versions: versions?.count)
    }

    static func samples(_ questionnaire: Questionnaire, count: Int, seed: UInt64) -> [PatientResponse] {
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed, collector: "field")
        return (0..<count).map { _ in generator.next() }
    }

    static func upload(_ records: [PatientResponse], to base: URL, token: String) async throws {
        var request = URLRequest(url: base.appendingPathComponent("v1/records/batch"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(
            ("{\"records\":[" + records.map { String(decoding: $0.jsonData(), as: UTF8.self) }.joined(separator: ",") + "]}").utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(!String(decoding: data, as: UTF8.self).contains("\"outcome\":\"invalid\""), "every sample record is valid")
    }
}

/// A second version of the bundled questionnaire: a choice added, a question removed and one
/// added in section 3, in English and Arabic.
enum SecondVersion {
    static func make(in directory: URL) throws -> URL {
        let manager = FileManager.default
        let source = IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")
        let folder = directory.appendingPathComponent("refugee-health-v2")
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        if manager.fileExists(atPath: folder.path) { try manager.removeItem(at: folder) }
        try manager.copyItem(at: source, to: folder)
        for list in [
            "countries.txt", "countries.ar.txt", "languages.txt", "languages.ar.txt", "regions.txt", "regions.ar.txt", "districts.txt",
            "districts.ar.txt",
        ] {
            try manager.copyItem(
                at: IntakeProcess.repositoryRoot.appendingPathComponent("Data/\(list)"), to: folder.appendingPathComponent(list))
        }
        try edit(
            folder.appendingPathComponent("3-symptoms.txt"),
            [
                ("none=None of these", "vomiting=Vomiting, none=None of these"),
                ("Height in cm | id: height | decimal 30..250\n", ""),
                // Without the height there is no BMI: a calculated question of v1 only.
                ("Body mass index in kg/m² | id: bmi | decimal | calculate: round(weight / ((height / 100) * (height / 100)), 1)\n", ""),
                (
                    "Pulse in beats per minute | id: pulse | integer 20..250\n",
                    "Pulse in beats per minute | id: pulse | integer 20..250\nDo you smoke tobacco? | id: smoker | yesno\n"
                ),
            ])
        try edit(
            folder.appendingPathComponent("3-symptoms.ar.txt"),
            [
                ("none=لا شيء مما سبق", "vomiting=تقيؤ, none=لا شيء مما سبق"),
                ("الطول بالسنتيمتر | id: height\n", ""),
                ("مؤشر كتلة الجسم (كغ/م²) | id: bmi\n", ""),
                ("النبض (نبضة في الدقيقة) | id: pulse\n", "النبض (نبضة في الدقيقة) | id: pulse\nهل تدخن التبغ؟ | id: smoker\n"),
            ])
        return folder
    }

    private static func edit(_ file: URL, _ replacements: [(String, String)]) throws {
        var text = try String(contentsOf: file, encoding: .utf8)
        for (old, new) in replacements {
            guard text.contains(old) else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(file.lastPathComponent) lacks '\(old)'"])
            }
            text = text.replacingOccurrences(of: old, with: new)
        }
        try text.write(to: file, atomically: true, encoding: .utf8)
    }
}
