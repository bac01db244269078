import ArgumentParser
import Foundation
import GRDB
import IntakeCore
import IntakePostgres
import IntakeSQLite
import IntakeServer
import IntakeService
import Logging
import PostgresNIO

/// Lookup at scale: the store's lookup (exact, prefix, substring, given name, no match, name
/// and date of birth) on a database of a million records in one team, p50 and p95, beside the
/// indexed equality query on the same data (a family name through its B-tree, 20 rows).
struct LookupBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup", abstract: "Lookup p50/p95 at 1M records vs the indexed equality query, SQLite and PostgreSQL.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Records in the database.") var count = 1_000_000
    @Option(help: "A SQLite server database to fill once and reuse (it is kept).") var database: String?

    func run() async throws {
        let scratch = try scratchFolder("lookup")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = database ?? scratch.appendingPathComponent("server.sqlite").path
        if !FileManager.default.fileExists(atPath: path) { try await ExportBench.fill(URL(fileURLWithPath: path), count: count) }
        var rows = try await Self.measure(sqlite: path)
        if let postgres = tools.postgres(schema: "bench_lookup") {
            try Self.copy(path, to: postgres, tools: tools)
            rows += try await Self.measure(postgres: postgres)
        }
        BenchRow.printTable(rows)
    }

    /// What a field worker types, against the synthetic names (14 family names, 24 given names).
    static let queries: [(String, LookupQuery)] = [
        ("exact family name", LookupQuery(teamId: 1, familyName: "Osman")),
        ("family-name prefix", LookupQuery(teamId: 1, familyName: "Ibr")),
        ("family-name substring", LookupQuery(teamId: 1, familyName: "ahim")),
        ("given name", LookupQuery(teamId: 1, givenName: "Amina")),
        ("no match", LookupQuery(teamId: 1, familyName: "Zzyzx")),
        ("family name and date of birth", LookupQuery(teamId: 1, familyName: "Haile", dateOfBirth: LocalDate(year: 1990, month: 5, day: 1))),
    ]

    static let rounds = 20

    /// Latencies of the store's lookups (every query, `rounds` times after one warm-up) and of
    /// the reference query, in milliseconds.
    static func latencies(lookup: (LookupQuery) async throws -> Int, reference: () async throws -> Int) async throws -> ([Double], [Double])
    {
        for (_, query) in queries { _ = try await lookup(query) }
        _ = try await reference()
        var lookups: [Double] = []
        var references: [Double] = []
        for _ in 0..<rounds {
            for (_, query) in queries {
                let start = ContinuousClock.now
                _ = try await lookup(query)
                lookups.append(seconds(ContinuousClock.now - start) * 1000)
            }
            let start = ContinuousClock.now
            guard try await reference() == 20 else { throw BenchError("the reference query found fewer than 20 rows") }
            references.append(seconds(ContinuousClock.now - start) * 1000)
        }
        return (lookups, references)
    }

    static func row(_ store: String, count: Int, _ lookups: [Double], _ references: [Double]) -> BenchRow {
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
        let (p50, p95) = (percentile(lookups, 0.5), percentile(lookups, 0.95))
        let (r50, r95) = (percentile(references, 0.5), percentile(references, 0.95))
        return BenchRow(
            what: "lookup on \(store), \(count) records in one team (\(queries.count) kinds of query × \(rounds))",
            intake: String(format: "p50 %.1f ms, p95 %.1f ms", p50, p95),
            reference: String(format: "indexed equality query: p50 %.1f ms, p95 %.1f ms", r50, r95), ratio: p95 / r95,
            target: "p95 ≤ 50 ms")
    }

    static func measure(sqlite path: String) async throws -> [BenchRow] {
        log("lookup: SQLite …")
        let store = try SQLiteRecordStore(path: path)
        let queue = try DatabaseQueue(path: path)
        let count = try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM record") ?? 0 }
        let (lookups, references) = try await latencies(
            lookup: { try await store.lookup($0).count },
            reference: {
                try await queue.read { db in
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT r.body FROM lookupEntry e JOIN record r ON r.id = e.recordId
                            WHERE e.teamId = 1 AND e.familyNameKey = 'osman' LIMIT 20
                            """
                    ).count
                }
            })
        return [row("SQLite", count: count, lookups, references)]
    }

    static func measure(postgres url: String) async throws -> [BenchRow] {
        log("lookup: PostgreSQL …")
        let store = try await PostgresRecordStore(url: try PostgresDatabaseURL(url))
        let client = PostgresClient(configuration: try PostgresDatabaseURL(url).clientConfiguration(), backgroundLogger: Logger(label: "bench"))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let count = try await client.query("SELECT COUNT(*) FROM record").collect().first?.decode(Int.self) ?? 0
            let (lookups, references) = try await latencies(
                lookup: { try await store.lookup($0).count },
                reference: {
                    try await client.query(
                        """
                        SELECT r.body FROM lookupEntry e JOIN record r ON r.id = e.recordId
                        WHERE e.teamId = 1 AND e.familyNameKey = 'osman' LIMIT 20
                        """
                    ).collect().count
                })
            return [row("PostgreSQL", count: count, lookups, references)]
        }
    }

    /// Moves the SQLite database into the (emptied) PostgreSQL one with `intake admin copy-database`.
    static func copy(_ path: String, to url: String, tools: BenchTools) throws {
        log("lookup: intake admin copy-database into PostgreSQL …")
        let start = ContinuousClock.now
        try runProgram(tools.intake, ["admin", "copy-database", "--from", path, "--to", url])
        log(String(format: "lookup: copied in %.0f s", seconds(ContinuousClock.now - start)))
    }
}
