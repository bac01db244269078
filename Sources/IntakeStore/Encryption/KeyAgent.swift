import CKeyring
import Crypto
import Foundation

/// Keeps an unlocked data key between commands, so a field worker types the passphrase once per
/// working session rather than at every fill, flush and lookup.
public protocol KeyAgent: Sendable {
    /// The key kept under `id`, renewing its time; nil when none is kept (or it expired).
    func key(for id: String) -> SymmetricKey?
    func keep(_ key: SymmetricKey, for id: String)
    /// Forgets the key kept under `id`; whether one was kept.
    @discardableResult func forget(_ id: String) -> Bool
}

/// The kernel's keyring (Linux): the key stays in kernel memory, never on disk, for the processes
/// of this login session, and expires after `idle` without use (each use renews it). A process
/// without a live session keyring of its own (none, or one revoked when the login that made it
/// ended, as in a tmux or screen that outlived it) keeps it in the user's session keyring, where
/// the next command finds it too (see intake_keyring.h). Where the kernel has no keyring, nothing
/// is kept and the passphrase is asked each time.
public struct KernelKeyAgent: KeyAgent {
    public let idle: Duration

    public init(idle: Duration) {
        self.idle = idle
    }

    var seconds: UInt32 { UInt32(max(1, min(idle.components.seconds, Int64(UInt32.max)))) }

    public func key(for id: String) -> SymmetricKey? {
        let serial = intake_keyring_search(id)
        guard serial > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBytes { intake_keyring_read(serial, $0.baseAddress, $0.count) }
        guard length == 32 else { return nil }
        _ = intake_keyring_set_timeout(serial, seconds)
        defer { buffer.withUnsafeMutableBytes { wipe($0) } }
        return SymmetricKey(data: buffer.prefix(32))
    }

    public func keep(_ key: SymmetricKey, for id: String) {
        let serial = key.withUnsafeBytes { intake_keyring_add(id, $0.baseAddress, $0.count) }
        if serial > 0 { _ = intake_keyring_set_timeout(serial, seconds) }
    }

    /// Forgets every key kept under `id` wherever ``key(for:)`` could find one (this login
    /// session's keyring and the user's session keyring), so a locked store stays locked.
    @discardableResult public func forget(_ id: String) -> Bool {
        intake_keyring_forget(id) > 0
    }
}

/// Overwrites a buffer that held key bytes.
func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    memset(base, 0, buffer.count)
}

extension KeyVault {
    /// The name a store's unlocked key is kept under: the store's folder and the wrapped key it
    /// was unwrapped from, so a changed passphrase or a rotated key is never served from the agent.
    static func agentId(directory: URL, wrapped: Wrapped) -> String {
        var hash = SHA256()
        hash.update(data: Data(directory.standardizedFileURL.path.utf8))
        hash.update(data: Data([0]))
        hash.update(data: wrapped.sealed)
        return "intake-store:" + hash.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
