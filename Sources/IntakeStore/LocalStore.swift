import Crypto
import Foundation
import GRDB
import IntakeCore

/// The field worker's local data: drafts and the outbound queue, in one SQLite file.
///
/// Every answer is saved as it is given, so a crash, a closed terminal or Ctrl-C loses nothing.
/// Every record's patient data and answers are sealed (AES-256-GCM, the record id bound as
/// associated data) in one `payload` column; the other columns hold only what lists and the queue
/// need: ids, states, counts, times and sizes.
public final class LocalStore: Sendable {
    public let directory: URL
    public let configuration: Configuration
    /// One connection: the store has one user at a time per process (other processes, a flush
    /// beside a fill, take turns through SQLite's locks and the busy timeout).
    let database: DatabaseQueue
    let unlocked = CipherCache()

    public static let fileName = "intake.sqlite"

    /// How the store's data key is protected and unlocked.
    public struct Configuration: Sendable {
        /// Asked for the passphrase when the store is passphrase-protected.
        public var passphrase: (@Sendable () throws -> String)?
        /// When a new store is created with this, it is passphrase-protected.
        public var newStorePassphrase: String?
        /// Asked for a new passphrase when the first key is made and ``newStorePassphrase`` is nil
        /// (a person at a terminal chooses one); nil when nobody can be asked.
        public var chooseNewPassphrase: (@Sendable () throws -> String)?
        /// Whether a new store may keep its key in a device key file beside the data when no
        /// passphrase is given: anyone who has the disk can then open every draft. For shared
        /// kiosk machines, and tests; the command line allows it only with `INTAKE_KIOSK=1`.
        public var allowsDeviceKey: Bool
        /// scrypt's cost N for passphrases (32,768: about 0.1 s and 32 MiB).
        public var scryptRounds = 1 << 15
        /// How many times a passphrase is asked before a wrong one ends the command.
        public var passphraseTries = 1
        /// Told after a wrong passphrase how many tries are left, before ``passphrase`` is asked
        /// again (it must then ask afresh, not answer what it answered before).
        public var wrongPassphrase: (@Sendable (_ triesLeft: Int) -> Void)?
        /// Keeps the unlocked key between commands (``KernelKeyAgent``); nil keeps it for this
        /// process only.
        public var keyAgent: (any KeyAgent)?

        public init(
            passphrase: (@Sendable () throws -> String)? = nil, newStorePassphrase: String? = nil,
            chooseNewPassphrase: (@Sendable () throws -> String)? = nil, allowsDeviceKey: Bool = true
        ) {
            self.passphrase = passphrase
            self.newStorePassphrase = newStorePassphrase
            self.chooseNewPassphrase = chooseNewPassphrase
            self.allowsDeviceKey = allowsDeviceKey
        }
    }

    /// Opens (creating when needed) the store in `directory`, readable by its owner only. The key
    /// is unlocked when a payload is first read or written.
    public init(directory: URL, configuration: Configuration = Configuration()) throws(LocalStoreError) {
        self.directory = directory
        self.configuration = configuration
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LocalStoreError(
                "cannot create the data directory \(directory.path)",
                fix: "choose a writable folder with --data-dir or INTAKE_DATA_DIR")
        }
        let path = directory.appendingPathComponent(Self.fileName).path
        do {
            var sqlite = GRDB.Configuration()
            sqlite.busyMode = .timeout(10)
            sqlite.prepareDatabase { db in
                // The write-ahead log, so a reader in another process (a flush, a list) does not
                // wait for a writer; set here rather than by GRDB's `.wal`, which makes a table
                // and drops it at every open (a commit and its syncs on every command's start)
                // and sets `synchronous = NORMAL`.
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                    throw DatabaseError(message: "the write-ahead log could not be turned on")
                }
                // FULL: a committed answer survives a power cut, not only a crash.
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            database = try Self.open(path, sqlite)
        } catch {
            throw LocalStoreError(
                "cannot open the local store \(path)",
                fix: "check that the folder is writable and the file is an Intake store; another version of Intake may have written it")
        }
        // chmod itself: FileManager's setAttributes reads its dictionary of attributes through
        // dynamic casts, a sixth of opening the store at a command's start.
        for suffix in ["", "-wal", "-shm"] {
            _ = chmod(path + suffix, 0o600)
        }
    }

    /// The store at `path`, migrated. Two commands started at once on a new store (a machine's
    /// first use: a fill, and a list in another terminal) both make it: the one that loses the
    /// race meets a table the other just created, or the log's mode the other is setting, and
    /// fails; asked again a moment later, it finds that done. A store that cannot be opened fails
    /// every time, and is reported after the last try (under half a second later).
    private static func open(_ path: String, _ configuration: GRDB.Configuration) throws -> DatabaseQueue {
        var attempt = 1
        while true {
            do {
                let database = try DatabaseQueue(path: path, configuration: configuration)
                try migrator.migrate(database)
                return database
            } catch  where attempt < 5 {
                attempt += 1
                usleep(UInt32.random(in: 50_000...100_000))
            }
        }
    }

    /// The data directory the environment names (``DataDirectory``).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        DataDirectory.resolve(environment: environment)
    }

    /// This device's id, made on first use and kept in the store.
    public func deviceId() throws(LocalStoreError) -> String {
        let known = try read("read the device id") { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'deviceId'") }
        if let known { return known }
        return try write("read the device id") { db in
            if let existing = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'deviceId'") {
                return existing
            }
            let id = UUID().uuidString.lowercased()
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('deviceId', ?)", arguments: [id])
            return id
        }
    }

    /// The cipher for payloads, unlocking (or on first use creating) the data key.
    func cipher() throws(LocalStoreError) -> RecordCipher {
        if let cipher = unlocked.value { return cipher }
        let cipher = try write("unlock the store") { db -> RecordCipher in
            let key: SymmetricKey
            if let wrapped = try KeyVault.load(db) {
                key = try unwrap(wrapped)
            } else {
                key = RecordCipher.generateKey()
                let passphrase = try configuration.newStorePassphrase ?? configuration.chooseNewPassphrase?()
                guard passphrase != nil || configuration.allowsDeviceKey else {
                    throw LocalStoreError(
                        "this machine's store has no key yet, and no passphrase was given to protect it",
                        fix: "run intake in a terminal to choose a passphrase, or set INTAKE_PASSPHRASE; on a shared kiosk machine, "
                            + "INTAKE_KIOSK=1 keeps the key in a file beside the data instead (anyone who has the disk can then read every draft)"
                    )
                }
                try KeyVault.save(
                    try KeyVault.wrap(key, passphrase: passphrase, directory: directory, rounds: configuration.scryptRounds), db)
                // The passphrase just chosen unlocks the store for the rest of the working session,
                // as one typed to unlock it does: the next command does not ask for it again.
                if let wrapped = try KeyVault.load(db), wrapped.protection == .passphrase {
                    configuration.keyAgent?.keep(key, for: KeyVault.agentId(directory: directory, wrapped: wrapped))
                }
            }
            let cipher = RecordCipher(key: key)
            try Self.sealPlaintextPayloads(with: cipher, db)
            if let stored = try KeyVault.storedText(db) { unlocked.set(cipher, wrapped: stored) }
            return cipher
        }
        return cipher
    }

    /// The cipher of the key the store holds at this moment, read in the transaction of `db`:
    /// another intake process may have rotated the key since this one unlocked it, and sealing or
    /// opening with the old key would lose the record. When the stored key changed, it is
    /// unwrapped again (with the same passphrase, remembered for the process).
    func cipher(in db: Database) throws -> RecordCipher {
        guard let stored = try KeyVault.storedText(db) else {
            throw LocalStoreError("the store's key is missing", fix: "the store is damaged; restore it from a backup")
        }
        if let cipher = unlocked.value(for: stored) { return cipher }
        guard let wrapped = try KeyVault.load(db) else {
            throw LocalStoreError("the store's key is missing", fix: "the store is damaged; restore it from a backup")
        }
        let cipher = RecordCipher(key: try unwrap(wrapped))
        unlocked.set(cipher, wrapped: stored)
        return cipher
    }

    /// The data key: from the key agent when it keeps this one, else unwrapped with the
    /// passphrase (asked again after a wrong one, up to ``Configuration/passphraseTries`` times)
    /// and then kept by the agent.
    func unwrap(_ wrapped: KeyVault.Wrapped) throws -> SymmetricKey {
        guard wrapped.protection == .passphrase else { return try KeyVault.unwrap(wrapped, directory: directory) { "" } }
        let agentId = KeyVault.agentId(directory: directory, wrapped: wrapped)
        if let kept = configuration.keyAgent?.key(for: agentId) { return kept }
        var triesLeft = max(1, configuration.passphraseTries)
        while true {
            do {
                let key = try KeyVault.unwrap(wrapped, directory: directory) { try self.askPassphrase() }
                configuration.keyAgent?.keep(key, for: agentId)
                return key
            } catch let error as LocalStoreError where error.message == KeyVault.wrongPassphrase && triesLeft > 1 {
                guard let wrongPassphrase = configuration.wrongPassphrase else { throw error }
                triesLeft -= 1
                wrongPassphrase(triesLeft)
            }
        }
    }

    /// Unlocks the store now (asking for its passphrase, or choosing one for a new store), so
    /// that nothing is asked later in the middle of the work.
    public func unlock() throws(LocalStoreError) {
        _ = try cipher()
    }

    /// Makes the key agent forget this store's unlocked key: the next command asks for the
    /// passphrase again. Whether it kept one.
    @discardableResult public func lock() throws(LocalStoreError) -> Bool {
        let agent = configuration.keyAgent ?? KernelKeyAgent(idle: .seconds(60))
        return try read("read the store's key") { db in
            guard let wrapped = try KeyVault.load(db), wrapped.protection == .passphrase else { return false }
            return agent.forget(KeyVault.agentId(directory: directory, wrapped: wrapped))
        }
    }

    /// Runs `body` in a write transaction with the cipher of the key the store holds then; the
    /// key is made or unlocked first (which may ask for the passphrase).
    func writeSealed<T>(_ action: String, _ body: (Database, RecordCipher) throws -> T) throws(LocalStoreError) -> T {
        _ = try cipher()
        return try write(action) { db in try body(db, try self.cipher(in: db)) }
    }

    func askPassphrase() throws -> String {
        guard let ask = configuration.passphrase else {
            throw LocalStoreError(
                "this store is protected by a passphrase", fix: "set INTAKE_PASSPHRASE, or run intake in a terminal to be asked for it")
        }
        return try ask()
    }

    func write<T>(_ action: String, _ body: (Database) throws -> T) throws(LocalStoreError) -> T {
        do {
            return try database.write(body)
        } catch let error as LocalStoreError {
            throw error
        } catch {
            throw LocalStoreError("cannot \(action) in the local store", fix: Self.fix(for: error))
        }
    }

    func read<T>(_ action: String, _ body: (Database) throws -> T) throws(LocalStoreError) -> T {
        do {
            return try database.read(body)
        } catch let error as LocalStoreError {
            throw error
        } catch {
            throw LocalStoreError("cannot \(action) in the local store", fix: Self.fix(for: error))
        }
    }

    private static func fix(for error: any Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: return "the disk is full; free some space and try again"
            case .SQLITE_IOERR where error.extendedResultCode == .SQLITE_IOERR_WRITE || error.extendedResultCode == .SQLITE_IOERR_FSYNC:
                return "the disk cannot take more (full, or over a size limit); free some space and try again"
            case .SQLITE_BUSY, .SQLITE_LOCKED: return "another intake process is writing; try again in a moment"
            case .SQLITE_READONLY: return "the data directory is read-only; choose another with --data-dir"
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: return "the store file is damaged; restore it from a backup"
            default: return "SQLite reported code \(error.resultCode.rawValue); try again, and report it if it persists"
            }
        }
        return "a stored record could not be read; it may have been written by a newer Intake"
    }
}

/// The unlocked cipher, kept for the life of the store object.
final class CipherCache: @unchecked Sendable {
    private let lock = NSLock()
    private var cipher: RecordCipher?
    /// The wrapped key (as stored) the cipher was unwrapped from: when the stored one differs,
    /// another process rotated the key or changed its protection.
    private var wrapped: String?

    var value: RecordCipher? {
        get { lock.withLock { cipher } }
        set { lock.withLock { cipher = newValue } }
    }

    func value(for wrapped: String) -> RecordCipher? {
        lock.withLock { self.wrapped == wrapped ? cipher : nil }
    }

    func set(_ cipher: RecordCipher, wrapped: String) {
        lock.withLock {
            self.cipher = cipher
            self.wrapped = wrapped
        }
    }
}
