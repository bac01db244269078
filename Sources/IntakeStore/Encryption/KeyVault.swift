import Crypto
import CryptoExtras
import Foundation
import GRDB

/// The data key that seals every payload, kept wrapped (AES-GCM) by a key-encryption key: a
/// device key file made on first use, or a key stretched from a passphrase with scrypt.
///
/// The wrapped key lives in the `meta` table as JSON; changing the passphrase re-wraps it,
/// rotating it re-seals every payload.
enum KeyVault {
    static let metaKey = "dataKey"
    static let deviceKeyFile = "device.key"
    static let wrongPassphrase = "wrong passphrase"
    private static let wrapContext = Data("intake-data-key-v1".utf8)

    /// How the data key is wrapped, as stored.
    struct Wrapped: Codable {
        var protection: KeyProtection
        var salt: Data?
        var rounds: Int?
        var sealed: Data
    }

    /// The wrapped key exactly as stored, to tell whether it changed.
    static func storedText(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [metaKey])
    }

    static func load(_ db: Database) throws -> Wrapped? {
        guard let json = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [metaKey]) else { return nil }
        return try JSONDecoder().decode(Wrapped.self, from: Data(json.utf8))
    }

    static func save(_ wrapped: Wrapped, _ db: Database) throws {
        let json = String(decoding: try JSONEncoder().encode(wrapped), as: UTF8.self)
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            arguments: [metaKey, json])
    }

    /// Wraps `dataKey` under a new key-encryption key: the device key file, or the passphrase.
    static func wrap(_ dataKey: SymmetricKey, passphrase: String?, directory: URL, rounds: Int) throws -> Wrapped {
        if let passphrase {
            let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            let kek = try stretch(passphrase, salt: salt, rounds: rounds)
            return Wrapped(protection: .passphrase, salt: salt, rounds: rounds, sealed: try seal(dataKey, with: kek))
        }
        return Wrapped(
            protection: .deviceKey, salt: nil, rounds: nil, sealed: try seal(dataKey, with: try deviceKey(in: directory, create: true)))
    }

    /// The data key; `passphrase` is asked for only when the store is passphrase-protected.
    static func unwrap(_ wrapped: Wrapped, directory: URL, passphrase: () throws -> String) throws -> SymmetricKey {
        let kek: SymmetricKey
        switch wrapped.protection {
        case .deviceKey:
            kek = try deviceKey(in: directory, create: false)
        case .passphrase:
            guard let salt = wrapped.salt, let rounds = wrapped.rounds else {
                throw LocalStoreError("the stored key is incomplete", fix: "the store is damaged; restore it from a backup")
            }
            kek = try stretch(try passphrase(), salt: salt, rounds: rounds)
        }
        do {
            let box = try AES.GCM.SealedBox(combined: wrapped.sealed)
            return SymmetricKey(data: try AES.GCM.open(box, using: kek, authenticating: wrapContext))
        } catch {
            throw wrapped.protection == .passphrase
                ? LocalStoreError(wrongPassphrase, fix: "nothing was changed; try again with the passphrase this store was protected with")
                : LocalStoreError(
                    "the device key file does not open this store", fix: "restore \(deviceKeyFile) of this data directory from a backup")
        }
    }

    private static func seal(_ dataKey: SymmetricKey, with kek: SymmetricKey) throws -> Data {
        try dataKey.withUnsafeBytes { bytes in
            try AES.GCM.seal(Data(bytes), using: kek, authenticating: wrapContext).combined!
        }
    }

    /// scrypt with N = `rounds`, r = 8, p = 1.
    static func stretch(_ passphrase: String, salt: Data, rounds: Int) throws -> SymmetricKey {
        guard !passphrase.isEmpty else {
            throw LocalStoreError("the passphrase is empty", fix: "type the passphrase, or set INTAKE_PASSPHRASE")
        }
        return try KDF.Scrypt.deriveKey(
            from: Data(passphrase.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: 8, parallelism: 1)
    }

    /// The 32-byte device key file, readable by its owner only.
    static func deviceKey(in directory: URL, create: Bool) throws -> SymmetricKey {
        let url = directory.appendingPathComponent(deviceKeyFile)
        if let data = FileManager.default.contents(atPath: url.path) {
            guard data.count == 32 else {
                throw LocalStoreError("\(url.path) is not an Intake device key", fix: "restore the file from a backup")
            }
            return SymmetricKey(data: data)
        }
        guard create else {
            throw LocalStoreError(
                "the device key file \(url.path) is missing, so the records cannot be read",
                fix: "restore it from a backup of this data directory")
        }
        let key = SymmetricKey(size: .bits256)
        let data = key.withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw LocalStoreError("cannot write \(url.path)", fix: "check that the data directory is writable")
        }
        return key
    }
}

/// What protects the local store's data key.
public enum KeyProtection: String, Codable, Sendable {
    /// A random key file in the data directory: protects against reading the database alone.
    case deviceKey
    /// A passphrase typed (or `INTAKE_PASSPHRASE`) each time the store is opened.
    case passphrase
}
