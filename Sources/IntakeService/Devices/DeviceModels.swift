import Foundation

/// A one-time code a coordinator makes to enrol a new machine for one account of their team.
///
/// The code reads `ABCD-EFGH-JKLM-NPQR`: its first group names the enrolment (kept in clear),
/// the other three are its secret (kept only as a salted hash, ``PasscodeHash``).
public struct Enrolment: Sendable, Hashable {
    public var id: String
    public var teamId: Int64
    /// The account the enrolled machine acts as (a field worker of the team, usually).
    public var username: String
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date
    public var state: EnrolmentState
    public var failedAttempts: Int
    public var usedAt: Date?
    /// The device id of the machine that used it.
    public var deviceId: String?

    package init(
        id: String, teamId: Int64, username: String, createdBy: String, createdAt: Date, expiresAt: Date, state: EnrolmentState,
        failedAttempts: Int, usedAt: Date?, deviceId: String?
    ) {
        self.id = id
        self.teamId = teamId
        self.username = username
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.state = state
        self.failedAttempts = failedAttempts
        self.usedAt = usedAt
        self.deviceId = deviceId
    }

    /// The state as of `time`: an open code past its time is expired.
    public func state(at time: Date) -> EnrolmentState { state == .open && time >= expiresAt ? .expired : state }
}

public enum EnrolmentState: String, Sendable, Hashable, Codable {
    /// Waiting to be used.
    case open
    /// A machine was enrolled with it; it works no more.
    case used
    /// Too many wrong secrets were tried with its first group.
    case locked
    /// Past its time (never stored: derived from `expiresAt`).
    case expired
}

/// What a store keeps of a new enrolment.
public struct NewEnrolment: Sendable {
    public var id: String
    public var teamId: Int64
    public var username: String
    public var secretHash: String
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: String, teamId: Int64, username: String, secretHash: String, createdBy: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.teamId = teamId
        self.username = username
        self.secretHash = secretHash
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A machine enrolled for an account of a team, with what it last reported.
public struct Device: Sendable, Hashable {
    public var id: Int64
    /// The machine's own id (`Intake-Device-Id`): its token works only with it.
    public var deviceId: String
    public var name: String
    public var teamId: Int64
    public var username: String
    public var enrolment: String
    public var enrolledAt: Date
    public var revokedAt: Date?
    public var revokedBy: String?
    public var lastSeenAt: Date?
    public var lastUploadAt: Date?
    /// Records waiting in its queue, as it last said.
    public var queueSize: Int?
    public var intakeVersion: String?

    package init(
        id: Int64, deviceId: String, name: String, teamId: Int64, username: String, enrolment: String, enrolledAt: Date, revokedAt: Date?,
        revokedBy: String?, lastSeenAt: Date?, lastUploadAt: Date?, queueSize: Int?, intakeVersion: String?
    ) {
        self.id = id
        self.deviceId = deviceId
        self.name = name
        self.teamId = teamId
        self.username = username
        self.enrolment = enrolment
        self.enrolledAt = enrolledAt
        self.revokedAt = revokedAt
        self.revokedBy = revokedBy
        self.lastSeenAt = lastSeenAt
        self.lastUploadAt = lastUploadAt
        self.queueSize = queueSize
        self.intakeVersion = intakeVersion
    }
}

/// A machine being enrolled: what the store keeps of it.
public struct NewDevice: Sendable {
    public var deviceId: String
    public var name: String
    public var tokenHash: String
    public var intakeVersion: String?

    public init(deviceId: String, name: String, tokenHash: String, intakeVersion: String?) {
        self.deviceId = deviceId
        self.name = name
        self.tokenHash = tokenHash
        self.intakeVersion = intakeVersion
    }
}

/// What a device told the server with a request, to keep.
public struct DeviceReport: Sendable, Equatable {
    public var seenAt: Date
    public var uploadAt: Date?
    public var queueSize: Int?
    public var intakeVersion: String?

    public init(seenAt: Date, uploadAt: Date? = nil, queueSize: Int? = nil, intakeVersion: String? = nil) {
        self.seenAt = seenAt
        self.uploadAt = uploadAt
        self.queueSize = queueSize
        self.intakeVersion = intakeVersion
    }
}

public enum EnrolmentOutcome: Sendable, Equatable {
    case enrolled(Device)
    case notFound
    /// The secret is wrong; `remaining` more tries before the code locks.
    case wrongSecret(remaining: Int)
    /// Used, locked or expired.
    case refused(EnrolmentState)
}
