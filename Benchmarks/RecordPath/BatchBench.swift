import ArgumentParser
import Foundation
import Synchronization
import IntakeCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `POST /v1/records/batch`, 500 records a request, two requests in flight, into `intake serve`
/// on SQLite (and on PostgreSQL when the bench has one), against the sqlite3 shell inserting the
/// same JSON in one transaction.
struct BatchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "batch", abstract: "Batch POST vs sqlite3 inserting the same JSON rows.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Records in all.") var count = 100_000
    @Option(help: "Records per request.") var size = 500

    func run() async throws {
        BenchRow.printTable(try await Self.measure(tools, count: count, size: size))
    }

    static func measure(_ tools: BenchTools, count: Int, size: Int) async throws -> [BenchRow] {
        let scratch = try scratchFolder("batch")
        defer { try? FileManager.default.removeItem(at: scratch) }
        log("batch: making \(count) records …")
        let records = try BenchRecords.make(count, seed: 41)
        let bodies = stride(from: 0, to: count, by: size).map { start in
            var body = Array("{\"records\":[".utf8)
            for (offset, record) in records[start..<min(start + size, count)].enumerated() {
                if offset > 0 { body.append(UInt8(ascii: ",")) }
                body += RecordCodec.encode(record)
            }
            body += Array("]}".utf8)
            return Data(body)
        }
        log("batch: sqlite3 inserting the same JSON …")
        let reference = try SQLiteReference.insertRate(tools, records, scratch: scratch)
        var rows: [BenchRow] = []
        var stores: [(String, String?)] = [("SQLite", nil)]
        if let postgres = tools.postgres(schema: "bench_batch") { stores.append(("PostgreSQL", postgres)) }
        let expected = bodies.indices.map { min(size, count - $0 * size) }
        for (store, postgres) in stores {
            log("batch: \(bodies.count) requests of \(size) records into intake serve on \(store) …")
            let server = try await BenchServer.start(intake: tools.intake, in: scratch, port: 18_185, database: postgres)
            let rate: Double
            do {
                defer { server.stop() }
                let start = ContinuousClock.now
                try await send(bodies, expected: expected, to: server.port, token: server.token)
                rate = Double(count) / seconds(ContinuousClock.now - start)
                log("batch: \(store): " + (await server.groupCommits()))
            }
            rows.append(
                BenchRow(
                    what: "batch POST, \(size) records per request, \(count) records, \(store)", intake: format(rate, "records/s"),
                    reference: "sqlite3, one transaction: " + format(reference, "rows/s"), ratio: rate / reference, target: "≥ 0.5"))
        }
        return rows
    }

    /// Sends every body, two at a time on two connections (one thread each, ``PlainHTTPConnection``);
    /// each must be answered 200 with all its records created.
    static func send(_ bodies: [Data], expected: [Int], to port: Int, token: String) async throws {
        let next = NextIndex()
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    let connection = try PlainHTTPConnection(port: port)
                    let headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")]
                    while failure.withLock({ $0 == nil }), let index = next.take(below: bodies.count) {
                        let (status, data) = try connection.send("POST", "/v1/records/batch", headers: headers, body: bodies[index])
                        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                        let created = (json?["summary"] as? [String: Any])?["created"] as? Int
                        guard status == 200, created == expected[index]
                        else { throw BenchError("batch \(index) was not stored whole: \(String(decoding: data.prefix(300), as: UTF8.self))") }
                    }
                } catch {
                    failure.withLock { if $0 == nil { $0 = error } }
                }
            }
        }
        await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// Hands out 0, 1, 2, … to concurrent senders.
final class NextIndex: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    func take(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard value < limit else { return nil }
        value += 1
        return value - 1
    }
}
