import Crypto
import Foundation
import IntakeCore
import Synchronization

/// Enrolling machines with one-time codes, their device tokens, and revoking them: the rules
/// shared by the API and the command line.
public final class DeviceService: Sendable {
    public let store: any DeviceStore & AccountStore & TeamStore
    let clock: @Sendable () -> Date
    /// Wrong secrets tried with one code's first group before it locks.
    public static let lockAfter = 5
    /// How long a code lives unless asked otherwise, and at most.
    public static let defaultLifetime: TimeInterval = 72 * 3600
    public static let lifetimes: ClosedRange<TimeInterval> = 720...(30 * 24 * 3600)
    /// What a device said last, by device, so a busy device is written down at most once a
    /// ``reportInterval`` unless what it says changes.
    private let reported = Mutex<[Int64: (report: DeviceReport, at: Date)]>([:])
    public static let reportInterval: TimeInterval = 30

    public init(store: any DeviceStore & AccountStore & TeamStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.clock = clock
    }

    /// A hash compared against when a code's first group is unknown, so that takes as long as a wrong secret.
    static let unknownCodeHash = PasscodeHash.make("unknown code")

    /// Letters and digits that cannot be misread for one another (no 0, 1, I, O).
    static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")

    /// A new code for `username`, a member of team `teamId`, made by `creator`: the code in full
    /// (shown once) and the enrolment as kept.
    public func createEnrolment(teamId: Int64, username: String, lifetime: TimeInterval?, by creator: String) async throws -> (
        code: String, enrolment: Enrolment
    ) {
        let lifetime = lifetime ?? Self.defaultLifetime
        guard Self.lifetimes.contains(lifetime) else {
            throw ServiceError(.invalid, "a code lives from 0.2 hours (12 minutes) to 720 hours (30 days); give a lifetime in that range")
        }
        let members = try await store.members(teamId: teamId)
        guard let member = members.first(where: { $0.username == username }) else {
            throw ServiceError(
                .unprocessable(code: "not_a_member"),
                "\(username) is not a member of this team; a machine is enrolled for one of its members (intake team members)")
        }
        guard member.role == .fieldworker || member.role == .coordinator else {
            throw ServiceError(
                .unprocessable(code: "cannot_collect"),
                "\(username) cannot collect records; enrol a machine for a field worker or a coordinator")
        }
        let now = clock()
        for _ in 0..<5 {
            let id = Self.random(4), secret = Self.random(12)
            do {
                let enrolment = try await store.createEnrolment(
                    NewEnrolment(
                        id: id, teamId: teamId, username: username, secretHash: PasscodeHash.make(secret), createdBy: creator,
                        createdAt: now,
                        expiresAt: now.addingTimeInterval(lifetime)))
                return (Self.format(id + secret), enrolment)
            } catch RecordStoreError.alreadyExists {
                continue  // another code has that first group: draw again
            }
        }
        throw ServiceError(.unprocessable(code: "busy"), "no free enrolment code was found; try again")
    }

    /// `ABCD-EFGH-JKLM-NPQR`.
    static func format(_ raw: String) -> String {
        stride(from: 0, to: raw.count, by: 4).map { start in
            String(raw.dropFirst(start).prefix(4))
        }.joined(separator: "-")
    }

    static func random(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The code as typed (any case, with or without dashes and spaces): its id and secret, or
    /// nil when it cannot be a code.
    public static func parse(_ typed: String) -> (id: String, secret: String)? {
        let letters = typed.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        guard letters.count == 16, letters.allSatisfy({ alphabet.contains($0) }) else { return nil }
        return (String(letters.prefix(4)), String(letters.dropFirst(4)))
    }

    /// A machine uses a code: on success, its device token (shown once), the device as kept and
    /// the account it acts as.
    public func redeem(code: String, deviceId: String, name: String, intakeVersion: String?) async throws -> (
        token: String, device: Device, user: User
    ) {
        guard let (id, secret) = Self.parse(code) else {
            throw ServiceError(
                .unprocessable(code: "wrong_code"),
                "an enrolment code is 16 letters and digits, as ABCD-EFGH-JKLM-NPQR; check what was typed")
        }
        guard Self.isDeviceId(deviceId) else {
            throw ServiceError(
                .invalid, "the device id is 1 to 64 letters, digits, '.', '_', ':' or '-', as this machine's Intake-Device-Id")
        }
        let token = "itd_" + String(APIToken.generate().dropFirst(4))
        let outcome = try await store.redeemEnrolment(
            id: id,
            device: NewDevice(
                deviceId: deviceId, name: String(name.prefix(100)), tokenHash: APIToken.hash(token),
                intakeVersion: intakeVersion.map { String($0.prefix(40)) }),
            at: clock(), lockAfter: Self.lockAfter, matches: { PasscodeHash.matches(secret, $0) })
        switch outcome {
        case .enrolled(let device):
            guard let (_, user) = try await store.device(tokenHash: APIToken.hash(token)) else {
                throw ServiceError(.notFound, "device \(device.id)")
            }
            // A code made for a member disabled or gone since enrols nothing that could work.
            guard !user.disabled, user.lockedAt == nil, user.teamId == device.teamId else {
                _ = try await store.revokeDevice(id: device.id, teamId: nil, by: "enrolment refused", at: clock())
                throw ServiceError(
                    .unprocessable(code: "account_unavailable"),
                    "the account this code was made for is disabled, locked or no longer in the team; ask your coordinator for a new code")
            }
            return (token, device, user)
        case .notFound, .wrongSecret:
            // The same answer, after the same work, whether the code's first group exists or not:
            // nothing tells which codes are open.
            if case .notFound = outcome { _ = PasscodeHash.matches(secret, Self.unknownCodeHash) }
            throw ServiceError(
                .unprocessable(code: "wrong_code"),
                "that enrolment code is not right; check it with your coordinator (a code locks after \(Self.lockAfter) wrong tries)")
        case .refused(let state):
            let why =
                switch state {
                case .used: "was used already: a code enrols one machine"
                case .locked: "is locked after too many wrong tries"
                case .expired: "has expired"
                case .open: "cannot be used"
                }
            throw ServiceError(
                .unprocessable(code: "code_\(state.rawValue)"),
                "that enrolment code \(why); ask your coordinator for a new one (intake team enrol)")
        }
    }

    /// Whether `text` can be a machine's `Intake-Device-Id`: 1 to 64 letters, digits, `.`, `_`,
    /// `:` or `-` (the one rule for the header and for enrolment).
    public static func isDeviceId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || [46, 95, 58, 45].contains($0) }
    }

    /// Whether a bearer token is a device token (the others are account tokens).
    public static func isDeviceToken(_ token: String) -> Bool { token.hasPrefix("itd_") }

    /// Why a device token is refused, as the client is to say it.
    public enum Refusal: Error, Sendable, Equatable {
        case unknown
        case revoked(at: Date, by: String?)
        /// Sent by another machine than the one it was made for.
        case otherMachine
        /// The account it acts as is disabled, or left the team.
        case accountUnavailable
    }

    /// The account device token `token` acts as, when it is live and sent by its own machine
    /// (`deviceId`): read from the store at every request, so a revocation made on any server
    /// stops it at the next one. What the device reported is kept.
    public func authenticate(token: String, deviceId: String?, queueSize: Int?, intakeVersion: String?) async throws -> Result<
        (Device, User), Refusal
    > {
        guard let (device, user) = try await store.device(tokenHash: APIToken.hash(token)) else { return .failure(.unknown) }
        if let revokedAt = device.revokedAt { return .failure(.revoked(at: revokedAt, by: device.revokedBy)) }
        guard deviceId == device.deviceId else { return .failure(.otherMachine) }
        guard !user.disabled, user.lockedAt == nil, user.teamId == device.teamId else { return .failure(.accountUnavailable) }
        try await note(device, DeviceReport(seenAt: clock(), queueSize: queueSize, intakeVersion: intakeVersion))
        return .success((device, user))
    }

    /// Records that `device` uploaded records now.
    public func noteUpload(_ device: Device) async throws {
        let now = clock()
        try await note(device, DeviceReport(seenAt: now, uploadAt: now))
    }

    /// Keeps what a device reported; bookkeeping that fails never fails the request it came with
    /// (it is tried again with the next report).
    private func note(_ device: Device, _ report: DeviceReport) async throws {
        let due = reported.withLock { reported -> Bool in
            if let last = reported[device.id], report.uploadAt == nil, report.queueSize == nil || report.queueSize == last.report.queueSize,
                report.intakeVersion == nil || report.intakeVersion == last.report.intakeVersion,
                report.seenAt.timeIntervalSince(last.at) < Self.reportInterval
            {
                return false
            }
            reported[device.id] = (report, report.seenAt)
            return true
        }
        guard due else { return }
        do {
            try await store.noteDevice(id: device.id, report)
        } catch {
            reported.withLock { _ = $0.removeValue(forKey: device.id) }
        }
    }

    public func devices(teamId: Int64?) async throws -> [Device] { try await store.devices(teamId: teamId) }
    public func enrolments(teamId: Int64) async throws -> [Enrolment] { try await store.enrolments(teamId: teamId) }

    /// Revokes a device of team `teamId` (any team's when nil, for admins).
    public func revoke(id: Int64, teamId: Int64?, by user: String) async throws -> Device {
        guard let device = try await store.revokeDevice(id: id, teamId: teamId, by: user, at: clock()) else {
            throw ServiceError(.notFound, "device \(id)")
        }
        return device
    }
}
