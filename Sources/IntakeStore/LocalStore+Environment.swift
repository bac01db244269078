import Foundation

extension LocalStore.Configuration {
    /// How the command line opens the store. A passphrase protects it by default, chosen at
    /// first use: `INTAKE_PASSPHRASE` when set, else asked on the terminal through `ask` (twice,
    /// at least 8 characters); with neither, the first key cannot be made and the store says so.
    /// `INTAKE_KIOSK=1` opts out for shared kiosk machines: the key then sits in a device key file
    /// beside the data. A protected store takes `INTAKE_PASSPHRASE`, else asks (at most once per
    /// process). `INTAKE_SCRYPT_ROUNDS` (a power of two, at least 1,024) lowers scrypt's cost for tests.
    ///
    /// `ask` shows its prompt and returns what was typed without echo; nil when nobody can answer.
    public static func standard(environment: [String: String], ask: (@Sendable (String) -> String?)?) -> LocalStore.Configuration {
        let given = environment["INTAKE_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
        let asked = AskedOnce()
        var configuration = LocalStore.Configuration(
            passphrase: {
                if let given { return given }
                return try asked.value {
                    guard let typed = ask?("Passphrase of the local store: ") else {
                        throw LocalStoreError(
                            "this store is protected by a passphrase", fix: "set INTAKE_PASSPHRASE, or run intake in a terminal to be asked for it")
                    }
                    return typed
                }
            }, newStorePassphrase: given, allowsDeviceKey: environment["INTAKE_KIOSK"] == "1")
        if let ask, given == nil {
            configuration.chooseNewPassphrase = {
                try asked.value {
                    guard let first = ask("Choose a passphrase for the drafts and queue on this machine (at least 8 characters): ") else {
                        throw LocalStoreError("no passphrase was typed", fix: "run the command again and type one")
                    }
                    guard first.count >= 8 else {
                        throw LocalStoreError("the passphrase is shorter than 8 characters", fix: "run the command again and choose a longer one")
                    }
                    guard ask("Type it again: ") == first else {
                        throw LocalStoreError("the two passphrases differ", fix: "run the command again and type the same one twice")
                    }
                    return first
                }
            }
        }
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
