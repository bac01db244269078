import Foundation

extension LocalStore.Configuration {
    /// How the command line opens the store: a passphrase-protected store takes
    /// `INTAKE_PASSPHRASE`, else `ask` is called (at most once per process: a person at a
    /// terminal; nil when nobody can answer). A new store is passphrase-protected when
    /// `INTAKE_PASSPHRASE` is set. `INTAKE_SCRYPT_ROUNDS` (a power of two, at least 1,024) lowers
    /// scrypt's cost for tests.
    public static func standard(environment: [String: String], ask: (@Sendable () -> String?)?) -> LocalStore.Configuration {
        let given = environment["INTAKE_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
        let asked = AskedOnce()
        var configuration = LocalStore.Configuration(
            passphrase: {
                if let given { return given }
                return try asked.value {
                    guard let typed = ask?() else {
                        throw LocalStoreError(
                            "this store is protected by a passphrase", fix: "set INTAKE_PASSPHRASE, or run intake in a terminal to be asked for it")
                    }
                    return typed
                }
            }, newStorePassphrase: given)
        if let rounds = environment["INTAKE_SCRYPT_ROUNDS"].flatMap(Int.init), rounds >= 1024, rounds & (rounds - 1) == 0 {
            configuration.scryptRounds = rounds
        }
        return configuration
    }
}

/// A passphrase asked at most once per process.
final class AskedOnce: @unchecked Sendable {
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
