import Foundation

/// The server and token to use, from flags, `INTAKE_SERVER` / `INTAKE_TOKEN`, or the
/// `client.json` that `intake login` writes in the data directory (readable by its owner only).
public struct ClientSettings: Codable, Sendable, Equatable {
    public var server: String
    public var token: String?
    /// For https: certificate authorities to trust instead of the system's (a PEM file).
    public var caFile: String?
    /// For https: the server's public key pins (`sha256/…`).
    public var pins: [String]?
    /// The account the saved token belongs to: the collector of the records filled here.
    public var username: String?

    public static let fileName = "client.json"

    public init(server: String, token: String?, caFile: String? = nil, pins: [String]? = nil, username: String? = nil) {
        self.server = server
        self.token = token
        self.caFile = caFile
        self.pins = pins
        self.username = username
    }

    /// How the server is trusted over https.
    public var tls: ClientTLS { ClientTLS(caFile: caFile, pins: pins ?? []) }

    /// Flags first, then the environment, then the saved file; nil when no server is configured.
    /// The CA file and pins saved with a server apply to that server only.
    public static func resolve(
        server: String?, token: String?, caFile: String? = nil, pins: [String] = [], environment: [String: String], directory: URL
    ) -> ClientSettings? {
        let saved = load(from: directory)
        guard let url = server ?? environment["INTAKE_SERVER"] ?? saved?.server, !url.isEmpty else { return nil }
        let same = saved?.server == url ? saved : nil
        let envPins = environment["INTAKE_PIN"].map { $0.split(separator: ",").map(String.init) }
        let given = token ?? environment["INTAKE_TOKEN"]
        return ClientSettings(
            server: url, token: given ?? saved?.token, caFile: caFile ?? environment["INTAKE_CA_FILE"] ?? same?.caFile,
            pins: pins.isEmpty ? envPins ?? same?.pins : pins,
            // The saved name goes with the saved token only.
            username: given == nil || given == same?.token ? same?.username : nil)
    }

    public static func load(from directory: URL) -> ClientSettings? {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(fileName).path) else { return nil }
        return try? JSONDecoder().decode(ClientSettings.self, from: data)
    }

    public func save(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory.appendingPathComponent(Self.fileName).path
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard FileManager.default.createFile(atPath: path, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteNoPermission)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// The server's URL, or nil when it is not an http(s) URL.
    public var url: URL? {
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else { return nil }
        return url
    }
}
