import ArgumentParser
import Foundation
import IntakeCore
import IntakeServer
import IntakeService

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 49's pulls: a team of 100,000 open cases, 200 of them assigned to one field worker,
/// whose machine's `intake cases pull` must bring only those 200; and a field worker assigned all
/// 100,000, whose first pull must end within 10 s. Each beside sqlite3 reading the same cases'
/// rows from the server's database, in the same run.
struct CasesBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cases", abstract: "intake cases pull: 200 of 100,000 cases, then 100,000 of 100,000 (SQLite server).")
    @OptionGroup var tools: BenchTools
    @Option(help: "Cases in the team.") var count = 100_000
    @Option(help: "Of them, assigned to the first field worker.") var assigned = 200

    func validate() throws {
        guard count >= 1, (1...count).contains(assigned) else { throw ValidationError("--assigned is 1 to --count.") }
    }

    func run() async throws {
        BenchRow.printTable(try await Self.measure(tools, count: count, assigned: assigned))
    }

    static func measure(_ tools: BenchTools, count: Int, assigned: Int) async throws -> [BenchRow] {
        let scratch = try scratchFolder("cases")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let database = scratch.appendingPathComponent("server.sqlite").path
        let (coordinator, admin) = try await BenchServer.prepare(database)
        var configuration = ServerConfiguration(database: database)
        configuration.bcryptCost = 4
        let services = try await IntakeServices.open(configuration)
        var tokens: [String: String] = [:]
        for name in ["fw-few", "fw-all"] {
            let user = try await services.accounts.createUser(username: name, password: "bench-password", role: .fieldworker, team: "bench")
            tokens[name] = try await services.accounts.issueToken(for: user, name: "bench", expiresAt: nil)
        }
        guard let team = try await services.store.team(named: "bench") else { throw BenchError("no team") }

        // Two lists of `count` cases: the first with `assigned` for fw-few among others', the
        // second all fw-all's. Written straight through the store: only the pulls are measured.
        log("cases: writing \(count * 2) cases …")
        // Exactly `assigned` of the first list's cases are fw-few's: the first multiples of the stride.
        let stride = max(1, count / assigned)
        var cursor: Int64 = 0
        for (list, assignee) in [("follow-up", nil), ("pregnancy", "fw-all")] as [(String, String?)] {
            var written = 0
            while written < count {
                let batch = (written..<min(count, written + 2000)).map { n in
                    sample(n, list: list, teamId: team.id, assignee: assignee ?? (n % stride == 0 && n / stride < assigned ? "fw-few" : "fw-other-\(n % 97)"))
                }
                let from = cursor
                cursor += 1
                guard try await services.store.advanceCases(teamId: team.id, from: from, to: cursor, reading: [], at: Date(), { _ in batch })
                else { throw BenchError("the case cursor moved") }
                written += batch.count
            }
        }

        let port = Int.random(in: 20_000...29_000)
        let server = try await BenchServer.start(intake: tools.intake, in: scratch, port: port, tokens: (coordinator, admin))
        defer { server.stop() }
        func pull(_ user: String) throws -> (seconds: Double, output: String) {
            let folder = scratch.appendingPathComponent("machine-\(user)-\(UUID().uuidString.prefix(6))")
            let start = ContinuousClock.now
            let output = try runProgram(
                tools.intake, ["cases", "pull", "--server", "http://127.0.0.1:\(port)", "--token", tokens[user]!, "--timeout", "120"],
                environment: ["INTAKE_DATA_DIR": folder.path, "INTAKE_KIOSK": "1", "INTAKE_LANGUAGE": "en"])
            return (seconds(ContinuousClock.now - start), output)
        }
        func sqlite(_ condition: String) throws -> Double {
            let start = ContinuousClock.now
            _ = try runProgram(tools.sqlite3, [database, "SELECT id, body FROM intakeCase WHERE \(condition) ORDER BY changeSeq"])
            return seconds(ContinuousClock.now - start)
        }

        log("cases: pulling \(assigned) of \(count) …")
        var few: [Double] = []
        for _ in 0..<3 {
            let (time, output) = try pull("fw-few")
            guard output.contains("Cases: \(assigned) open") else {
                throw BenchError("fw-few's pull did not bring exactly \(assigned) cases: \(output)")
            }
            few.append(time)
        }
        // What the server sent fw-few, in bytes, against what one case weighs.
        let bytes = try await pulledBytes(port: port, token: tokens["fw-few"]!)
        let fewReference = try (0..<3).map { _ in try sqlite("teamId = \(team.id) AND status = 'open' AND assignee = 'fw-few'") }.sorted()[1]

        log("cases: pulling \(count) of \(count) …")
        var all: [Double] = []
        for _ in 0..<3 {
            let (time, output) = try pull("fw-all")
            guard output.contains("Cases: \(count) open") else { throw BenchError("fw-all's pull did not bring \(count) cases: \(output)") }
            all.append(time)
        }
        let allReference = try (0..<3).map { _ in try sqlite("teamId = \(team.id) AND status = 'open' AND assignee = 'fw-all'") }.sorted()[1]
        let fewTime = few.sorted()[1], allTime = all.sorted()[1]
        return [
            BenchRow(
                what: "intake cases pull, \(assigned) of \(count) open cases assigned (\(bytes / 1024) KiB sent)",
                intake: format(fewTime * 1000, "ms"), reference: "sqlite3 reading their rows: " + format(fewReference * 1000, "ms"),
                ratio: fewReference / fewTime, target: "only those \(assigned)"),
            BenchRow(
                what: "intake cases pull, \(count) open cases assigned, first pull", intake: format(allTime, "s"),
                reference: "sqlite3 reading their rows: " + format(allReference, "s"), ratio: allReference / allTime,
                target: "< 10 s (issue 49)"),
        ]
    }

    /// Bytes of every page of `GET /v1/cases` for the token.
    static func pulledBytes(port: Int, token: String) async throws -> Int {
        var after: Int64 = 0
        var total = 0
        while true {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/cases?after=\(after)&limit=500")!)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.data(for: request)
            total += data.count
            let page = try FollowedCase.page(data)
            guard page.more else { return total }
            after = page.cursor
        }
    }

    static func sample(_ n: Int, list: String, teamId: Int64, assignee: String) -> StoredCase {
        let at = Date(timeIntervalSince1970: 1_790_000_000 + Double(n))
        return CaseFold.folded(
            StoredCase(
                id: UUID.named("bench-case-\(list)-\(n)"), list: list, teamId: teamId, patientId: nil,
                opening: CaseOpeningFacts(
                    recordId: UUID.named("bench-record-\(list)-\(n)"), at: at, collector: assignee,
                    patient: PatientIdentification(
                        givenName: ["Amina", "Omar", "سارة", "Yusuf"][n % 4], familyName: "Family \(n % 5000)",
                        dateOfBirth: LocalDate(year: 1960 + n % 50, month: 1 + n % 12, day: 1 + n % 28), sex: n % 2 == 0 ? .female : .male),
                    properties: [
                        "reason": .text(["low_mood", "long_term_illness", "self_harm"][n % 3]), "phq2": .integer(n % 7),
                        "self_harm": .yesNo(n % 3 == 2), "long_term_illness": .yesNo(n % 3 == 1), "visits": .integer(0),
                    ],
                    due: LocalDate(year: 2027, month: 1 + n % 12, day: 1 + n % 28)),
                assignee: assignee, updatedAt: at))
    }
}
