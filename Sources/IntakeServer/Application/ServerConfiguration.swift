import Foundation
import IntakeCore
import IntakeService

/// How `intake serve` runs. Every value has a default; `init(environment:)` reads the
/// `INTAKE_SERVER_*` variables, and command-line flags override both.
public struct ServerConfiguration: Sendable {
    /// Address to listen on. The default serves this machine only; use 0.0.0.0 to serve a network.
    public var host = "127.0.0.1"
    public var port = 8080
    /// Where the server keeps its data: a SQLite file (the default), or a PostgreSQL URL such as
    /// `postgres://intake:secret@127.0.0.1:5432/intake` (see `PostgresDatabaseURL`).
    public var database: String
    /// Largest request body accepted, in bytes (413 above it).
    public var maxBodyBytes = 16 * 1024 * 1024
    /// Most records accepted by one `POST /v1/records/batch`.
    public var maxBatchRecords = 500
    /// bcrypt cost for passwords (each step doubles the work; 12 takes about 0.2 s).
    public var bcryptCost: UInt8 = 12
    /// How long a token from `POST /v1/sessions` is valid.
    public var sessionLifetime: TimeInterval = 30 * 24 * 3600
    /// How long a client has to send a whole request body (408 after it).
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a request's headers may take from their first byte (408 after it): a client
    /// trickling headers a byte at a time would otherwise hold the connection for good.
    public var headerTimeout: Duration = .seconds(20)
    /// How long a connection may stay silent (no bytes read) before it is closed: headers
    /// trickled or never finished, an idle keep-alive.
    public var idleTimeout: Duration = .seconds(60)
    /// The longest a long poll (`GET /v1/notifications?wait=`) is held open; longer waits asked for are cut to it.
    public var longPollLimit: Duration = .seconds(60)
    /// How long an event stream (`GET /v1/notifications/stream`) stays open before the server
    /// ends it; the client reconnects with Last-Event-ID and misses nothing.
    public var streamLifetime: Duration = .seconds(300)
    /// How long a read notification is kept (unread ones are kept until read).
    public var notificationRetention: Duration = .seconds(90 * 86_400)
    /// Whether researchers' exports hold records that point to no registry patient (whose consent
    /// is therefore unknown). Off by default: unknown consent shares nothing.
    public var unlinkedRecordsReachResearchers = false
    /// Who may form a team: admins only (the default), or also a field worker or coordinator
    /// without one, who then leads it (as in the clinic app).
    public var teamCreation = TeamCreation.admins
    /// Webhook retries, timeouts and the addresses they may go to.
    public var webhooks = WebhookSettings()
    /// Delays and lock against password guessing.
    public var signIn = SignInPolicy()
    /// The clock sign-in delays and grant expiries are measured by. Only code sets another (tests,
    /// through this property); no variable of the environment moves it.
    public var clock: @Sendable () -> Date = { Date() }
    /// Serve https with this certificate and key; nil for plain http.
    public var tls: ServerTLSFiles?
    /// The pin of the https certificate's key, for machines being enrolled; none over http.
    var tlsPins: [String] { tls?.pin().map { [$0] } ?? [] }
    /// Requests per token (``RateLimit``); nil for none.
    public var rateLimit: RateLimit? = .standard
    /// One of ``logLevels``.
    public var logLevel = "info"
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error"]

    public init(database: String) {
        self.database = database
    }

    /// ``database`` with any password hidden, for messages and logs.
    public var databaseDescription: String {
        guard usesPostgres, var components = URLComponents(string: database), components.password != nil else { return database }
        components.password = "***"
        return components.string ?? "(a PostgreSQL URL)"
    }

    /// Whether ``database`` names a PostgreSQL database rather than a SQLite file.
    public var usesPostgres: Bool { Self.isPostgresURL(database) }

    /// The folder that keeps the files records name (`INTAKE_SERVER_ATTACHMENTS`); by default,
    /// for a SQLite database, `<database>-attachments` beside it. A PostgreSQL deployment names
    /// one (shared by every server of the deployment); without it, files are refused.
    public var attachments: String?

    /// The attachments folder in use, if any.
    public var attachmentsFolder: URL? {
        if let attachments { return URL(fileURLWithPath: attachments) }
        guard !usesPostgres, database != ":memory:", !database.isEmpty else { return nil }
        return URL(fileURLWithPath: database + "-attachments")
    }

    /// Whether `database` names a PostgreSQL database (a `postgres://` or `postgresql://` URL)
    /// rather than a SQLite file.
    public static func isPostgresURL(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// The defaults (the database is `server.sqlite` in the data directory, ``DataDirectory``), overridden by `INTAKE_SERVER_HOST`, `INTAKE_SERVER_PORT`, `INTAKE_SERVER_DATABASE`,
    /// `INTAKE_SERVER_MAX_BODY_BYTES`, `INTAKE_SERVER_MAX_BATCH` and `INTAKE_LOG_LEVEL`.
    public init(environment: [String: String]) throws(ConfigurationError) {
        self.init(
            database: environment["INTAKE_SERVER_DATABASE"]
                ?? DataDirectory.resolve(environment: environment).appendingPathComponent("server.sqlite").path)
        if let host = environment["INTAKE_SERVER_HOST"] { self.host = host }
        if let folder = environment["INTAKE_SERVER_ATTACHMENTS"], !folder.isEmpty { attachments = folder }
        if let port = environment["INTAKE_SERVER_PORT"] { self.port = try Self.number(port, "INTAKE_SERVER_PORT", 0...65535) }
        if let bytes = environment["INTAKE_SERVER_MAX_BODY_BYTES"] {
            maxBodyBytes = try Self.number(bytes, "INTAKE_SERVER_MAX_BODY_BYTES", 1024...(1 << 30))
        }
        if let batch = environment["INTAKE_SERVER_MAX_BATCH"] {
            maxBatchRecords = try Self.number(batch, "INTAKE_SERVER_MAX_BATCH", 1...10_000)
        }
        if let days = environment["INTAKE_SERVER_NOTIFICATION_RETENTION_DAYS"] {
            notificationRetention = .seconds(try Self.number(days, "INTAKE_SERVER_NOTIFICATION_RETENTION_DAYS", 1...3650) * 86_400)
        }
        if let seconds = environment["INTAKE_SERVER_LONG_POLL_SECONDS"] {
            longPollLimit = .seconds(try Self.number(seconds, "INTAKE_SERVER_LONG_POLL_SECONDS", 1...300))
        }
        switch environment["INTAKE_SERVER_UNLINKED_RECORDS"] {
        case nil, "exclude": break
        case "include": unlinkedRecordsReachResearchers = true
        default:
            throw ConfigurationError(
                "INTAKE_SERVER_UNLINKED_RECORDS is exclude (the default: researchers get no record without a registry patient) or include")
        }
        switch environment["INTAKE_SERVER_TEAM_CREATION"] {
        case nil, "admins": teamCreation = .admins
        case "members": teamCreation = .members
        default:
            throw ConfigurationError(
                "INTAKE_SERVER_TEAM_CREATION is admins (the default: only admins create teams) or members (a field worker or coordinator without a team may form one and lead it)"
            )
        }
        switch environment["INTAKE_SERVER_RATE_LIMIT"] {
        case nil: break
        case "off": rateLimit = nil
        case let text?: rateLimit = try RateLimit(setting: text)
        }
        if let seconds = environment["INTAKE_SERVER_STREAM_SECONDS"] {
            streamLifetime = .seconds(try Self.number(seconds, "INTAKE_SERVER_STREAM_SECONDS", 1...3600))
        }
        if let seconds = environment["INTAKE_SERVER_WEBHOOK_RETRY_SECONDS"] {
            webhooks.retryBase = .seconds(try Self.number(seconds, "INTAKE_SERVER_WEBHOOK_RETRY_SECONDS", 1...3600))
        }
        if let failures = environment["INTAKE_SERVER_WEBHOOK_MAX_FAILURES"] {
            webhooks.maxFailures = try Self.number(failures, "INTAKE_SERVER_WEBHOOK_MAX_FAILURES", 1...100)
        }
        switch environment["INTAKE_SERVER_WEBHOOK_PRIVATE"] {
        case nil, "deny": break
        case "allow": webhooks.addresses.allowPrivate = true
        default: throw ConfigurationError("INTAKE_SERVER_WEBHOOK_PRIVATE is allow or deny (the default)")
        }
        if let hosts = environment["INTAKE_SERVER_WEBHOOK_HOSTS"] {
            let list = hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            guard !list.isEmpty else { throw ConfigurationError("INTAKE_SERVER_WEBHOOK_HOSTS is a comma-separated list of host names") }
            webhooks.addresses.hosts = list
        }
        switch (environment["INTAKE_SERVER_TLS_CERT"], environment["INTAKE_SERVER_TLS_KEY"]) {
        case (nil, nil): break
        case (let certificate?, let key?): tls = ServerTLSFiles(certificateFile: certificate, keyFile: key)
        default:
            throw ConfigurationError(
                "INTAKE_SERVER_TLS_CERT and INTAKE_SERVER_TLS_KEY go together: the certificate (PEM, with its chain) and its private key")
        }
        if let level = environment["INTAKE_LOG_LEVEL"] {
            guard Self.logLevels.contains(level) else {
                throw ConfigurationError("INTAKE_LOG_LEVEL is one of \(Self.logLevels.joined(separator: ", "))")
            }
            logLevel = level
        }
    }

    private static func number(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
