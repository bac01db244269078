import Crypto
import Foundation

/// Seals record payloads with AES-256-GCM. The record's id is bound as associated data, so a
/// sealed payload copied onto another record does not open.
package struct RecordCipher: Sendable {
    /// Marks a sealed payload: "IKS1", then the nonce, ciphertext and tag.
    static let magic = Data("IKS1".utf8)

    let key: SymmetricKey

    package init(key: SymmetricKey) {
        self.key = key
    }

    package static func generateKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    package func seal(_ plaintext: Data, id: UUID) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: Self.associatedData(id))
        return Self.magic + box.combined!
    }

    /// The plaintext, or an error when the payload is not sealed with this key for this id or was changed.
    package func open(_ payload: Data, id: UUID) throws -> Data {
        guard Self.isSealed(payload) else { throw CipherError.notSealed }
        do {
            let box = try AES.GCM.SealedBox(combined: payload.dropFirst(Self.magic.count))
            return try AES.GCM.open(box, using: key, authenticating: Self.associatedData(id))
        } catch {
            throw CipherError.cannotOpen
        }
    }

    static func isSealed(_ payload: Data) -> Bool { payload.starts(with: magic) }

    static func associatedData(_ id: UUID) -> Data { Data("intake-record:\(id.uuidString.lowercased())".utf8) }

    enum CipherError: Error {
        case notSealed, cannotOpen
    }
}
