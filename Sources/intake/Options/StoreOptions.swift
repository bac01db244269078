import ArgumentParser
import Foundation
import IntakeClient
import IntakeStore
import IntakeTerminal

/// `--data-dir`: where the local store lives, and how its passphrase is obtained.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Folder for local drafts and the queue (default: INTAKE_DATA_DIR, else ~/.local/share/intake).",
            valueName: "path"))
    var dataDirectory: String?

    var directory: URL {
        dataDirectory.map { URL(fileURLWithPath: $0) } ?? LocalStore.defaultDirectory()
    }

    /// Opens the store (``LocalStore/Configuration/standard(environment:ask:wording:)``), asking for a
    /// passphrase on the terminal when it needs one and none is set.
    func open() throws -> LocalStore {
        let ask: (@Sendable (String) -> String?)? = isatty(STDIN_FILENO) == 1 ? Self.askOnTerminal : nil
        let configuration = LocalStore.Configuration.standard(
            environment: ProcessInfo.processInfo.environment, ask: ask, wording: Language.passphraseWording)
        return try LocalStore(directory: directory, configuration: configuration)
    }

    /// Opens the store and unlocks it at once: the passphrase (if one is needed and not kept
    /// unlocked from earlier in this session) is asked before the work starts, never in its middle.
    func openUnlocked() throws -> LocalStore {
        let store = try open()
        try store.unlock()
        return store
    }

    /// Shows `prompt` and reads a line without echo (Ctrl-C ends the command with 130, changing
    /// nothing; Ctrl-D answers nil).
    @Sendable static func askOnTerminal(_ prompt: String) -> String? {
        SecretPrompt.read(prompt)
    }
}

/// `--server`, `--token`: the server to send records to.
struct ClientOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server's URL (default: INTAKE_SERVER, else the one saved by 'intake login').", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("An API token (default: INTAKE_TOKEN, else the one saved by 'intake login').", valueName: "token"))
    var token: String?

    @Flag(help: "Allow plain http to a server that is not this machine (tokens and records then cross the network unencrypted).")
    var insecure = false

    @Option(help: "Seconds to wait for the server before keeping records offline.")
    var timeout: Double = 15

    @Option(
        help: ArgumentHelp(
            "For https: trust the certificate authorities in this PEM file instead of the system's (INTAKE_CA_FILE).", valueName: "file"))
    var caFile: String?

    @Option(
        help: ArgumentHelp(
            "For https: accept only a server whose public key has this hash (repeatable; INTAKE_PIN).", valueName: "sha256/base64"))
    var pin: [String] = []

    /// How the server is reached (timeout, authorities, pins, plain http), as flags for another
    /// `intake` command started on the person's behalf; the server and token are not among them.
    var transportArguments: [String] {
        var arguments = ["--timeout", String(timeout)]
        if let caFile { arguments += ["--ca-file", caFile] }
        for pin in pin { arguments += ["--pin", pin] }
        if insecure { arguments.append("--insecure") }
        return arguments
    }

    /// The client, or nil when no server is configured.
    func client(dataDirectory: URL) throws -> IntakeClient? {
        guard
            let settings = ClientSettings.resolve(
                server: server, token: token, caFile: caFile, pins: pin, environment: ProcessInfo.processInfo.environment,
                directory: dataDirectory)
        else { return nil }
        let url = try settings.checkedURL(insecure: insecure, example: "http://127.0.0.1:8080 with --server or INTAKE_SERVER")
        return IntakeClient(
            baseURL: url, token: settings.token, timeout: timeout, deviceId: DeviceId.load(in: dataDirectory), tls: settings.tls,
            intakeVersion: IntakeCommand.configuration.version)
    }

    /// The account the token belongs to: the name `intake login` saved with it, else the
    /// server's answer (asked within 3 seconds in all, so an offline machine or a stalled server
    /// delays the form by no more;
    /// the saved token's name is kept for next time); nil when neither is known.
    func signedInUsername(dataDirectory: URL) async -> String? {
        let environment = ProcessInfo.processInfo.environment
        guard
            let settings = ClientSettings.resolve(
                server: server, token: token, caFile: caFile, pins: pin, environment: environment, directory: dataDirectory),
            settings.token != nil
        else { return nil }
        if let username = settings.username { return username }
        guard var quick = try? self.client(dataDirectory: dataDirectory) else { return nil }
        quick = IntakeClient(
            baseURL: quick.baseURL, token: settings.token, timeout: min(timeout, 3), deviceId: DeviceId.load(in: dataDirectory),
            tls: settings.tls)
        guard let username = try? await quick.me() else { return nil }
        if var saved = ClientSettings.load(from: dataDirectory), saved.server == settings.server, saved.token == settings.token {
            saved.username = username
            try? saved.save(in: dataDirectory)
        }
        return username
    }

    /// The client, for commands that only make sense with a server.
    func requireClient(dataDirectory: URL) throws -> IntakeClient {
        guard let client = try client(dataDirectory: dataDirectory) else {
            throw ValidationError(
                "No server is set up; sign in with 'intake login --server URL --username NAME', or give --server and --token.")
        }
        return client
    }
}

extension ClientSettings {
    /// The server's URL, checked as every command that talks to a server checks it: a URL, plain
    /// http only to this machine unless `insecure`, and a CA file and pins that can be used.
    /// `example`: the hint the refusal of a text that is no URL gives.
    func checkedURL(insecure: Bool, example: String) throws -> URL {
        guard let url else { throw ValidationError("'\(server)' is not a server URL; give one like \(example).") }
        do {
            try TransportPolicy.check(url, insecure: insecure)
            try tls.validate()
        } catch {
            throw ValidationError(error.description + ".")
        }
        return url
    }
}
