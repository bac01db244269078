import ArgumentParser
import Foundation
import IntakeClient
import IntakeStore

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

    /// Opens the store. A passphrase-protected store takes INTAKE_PASSPHRASE or asks on the
    /// terminal; a new store is passphrase-protected when INTAKE_PASSPHRASE is set.
    func open() throws -> LocalStore {
        try LocalStore(directory: directory, configuration: PassphraseSource.configuration())
    }
}

/// The passphrase from `INTAKE_PASSPHRASE`, or asked once on the terminal.
enum PassphraseSource {
    static func configuration() -> LocalStore.Configuration {
        let environment = ProcessInfo.processInfo.environment["INTAKE_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
        let asked = Asked()
        var configuration = LocalStore.Configuration(
            passphrase: {
                if let environment { return environment }
                return try asked.value {
                    guard isatty(STDIN_FILENO) == 1, let typed = getpass("Passphrase of the local store: ") else {
                        throw LocalStoreError(
                            "this store is protected by a passphrase", fix: "set INTAKE_PASSPHRASE, or run intake in a terminal to be asked for it")
                    }
                    return String(cString: typed)
                }
            }, newStorePassphrase: environment)
        if let rounds = ProcessInfo.processInfo.environment["INTAKE_SCRYPT_ROUNDS"].flatMap(Int.init), rounds >= 1024, rounds & (rounds - 1) == 0 {
            configuration.scryptRounds = rounds
        }
        return configuration
    }

    /// Asks at most once per run.
    final class Asked: @unchecked Sendable {
        private let lock = NSLock()
        private var answer: String?

        func value(_ ask: () throws -> String) throws -> String {
            try lock.withLock {
                if let answer { return answer }
                let typed = try ask()
                answer = typed
                return typed
            }
        }
    }
}

/// `--server`, `--token`: the server to send records to.
struct ClientOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server's URL (default: INTAKE_SERVER, else the one saved by 'intake login').", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("An API token (default: INTAKE_TOKEN, else the one saved by 'intake login').", valueName: "token"))
    var token: String?

    @Option(help: "Seconds to wait for the server before keeping records offline.")
    var timeout: Double = 15

    /// The client, or nil when no server is configured.
    func client(dataDirectory: URL) throws -> IntakeClient? {
        guard let settings = ClientSettings.resolve(server: server, token: token, environment: ProcessInfo.processInfo.environment, directory: dataDirectory)
        else { return nil }
        guard let url = settings.url else {
            throw ValidationError("'\(settings.server)' is not a server URL; give one like http://127.0.0.1:8080 with --server or INTAKE_SERVER.")
        }
        return IntakeClient(baseURL: url, token: settings.token, timeout: timeout)
    }
}
