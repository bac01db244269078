import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL database named by URL, as `intake serve --database` and `INTAKE_SERVER_DATABASE`
/// take it: `postgres://user:password@host:5432/database?sslmode=disable&schema=intake`.
///
/// `sslmode` is `disable`, `prefer` (the default: TLS when the server offers it, unverified, as
/// libpq does), `require` (TLS, unverified) or `verify-full` (TLS with the certificate checked).
/// `schema` keeps Intake's tables in a schema of its own; `host=/path` connects through the
/// Unix socket in that folder.
public struct PostgresDatabaseURL: Sendable, CustomStringConvertible {
    public var username: String
    var password: String?
    public var host: String
    public var port: Int
    public var socketFolder: String?
    public var database: String
    public var schema: String?
    public var sslMode: SSLMode

    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    /// Whether `text` names a PostgreSQL database rather than a SQLite file.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(_ text: String) throws(PostgresStoreError) {
        let example = "postgres://user:password@127.0.0.1:5432/intake"
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw PostgresStoreError("'\(Self.redacted(text))' is not a PostgreSQL URL; write it like \(example)")
        }
        guard let user = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw PostgresStoreError("the database URL names no user; write it like \(example)")
        }
        let database = String(components.percentEncodedPath.drop { $0 == "/" }).removingPercentEncoding ?? ""
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresStoreError("the database URL names no database after the host; write it like \(example)")
        }
        username = user
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        self.database = database
        sslMode = .prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(SSLMode.init(rawValue:)) else {
                    throw PostgresStoreError(
                        "sslmode '\(item.value ?? "")' is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "schema":
                guard let name = item.value, Self.isPlainName(name) else {
                    throw PostgresStoreError("schema is a plain name: lower-case letters, digits and _, starting with a letter")
                }
                schema = name
            case "host":
                guard let folder = item.value, folder.hasPrefix("/") else {
                    throw PostgresStoreError("host= in the query names the folder of a Unix socket, such as /var/run/postgresql")
                }
                socketFolder = folder
            default:
                throw PostgresStoreError(
                    "the database URL has '\(item.name)', which Intake does not know; it knows sslmode, schema and host")
            }
        }
    }

    /// The URL without its password, for messages and logs.
    public var description: String {
        var text = "postgres://\(username)\(password == nil ? "" : ":***")@"
        text += socketFolder == nil ? "\(host):\(port)" : ""
        text += "/\(database)"
        var query: [String] = []
        if let socketFolder { query.append("host=\(socketFolder)") }
        if let schema { query.append("schema=\(schema)") }
        if sslMode != .prefer { query.append("sslmode=\(sslMode.rawValue)") }
        return query.isEmpty ? text : text + "?" + query.joined(separator: "&")
    }

    /// A URL's text with any password hidden.
    package static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(a database URL)"
    }

    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), name.utf8.count <= 63 else {
            return false
        }
        return name.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "_")
        }
    }

    /// The TLS the mode asks for, and whether a server without it is refused; nil for none.
    private var tlsChoice: (configuration: TLSConfiguration, required: Bool)? {
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        switch sslMode {
        case .disable: return nil
        case .prefer: return (unverified, false)
        case .require: return (unverified, true)
        case .verifyFull: return (.makeClientConfiguration(), true)
        }
    }

    /// One direct connection's configuration: what opening the store tries first, since a
    /// pool retries quietly where a single connection says at once what went wrong.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketFolder {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: socketFolder + "/.s.PGSQL.\(port)", username: username, password: password, database: database)
        } else {
            let tls: PostgresConnection.Configuration.TLS =
                switch tlsChoice {
                case nil: .disable
                case (let tls, required: false)?: .prefer(try NIOSSLContext(configuration: tls))
                case (let tls, required: true)?: .require(try NIOSSLContext(configuration: tls))
                }
            configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// The client configuration: pooled, with a short connect timeout so that a wrong address
    /// fails in seconds rather than hanging.
    package func clientConfiguration() throws(PostgresStoreError) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            configuration = PostgresClient.Configuration(
                unixSocketPath: socketFolder + "/.s.PGSQL.\(port)", username: username, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch tlsChoice {
                case nil: .disable
                case (let tls, required: false)?: .prefer(tls)
                case (let tls, required: true)?: .require(tls)
                }
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 10
        if let schema { configuration.options.additionalStartupParameters = [("search_path", schema)] }
        return configuration
    }
}

/// Why the PostgreSQL store cannot do what was asked, with what to do about it.
public struct PostgresStoreError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
