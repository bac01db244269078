import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeStore

/// `intake flush` of a queue of synthetic records into `intake serve`, against the sqlite3
/// shell inserting the same JSON (one transaction, WAL, synchronous FULL).
struct FlushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flush", abstract: "intake flush vs sqlite3 inserting the same JSON rows.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Records in the queue.") var count = 100_000

    func run() async throws {
        BenchRow.printTable(try await Self.measure(tools, count: count))
    }

    static func measure(_ tools: BenchTools, count: Int) async throws -> [BenchRow] {
        let scratch = try scratchFolder("flush")
        defer { try? FileManager.default.removeItem(at: scratch) }
        log("flush: making and queueing \(count) records …")
        let records = try BenchRecords.make(count, seed: 21)
        let data = scratch.appendingPathComponent("device")
        let queue = try LocalStore(directory: data)
        for record in records { try queue.enqueue(record) }

        let server = try await BenchServer.start(intake: tools.intake, in: scratch, port: 18_183)
        let flushSeconds: Double
        do {
            defer { server.stop() }
            try ClientSettings(server: "http://127.0.0.1:\(server.port)", token: server.token).save(in: data)
            log("flush: intake flush …")
            let start = ContinuousClock.now
            let output = try runProgram(tools.intake, ["flush", "--data-dir", data.path])
            flushSeconds = seconds(ContinuousClock.now - start)
            guard try queue.queueEntries().isEmpty else {
                throw BenchError("intake flush left records in the queue: \(output.suffix(300))")
            }
        }

        log("flush: sqlite3 inserting the same JSON …")
        let referenceRate = try SQLiteReference.insertRate(tools, records, scratch: scratch)
        let flushRate = Double(count) / flushSeconds
        return [
            BenchRow(
                what: "intake flush of \(count) queued records into intake serve", intake: format(flushRate, "records/s"),
                reference: "sqlite3, one transaction: " + format(referenceRate, "rows/s"), ratio: flushRate / referenceRate, target: "≥ 0.5"
            )
        ]
    }
}

/// The sqlite3 shell inserting records' JSON into a table of id and body, one transaction, WAL,
/// synchronous FULL: what a database does with the same rows and nothing else.
enum SQLiteReference {
    /// Rows per second: sqlite3 inserting `records`' JSON in one transaction, the median of three runs.
    static func insertRate(_ tools: BenchTools, _ records: [PatientResponse], scratch: URL) throws -> Double {
        let sql = scratch.appendingPathComponent("insert.sql")
        FileManager.default.createFile(atPath: sql.path, contents: nil)
        let handle = try FileHandle(forWritingTo: sql)
        handle.write(
            Data(
                "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\nCREATE TABLE record (id TEXT PRIMARY KEY, body TEXT NOT NULL);\nBEGIN;\n"
                    .utf8))
        var chunk = ""
        for record in records {
            let body = String(decoding: RecordCodec.encode(record), as: UTF8.self).replacingOccurrences(of: "'", with: "''")
            chunk += "INSERT INTO record VALUES ('\(record.id.uuidString.lowercased())', '\(body)');\n"
            if chunk.utf8.count > 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data((chunk + "COMMIT;\n").utf8))
        try handle.close()
        // The median of three runs: one transaction writes a log of the whole data set, synced
        // once and then copied, and a single run's rate moved by half within an hour with the
        // disk's state (17,600 to 31,600 rows/s for the same 100,000 rows).
        var rates: [Double] = []
        for run in 1...3 {
            let database = scratch.appendingPathComponent("reference-\(UUID().uuidString.prefix(8)).sqlite")
            let start = ContinuousClock.now
            try runProgram(tools.sqlite3, [database.path], input: sql)
            let rate = Double(records.count) / seconds(ContinuousClock.now - start)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
            log("sqlite3, one transaction, run \(run) of 3: \(Int(rate)) rows/s")
            rates.append(rate)
        }
        return rates.sorted()[1]
    }
}
