import ArgumentParser
import Foundation
import GRDB
import IntakeCore
import IntakeStore

/// Encrypted enqueue (`LocalStore.enqueue`: canonical bytes, AES-GCM, one transaction) against
/// the same rows inserted unsealed into a table of the same shape, one transaction each.
struct EnqueueBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enqueue", abstract: "Sealed enqueue vs plain inserts.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Records to enqueue.") var count = 3000

    func run() async throws {
        BenchRow.printTable(try Self.measure(count: count))
    }

    static func measure(count: Int) throws -> [BenchRow] {
        let scratch = try scratchFolder("enqueue")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let records = try BenchRecords.make(count, seed: 5)
        log("enqueue: \(count) sealed and \(count) plain …")
        var sealedRate = 0.0, plainRate = 0.0
        for round in 0..<3 {
            let store = try LocalStore(directory: scratch.appendingPathComponent("sealed-\(round)"))
            _ = try store.deviceId()
            var start = ContinuousClock.now
            for record in records { try store.enqueue(record) }
            sealedRate = max(sealedRate, Double(count) / seconds(ContinuousClock.now - start))

            let plain = try plainQueue(scratch.appendingPathComponent("plain-\(round).sqlite"))
            start = ContinuousClock.now
            for record in records {
                let payload = RecordCodec.encode(record)
                try plain.write { db in
                    try db.execute(
                        sql: "INSERT INTO outbox (id, state, attempts, enqueuedAt, size, payload) VALUES (?, 'pending', 0, ?, ?, ?)",
                        arguments: [record.id.uuidString.lowercased(), Date().timeIntervalSince1970, payload.count, Data(payload)])
                    try db.execute(sql: "DELETE FROM record WHERE id = ?", arguments: [record.id.uuidString.lowercased()])
                }
            }
            plainRate = max(plainRate, Double(count) / seconds(ContinuousClock.now - start))
        }
        return [
            BenchRow(
                what: "enqueue \(count) records, one transaction each (best of 3)", intake: "sealed: " + format(sealedRate, "records/s"),
                reference: "plain: " + format(plainRate, "records/s"), ratio: sealedRate / plainRate, target: "≥ 0.8")
        ]
    }

    /// A database like the local store's (WAL, synchronous FULL), with an outbox and drafts table.
    static func plainQueue(_ path: URL) throws -> DatabasePool {
        let pool = try DatabasePool(path: path.path)
        // After the pool opens, as the local store does: GRDB sets NORMAL on its writer as it opens.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox (id TEXT PRIMARY KEY, state TEXT NOT NULL, baseRevision INTEGER, attempts INTEGER NOT NULL,
                        enqueuedAt REAL NOT NULL, lastAttemptAt REAL, reason TEXT, size INTEGER NOT NULL, payload BLOB NOT NULL);
                    CREATE INDEX outbox_order ON outbox (state, enqueuedAt, id);
                    CREATE TABLE record (id TEXT PRIMARY KEY, payload BLOB);
                    """)
        }
        return pool
    }
}
