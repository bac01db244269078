import ArgumentParser
import Foundation
import IntakeCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `POST /v1/records`, one record per request, 10 connections (wrk), against PocketBase
/// storing the same JSON in a collection.
struct PostBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post", abstract: "POST one record per request: intake serve vs PocketBase.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Seconds of load for each server.") var seconds = 10

    func run() async throws {
        BenchRow.printTable(try await Self.measure(tools, seconds: seconds))
    }

    static func measure(_ tools: BenchTools, seconds: Int) async throws -> [BenchRow] {
        let scratch = try scratchFolder("post")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let record = try BenchRecords.make(1, seed: 3)[0]
        let body = String(decoding: RecordCodec.encode(record), as: UTF8.self)
        let id = record.id.uuidString.lowercased()

        log("post: intake serve under wrk for \(seconds) s …")
        let server = try await BenchServer.start(intake: tools.intake, in: scratch, port: 18_181)
        let intakeRate: Double
        do {
            defer { server.stop() }
            intakeRate = try wrk(
                tools, url: "http://127.0.0.1:\(server.port)/v1/records", body: body, id: id, token: server.token, seconds: seconds,
                scratch: scratch, expect: 201)
            log("post: SQLite: " + (await server.groupCommits()))
        }
        log("post: PocketBase under wrk for \(seconds) s …")
        let pocketbase = try await PocketBase.start(tools.pocketbase, in: scratch.appendingPathComponent("pb"), port: 18_182)
        let referenceRate: Double
        do {
            defer { pocketbase.stop() }
            referenceRate = try wrk(
                tools, url: "http://127.0.0.1:18182/api/collections/records/records", body: "{\"body\":" + body + "}", id: id, token: nil,
                seconds: seconds, scratch: scratch, expect: 200)
        }
        var rows = [
            BenchRow(
                what: "POST /v1/records, 1 record (\(body.utf8.count) B) per request, 10 connections",
                intake: format(intakeRate, "req/s"), reference: "PocketBase: " + format(referenceRate, "req/s"),
                ratio: intakeRate / referenceRate, target: "≥ 5")
        ]
        if let postgres = tools.postgres(schema: "bench_post") {
            log("post: intake serve on PostgreSQL under wrk for \(seconds) s …")
            let server = try await BenchServer.start(intake: tools.intake, in: scratch, port: 18_183, database: postgres)
            let postgresRate: Double
            do {
                defer { server.stop() }
                postgresRate = try wrk(
                    tools, url: "http://127.0.0.1:\(server.port)/v1/records", body: body, id: id, token: server.token, seconds: seconds,
                    scratch: scratch, expect: 201)
                log("post: PostgreSQL: " + (await server.groupCommits()))
            }
            rows.append(
                BenchRow(
                    what: "POST /v1/records on PostgreSQL, same load", intake: format(postgresRate, "req/s"),
                    reference: "PocketBase: " + format(referenceRate, "req/s"), ratio: postgresRate / referenceRate, target: "≥ 2"))

            log("post: two intake serve on one PostgreSQL database, 5 connections each, for \(seconds) s …")
            let both = try await twoServers(
                tools, database: tools.postgres(schema: "bench_post2"), ports: (18_186, 18_187), seconds: seconds, scratch: scratch,
                body: body, id: id, label: "two servers")
            rows.append(
                BenchRow(
                    what: "POST /v1/records, two servers on one PostgreSQL database, 5 connections each", intake: format(both, "req/s"),
                    reference: "one server: " + format(postgresRate, "req/s"), ratio: both / postgresRate, target: "≥ 1.6"))
            do {
                rows += try await throughOneMillisecond(tools, seconds: seconds, scratch: scratch, body: body, id: id)
            } catch {
                // The rows measured so far are kept.
                log("post: the runs through a 1 ms round trip could not be made: \(error)")
            }
        }
        return rows
    }

    /// One server, then two on one database, each reaching PostgreSQL through a 1 ms round trip
    /// (``DelayingProxy``): where a deployment's servers and database are on different machines,
    /// a writer that holds a lock across its round trips makes the others wait for them. Two
    /// rows: the one server's load split over two (5 connections each: what splitting costs),
    /// and each of two servers under the one's load (10 connections each: what a second server
    /// adds, the scale-out an operator adds a server for).
    static func throughOneMillisecond(_ tools: BenchTools, seconds: Int, scratch: URL, body: String, id: String) async throws -> [BenchRow] {
        func proxied(_ schema: String) throws -> (DelayingProxy, String) {
            guard let direct = tools.postgres(schema: schema) else { throw BenchError("no PostgreSQL to measure") }
            let proxy = try DelayingProxy(to: direct, delay: .microseconds(500))
            return (proxy, proxy.url(for: direct))
        }
        log("post: one intake serve, PostgreSQL 1 ms away (a delaying proxy), 10 connections, for \(seconds) s …")
        let (oneProxy, oneURL) = try proxied("bench_post_far")
        let one: Double
        do {
            defer { oneProxy.stop() }
            let server = try await BenchServer.start(intake: tools.intake, in: scratch, port: 18_188, database: oneURL)
            defer { server.stop() }
            one = try wrk(
                tools, url: "http://127.0.0.1:\(server.port)/v1/records", body: body, id: id, token: server.token, seconds: seconds,
                scratch: scratch, expect: 201)
            log("post: one server, 1 ms away: " + (await server.groupCommits()))
        }
        log("post: " + oneProxy.summary)
        /// Two servers on a new schema through a proxy of their own, `connections` each.
        func twoFar(_ schema: String, ports: (Int, Int), connections: Int) async throws -> Double {
            log("post: two intake serve on one PostgreSQL database 1 ms away, \(connections) connections each, for \(seconds) s …")
            let (proxy, url) = try proxied(schema)
            defer { log("post: " + proxy.summary) }
            defer { proxy.stop() }
            return try await twoServers(
                tools, database: url, ports: ports, seconds: seconds, scratch: scratch, body: body, id: id,
                label: "two servers, 1 ms away, \(connections) connections each", connections: connections)
        }
        let both = try await twoFar("bench_post_far2", ports: (18_189, 18_190), connections: 5)
        let loaded = try await twoFar("bench_post_far3", ports: (18_191, 18_192), connections: 10)
        return [
            BenchRow(
                what: "POST /v1/records, two servers on one PostgreSQL database 1 ms away (round trip), 5 connections each",
                intake: format(both, "req/s"), reference: "one server 1 ms away, 10 connections: " + format(one, "req/s"), ratio: both / one,
                target: "≈ 1"),
            BenchRow(
                what: "POST /v1/records, two servers on one PostgreSQL database 1 ms away (round trip), 10 connections each",
                intake: format(loaded, "req/s"), reference: "one server 1 ms away, 10 connections: " + format(one, "req/s"),
                ratio: loaded / one, target: "≥ 1.6"),
        ]
    }

    /// Two `intake serve` on one PostgreSQL database (`database`), each under wrk with
    /// `connections` at once; their request rates added. Logs both servers' group commits.
    static func twoServers(
        _ tools: BenchTools, database: String?, ports: (Int, Int), seconds: Int, scratch: URL, body: String, id: String, label: String,
        connections: Int = 5
    ) async throws -> Double {
        let first = try await BenchServer.start(intake: tools.intake, in: scratch, port: ports.0, database: database)
        defer { first.stop() }
        let second = try await BenchServer.start(intake: tools.intake, in: scratch, port: ports.1, sharing: first)
        defer { second.stop() }
        let both = try await withThrowingTaskGroup(of: Double.self) { group in
            for (offset, (port, token)) in [(first.port, first.token), (second.port, second.token)].enumerated() {
                group.addTask {
                    try wrk(
                        tools, url: "http://127.0.0.1:\(port)/v1/records", body: body, id: id, token: token, seconds: seconds,
                        scratch: scratch, expect: 201, connections: connections, idOffset: 16 * (offset + 1))
                }
            }
            return try await group.reduce(0, +)
        }
        log("post: \(label): " + (await first.groupCommits()) + "; " + (await second.groupCommits()))
        // The audit trail is still one sound chain after two servers wrote to it at once (one of
        // the issue's must-holds): a run whose trail does not verify gives no figure.
        let audit = try runProgram(tools.intake, ["admin", "audit", "verify", "--database", first.database])
        guard audit.contains("The audit trail is sound") else { throw BenchError("after \(label): \(audit.suffix(300))") }
        log("post: \(label): " + (audit.split(separator: "\n").first.map(String.init) ?? audit))
        return both
    }

    /// Runs wrk with a script that gives every request a fresh record id; the request rate.
    /// Fails if any answer was not a success: a fast error is no figure.
    static func wrk(
        _ tools: BenchTools, url: String, body: String, id: String, token: String?, seconds: Int, scratch: URL, expect: Int,
        connections: Int = 10, idOffset: Int = 0
    ) throws -> Double {
        let parts = body.components(separatedBy: id)
        guard parts.count == 2 else { throw BenchError("the record's id must appear once in its body") }
        func lua(_ text: String) -> String {
            "\""
                + text.utf8.map { $0 >= 32 && $0 < 127 && $0 != 34 && $0 != 92 ? String(UnicodeScalar($0)) : String(format: "\\%03d", $0) }
                .joined() + "\""
        }
        let script = """
            local counter = 0
            local prefix = \(lua(parts[0]))
            local suffix = \(lua(parts[1]))
            local thread_number = 0
            local threads = {}
            function setup(thread)
              thread_number = thread_number + 1
              thread:set("tid", thread_number + \(idOffset))
            end
            function init(args)
              wrk.method = "POST"
              wrk.headers["Content-Type"] = "application/json"
              \(token.map { "wrk.headers[\"Authorization\"] = \"Bearer \($0)\"" } ?? "")
            end
            function request()
              counter = counter + 1
              local fresh = string.format("%08x-0000-4000-8000-%012x", tid, counter)
              return wrk.format(nil, nil, nil, prefix .. fresh .. suffix)
            end
            """
        let path = scratch.appendingPathComponent("post-\(idOffset).lua")
        try script.write(to: path, atomically: true, encoding: .utf8)
        let output = try runProgram(tools.wrk, ["-t2", "-c\(connections)", "-d\(seconds)s", "-s", path.path, url])
        if let line = output.split(separator: "\n").first(where: { $0.contains("Non-2xx") }) {
            throw BenchError("wrk saw failed requests against \(url): \(line.trimmingCharacters(in: .whitespaces))")
        }
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let rate = Double(line.split(separator: " ").last ?? "")
        else { throw BenchError("cannot read wrk's output: \(output)") }
        return rate
    }
}

/// A PocketBase server with a `records` collection holding a JSON field anyone may create.
struct PocketBase {
    let process: Process

    static func start(_ binary: String, in folder: URL, port: Int) async throws -> PocketBase {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try runProgram(binary, ["superuser", "upsert", "bench@example.org", "bench-password-1", "--dir", folder.path])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary.hasPrefix("/") ? binary : "/usr/bin/env")
        process.arguments = (binary.hasPrefix("/") ? [] : [binary]) + ["serve", "--http", "127.0.0.1:\(port)", "--dir", folder.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let base = "http://127.0.0.1:\(port)"
        try await waitUntilUp(base + "/api/health", process: process)
        let auth = try await post(
            base + "/api/collections/_superusers/auth-with-password", ["identity": "bench@example.org", "password": "bench-password-1"],
            token: nil)
        guard let token = auth["token"] as? String else { throw BenchError("PocketBase sign-in failed: \(auth)") }
        let collection: [String: Any] = [
            "name": "records", "type": "base", "createRule": "",
            "fields": [["name": "body", "type": "json", "maxSize": 2_000_000]],
        ]
        _ = try await post(base + "/api/collections", collection, token: token)
        return PocketBase(process: process)
    }

    private static func post(_ url: String, _ body: [String: Any], token: String?) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue(token, forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw BenchError("PocketBase refused \(url): \(String(decoding: data, as: UTF8.self))")
        }
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
