import Crypto
import Foundation
import IntakeCore

/// Makes pseudonymous patient keys: an HMAC-SHA256, under a secret the exporter keeps, of the
/// folded names and date of birth.
///
/// Records of one patient get one key, so they can be linked; without the secret nobody can test
/// a guessed name against a key, which a plain hash would allow.
public struct PatientKeyer: Sendable {
    private let key: SymmetricKey
    /// HMAC keyed once; each record's key is computed on a copy, without the key schedule again.
    private let keyed: HMAC<SHA256>

    /// `secret` should be 32 random bytes, kept out of every export.
    public init(secret: Data) throws(ExportError) {
        guard secret.count >= 16 else { throw ExportError("the patient-key secret is too short (\(secret.count) bytes; at least 16)") }
        key = SymmetricKey(data: secret)
        keyed = HMAC<SHA256>(key: key)
    }

    /// 32 random bytes for a new secret.
    public static func newSecret() -> Data {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    /// How many days (1 to 365) to move a patient's dates back: the same for every record with
    /// this patient key (or, without one, for this record), and unguessable without the secret.
    /// Never 0, which would leave one patient in 365 with real dates (the hash's 0 is read as 365;
    /// every other patient's shift is what it was before).
    public func dateShift(patientKey: String?, recordId: UUID) -> Int {
        let subject = patientKey ?? recordId.uuidString.lowercased()
        let mac = HMAC<SHA256>.authenticationCode(for: Data(("intake-date-shift-1\u{1F}" + subject).utf8), using: key)
        let value = mac.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let days = Int(value % 365)
        return days == 0 ? 365 : days
    }

    /// `pk-` and 24 hex digits, or nil when the record has no names to key.
    public func key(for patient: PatientIdentification) -> String? {
        let given = NameKey.fold(patient.givenName)
        let family = NameKey.fold(patient.familyName)
        guard !given.isEmpty || !family.isEmpty else { return nil }
        return key(message: ["intake-patient-key-1", given, family, patient.dateOfBirth?.description ?? ""].joined(separator: "\u{1F}"))
    }

    /// The key of a registry patient (`pk-` and 24 hex digits): the same for every record and
    /// report of that patient, whatever names the records hold.
    public func key(patientId: UUID) -> String {
        key(message: "intake-registry-patient-1\u{1F}" + patientId.uuidString.lowercased())
    }

    private func key(message: String) -> String {
        var hmac = keyed
        hmac.update(data: Array(message.utf8))
        let mac = hmac.finalize()
        let hex = Array("0123456789abcdef".utf8)
        var key = Array("pk-".utf8)
        for byte in mac.prefix(12) {
            key.append(hex[Int(byte >> 4)])
            key.append(hex[Int(byte & 15)])
        }
        return String(decoding: key, as: UTF8.self)
    }
}
