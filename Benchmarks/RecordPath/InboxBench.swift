import ArgumentParser
import Foundation
import GRDB
import IntakeDeployment
import IntakeSQLite
import IntakeServer
import IntakeService
import NIOCore
import NIOPosix
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The notification inbox under load: an announcement to 10,000 users (the time to store it and
/// its 10,000 notifications, beside sqlite3 inserting 10,000 rows of the same shape in one
/// transaction), and delivery to 500 connected event-stream listeners (median and p99 from the
/// announcement's request to each listener's event, beside the round trip of `GET /health` on
/// the same server).
struct InboxBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox", abstract: "Announcement to 10,000 users; stream delivery latency with 500 listeners.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Users an announcement reaches.") var users = 10_000
    @Option(help: "Connected event-stream listeners.") var listeners = 500

    func run() async throws {
        BenchRow.printTable(try await Self.measure(tools, users: users, listeners: listeners))
    }

    static func measure(_ tools: BenchTools, users: Int, listeners: Int) async throws -> [BenchRow] {
        let scratch = try scratchFolder("inbox")
        defer { try? FileManager.default.removeItem(at: scratch) }
        return [try await announcement(tools, users: users, in: scratch), try await stream(tools, listeners: listeners, in: scratch)]
    }

    // MARK: An announcement to many

    static func announcement(_ tools: BenchTools, users: Int, in scratch: URL) async throws -> BenchRow {
        log("inbox: \(users) users …")
        let path = scratch.appendingPathComponent("announce.sqlite").path
        let store = try SQLiteRecordStore(path: path)
        let team = try await store.createTeam(name: "everyone", at: Date())
        // The users straight into the table: only the announcement is measured.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            for index in 0..<users {
                try db.execute(
                    sql: "INSERT INTO user (username, passwordHash, role, teamId, createdAt, teamSince) VALUES (?, 'x', 'fieldworker', ?, 0, 0)",
                    arguments: ["user-\(index)", team.id])
            }
        }
        try queue.close()
        var times: [Double] = []
        for round in 0..<3 {
            let start = ContinuousClock.now
            let sent = try await store.announce(teamId: nil, author: "admin", text: "Announcement \(round): clinic closed on Friday", at: Date())
            times.append(seconds(ContinuousClock.now - start))
            guard sent.recipients == users else { throw BenchError("the announcement reached \(sent.recipients) of \(users) users") }
        }
        let intake = times.sorted()[1]

        log("inbox: sqlite3 inserting \(users) rows …")
        let reference = scratch.appendingPathComponent("reference.sqlite").path
        let subject = NotificationSubject.encode(["announcement": "1", "by": "admin", "text": "Announcement 0: clinic closed on Friday"])
        let setup = """
            PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
            CREATE TABLE notification (id INTEGER PRIMARY KEY AUTOINCREMENT, userId INTEGER NOT NULL, type TEXT NOT NULL,
                eventKey TEXT NOT NULL, subject TEXT NOT NULL, createdAt REAL NOT NULL, readAt REAL, UNIQUE (userId, eventKey));
            CREATE INDEX notification_user ON notification (userId, id);
            """
        try runSQLite(tools.sqlite3, reference, setup)
        var referenceTimes: [Double] = []
        for round in 0..<3 {
            let insert = """
                BEGIN;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(users))
                INSERT INTO notification (userId, type, eventKey, subject, createdAt) SELECT i, 'announcement', 'announcement:\(round)', '\(subject)', 0 FROM n;
                COMMIT;
                """
            let start = ContinuousClock.now
            try runSQLite(tools.sqlite3, reference, insert)
            referenceTimes.append(seconds(ContinuousClock.now - start))
        }
        let sqlite = referenceTimes.sorted()[1]
        return BenchRow(
            what: "announcement to \(users) users on SQLite: time to store it and its notifications (median of 3)",
            intake: String(format: "%.0f ms", intake * 1000), reference: String(format: "sqlite3, same rows in one transaction: %.0f ms", sqlite * 1000),
            ratio: sqlite / intake, target: "≥ 0.5")
    }

    static func runSQLite(_ sqlite3: String, _ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sqlite3.hasPrefix("/") ? sqlite3 : "/usr/bin/\(sqlite3)")
        process.arguments = [path]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("sqlite3 failed") }
    }

    // MARK: Delivery to many listeners

    static func stream(_ tools: BenchTools, listeners: Int, in scratch: URL) async throws -> BenchRow {
        log("inbox: \(listeners) listeners …")
        let database = scratch.appendingPathComponent("stream.sqlite").path
        var configuration = ServerConfiguration(database: database)
        configuration.bcryptCost = 4
        let services = try await IntakeServices.open(configuration)
        _ = try await services.accounts.createTeam(name: "bench")
        let lead = try await services.accounts.createUser(username: "lead", password: "bench-password", role: .coordinator, team: "bench")
        let leadToken = try await services.accounts.issueToken(for: lead, name: "bench", expiresAt: nil)
        var tokens: [String] = []
        for index in 0..<listeners {
            let user = try await services.accounts.createUser(username: "listener-\(index)", password: "bench-password", role: .fieldworker, team: "bench")
            tokens.append(try await services.accounts.issueToken(for: user, name: "bench", expiresAt: nil))
        }
        let port = 18_000 + Int.random(in: 0..<2000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tools.intake)
        process.arguments = ["serve", "--database", database, "--port", String(port), "--log-level", "error"]
        process.environment = benchServerEnvironment()
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        try await waitUntilUp("http://127.0.0.1:\(port)/health", process: process)

        let arrivals = Arrivals()
        var channels: [any Channel] = []
        for token in tokens {
            channels.append(try await Listener.connect(port: port, token: token, arrivals: arrivals))
        }
        defer { for channel in channels { channel.close(promise: nil) } }
        try await arrivals.waitForConnected(listeners, seconds: 60)

        var latencies: [Double] = []
        for round in 0..<5 {
            let start = ContinuousClock.now
            arrivals.expect(round: round, since: start)
            let (status, _) = try await request(port: port, "POST", "/v1/announcements", token: leadToken, body: #"{"text":"Round \#(round)"}"#)
            guard status == 201 else { throw BenchError("the announcement answered \(status)") }
            latencies += try await arrivals.waitForRound(listeners, seconds: 60)
        }
        var health: [Double] = []
        for _ in 0..<50 {
            let start = ContinuousClock.now
            _ = try await request(port: port, "GET", "/health", token: nil, body: nil)
            health.append(seconds(ContinuousClock.now - start) * 1000)
        }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
        let (p50, p99) = (percentile(latencies, 0.5), percentile(latencies, 0.99))
        let healthP50 = percentile(health, 0.5)
        return BenchRow(
            what: "event-stream delivery to \(listeners) connected listeners, SQLite (5 announcements, from the request to each event)",
            intake: String(format: "median %.0f ms, p99 %.0f ms", p50, p99),
            reference: String(format: "GET /health round trip: median %.1f ms", healthP50), ratio: p50 / healthP50, target: "p99 ≤ 1 s")
    }

    /// One HTTP/1.1 request over URLSession; status and body.
    static func request(port: Int, _ method: String, _ path: String, token: String?, body: String?) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

/// When each listener connected, and when each got the event of the current round.
final class Arrivals: Sendable {
    private struct State {
        var connected = 0
        var round = -1
        var since = ContinuousClock.now
        var latencies: [Double] = []
    }

    private let state = Mutex(State())

    func connected() { state.withLock { $0.connected += 1 } }

    func expect(round: Int, since: ContinuousClock.Instant) {
        state.withLock {
            $0.round = round
            $0.since = since
            $0.latencies = []
        }
    }

    /// A listener saw `text` arrive; counted when it holds this round's announcement.
    func received(_ text: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.round >= 0, text.contains("Round \(state.round)") else { return }
            state.latencies.append(seconds(now - state.since) * 1000)
        }
    }

    func waitForConnected(_ count: Int, seconds limit: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(limit)
        while state.withLock({ $0.connected }) < count {
            guard ContinuousClock.now < deadline else { throw BenchError("only \(state.withLock { $0.connected }) of \(count) listeners connected") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// This round's latencies in milliseconds, once every listener got it.
    func waitForRound(_ count: Int, seconds limit: Int) async throws -> [Double] {
        let deadline = ContinuousClock.now + .seconds(limit)
        while true {
            let latencies = state.withLock { $0.latencies }
            if latencies.count >= count { return latencies }
            guard ContinuousClock.now < deadline else { throw BenchError("only \(latencies.count) of \(count) listeners got the event") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// A raw event-stream connection: sends the request, then reports what arrives.
final class Listener: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let arrivals: Arrivals
    let request: String
    private let greeted = Atomic(false)

    init(arrivals: Arrivals, request: String) {
        self.arrivals = arrivals
        self.request = request
    }

    static func connect(port: Int, token: String, arrivals: Arrivals) async throws -> any Channel {
        let request = "GET /v1/notifications/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n"
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Listener(arrivals: arrivals, request: request)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        return channel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let text = String(buffer: unwrapInboundIn(data))
        if !greeted.load(ordering: .relaxed), text.contains("retry: 2000") {
            greeted.store(true, ordering: .relaxed)
            arrivals.connected()
        }
        arrivals.received(text)
    }
}
