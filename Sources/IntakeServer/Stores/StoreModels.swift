import Foundation
import IntakeCore

/// A questionnaire version as published: its source files, from which `IntakeCore` parses it.
public struct PublishedQuestionnaire: Sendable, Hashable, Codable {
    public var id: String
    public var version: String
    public var title: String
    public var questionCount: Int
    /// Section, translation and manifest files by name.
    public var files: [String: String]
    /// The shared choice-list files it uses, by name.
    public var lists: [String: String]
    public var publishedAt: Date
    /// Draft, published, closed or retired (``QuestionnaireLifecycle``), since when and by whom.
    public var status: QuestionnaireStatus

    public init(
        id: String, version: String, title: String, questionCount: Int, files: [String: String], lists: [String: String],
        publishedAt: Date, status: QuestionnaireStatus = QuestionnaireStatus(state: .published)
    ) {
        self.id = id
        self.version = version
        self.title = title
        self.questionCount = questionCount
        self.files = files
        self.lists = lists
        self.publishedAt = publishedAt
        self.status = status
    }
}

/// A record ready to store: its canonical bytes (``RecordCodec``) and their SHA-256.
public struct IngestItem: Sendable {
    public var record: PatientResponse
    public var body: [UInt8]
    public var contentHash: String
    /// The device it was saved from (the client's `Intake-Device-Id`), kept with the revision.
    public var deviceId: String?
    /// The alerts the record raises (the keys of the questions whose `alert if` holds): stored
    /// with it, each as a notification to the team's coordinators, once per record and alert.
    public var alerts: [String] = []

    public init(record: PatientResponse) {
        self.record = record
        self.body = RecordCodec.encode(record)
        self.contentHash = RecordCodec.contentHash(ofCanonical: body)
    }
}

/// Who a new record belongs to: the team and user who sent it.
public struct RecordOwner: Sendable {
    public var teamId: Int64
    public var username: String
    /// The device the records came from, when the client said.
    public var deviceId: String?

    public init(teamId: Int64, username: String, deviceId: String? = nil) {
        self.teamId = teamId
        self.username = username
        self.deviceId = deviceId
    }
}

public enum IngestOutcome: Sendable, Equatable {
    case created(revision: Int)
    /// The same content was stored before (a retried upload); nothing changed.
    case duplicate(revision: Int)
    /// A record with this id exists with other content.
    case conflict(currentRevision: Int)
    /// The id belongs to a record of another team: nothing about it (its revision, whether the
    /// content matches) is told, and nothing is stored.
    case taken
    /// The id is a deleted record of the team: a deleted record never comes back under its id.
    case deleted(Tombstone)
}

public enum UpdateOutcome: Sendable, Equatable {
    case updated(revision: Int)
    case stale(currentRevision: Int)
    case notFound
    /// The record was deleted (perhaps while the edit was on its way).
    case deleted(Tombstone)
    /// A reviewer approved and locked the record: no edit until they reopen it.
    case locked
}

public struct StoredRecord: Sendable {
    public var record: PatientResponse
    public var revision: Int
    public var teamId: Int64
    /// Who uploaded it (a coordinator flushing a field worker's queue, say).
    public var receivedBy: String
    /// Who collected it: the signed-in account that filled it, checked at upload to be (or to
    /// have been) a member of the record's team. Records stored before this was checked have
    /// who uploaded them.
    public var collector: String
    public var receivedAt: Date
    public var updatedAt: Date

    package init(
        record: PatientResponse, revision: Int, teamId: Int64, receivedBy: String, collector: String, receivedAt: Date, updatedAt: Date
    ) {
        self.record = record
        self.revision = revision
        self.teamId = teamId
        self.receivedBy = receivedBy
        self.collector = collector
        self.receivedAt = receivedAt
        self.updatedAt = updatedAt
    }
}

public struct RecordRevision: Sendable {
    public var revision: Int
    public var record: PatientResponse
    public var savedBy: String
    public var savedAt: Date
    /// The device it was saved from, when the client said.
    public var deviceId: String?

    package init(revision: Int, record: PatientResponse, savedBy: String, savedAt: Date, deviceId: String? = nil) {
        self.revision = revision
        self.record = record
        self.savedBy = savedBy
        self.savedAt = savedAt
        self.deviceId = deviceId
    }
}

/// A lookup by identifying information within one team.
public struct LookupQuery: Sendable {
    public var teamId: Int64
    public var givenName: String?
    public var familyName: String?
    public var dateOfBirth: LocalDate?
    public var externalId: String?
    public var limit: Int
    public var offset: Int

    public init(
        teamId: Int64, givenName: String? = nil, familyName: String? = nil, dateOfBirth: LocalDate? = nil,
        externalId: String? = nil, limit: Int = 20, offset: Int = 0
    ) {
        self.teamId = teamId
        self.givenName = givenName
        self.familyName = familyName
        self.dateOfBirth = dateOfBirth
        self.externalId = externalId
        self.limit = limit
        self.offset = offset
    }
}

public struct LookupMatch: Sendable {
    public var id: UUID
    public var revision: Int
    public var status: PatientResponse.Status
    public var questionnaire: QuestionnaireReference
    public var patient: PatientIdentification
    public var updatedAt: Date
    /// Higher is better: exact matches outrank prefixes, which outrank substrings.
    public var score: Int
    /// Who collected it (for collector-only questionnaires).
    public var collector: String

    package init(
        id: UUID, revision: Int, status: PatientResponse.Status, questionnaire: QuestionnaireReference, patient: PatientIdentification, updatedAt: Date,
        score: Int, collector: String = ""
    ) {
        self.collector = collector
        self.id = id
        self.revision = revision
        self.status = status
        self.questionnaire = questionnaire
        self.patient = patient
        self.updatedAt = updatedAt
        self.score = score
    }
}

public enum Role: String, Sendable, Codable, CaseIterable {
    case fieldworker, coordinator, researcher, admin
}

public struct Team: Sendable, Codable, Hashable {
    public var id: Int64
    public var name: String
    public var createdAt: Date
    /// The time zone its pages show times in (an IANA name, `Asia/Amman`); nil for UTC.
    public var timeZone: String?

    package init(id: Int64, name: String, createdAt: Date, timeZone: String? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.timeZone = timeZone
    }
}

public struct User: Sendable, Hashable {
    public var id: Int64
    public var username: String
    public var role: Role
    public var teamId: Int64?
    public var teamName: String?
    public var disabled: Bool
    public var createdAt: Date
    /// When repeated failed sign-ins locked the account; nil while it is not locked. Only an
    /// admin lifts a lock (``UserChange/unlock``).
    public var lockedAt: Date?
    /// A researcher's access level (nil: not set, which exports treat as `external`, the narrowest).
    public var researchAccess: ResearchAccess?
    /// The language the user chose for the web console (`en`, `ar`); nil until they choose.
    public var language: String?

    package init(
        id: Int64, username: String, role: Role, teamId: Int64?, teamName: String?, disabled: Bool, createdAt: Date, lockedAt: Date? = nil,
        researchAccess: ResearchAccess? = nil, language: String? = nil
    ) {
        self.researchAccess = researchAccess
        self.language = language
        self.id = id
        self.username = username
        self.role = role
        self.teamId = teamId
        self.teamName = teamName
        self.disabled = disabled
        self.createdAt = createdAt
        self.lockedAt = lockedAt
    }
}

public struct UserCredentials: Sendable {
    public var user: User
    public var passwordHash: String
    /// Failed sign-ins since the last one that succeeded (or the last unlock).
    public var failedSignIns: Int
    public var lastFailedSignInAt: Date?

    package init(user: User, passwordHash: String, failedSignIns: Int = 0, lastFailedSignInAt: Date? = nil) {
        self.user = user
        self.passwordHash = passwordHash
        self.failedSignIns = failedSignIns
        self.lastFailedSignInAt = lastFailedSignInAt
    }
}

/// An account's failed sign-ins after one more was counted.
public struct SignInFailures: Sendable, Equatable {
    public var count: Int
    /// Set once `count` reached the lock threshold (and kept until an admin unlocks).
    public var lockedAt: Date?

    package init(count: Int, lockedAt: Date?) {
        self.count = count
        self.lockedAt = lockedAt
    }
}

public struct NewUser: Sendable {
    public var username: String
    public var passwordHash: String
    public var role: Role
    public var teamId: Int64?

    public init(username: String, passwordHash: String, role: Role, teamId: Int64?) {
        self.username = username
        self.passwordHash = passwordHash
        self.role = role
        self.teamId = teamId
    }
}

public struct UserChange: Sendable {
    public var role: Role?
    public var teamId: Int64??
    public var passwordHash: String?
    public var disabled: Bool?
    /// Lifts a lock from failed sign-ins and forgets the failures.
    public var unlock: Bool
    public var researchAccess: ResearchAccess?
    public var language: String?

    public init(
        role: Role? = nil, teamId: Int64?? = nil, passwordHash: String? = nil, disabled: Bool? = nil, unlock: Bool = false,
        researchAccess: ResearchAccess? = nil, language: String? = nil
    ) {
        self.researchAccess = researchAccess
        self.language = language
        self.role = role
        self.teamId = teamId
        self.passwordHash = passwordHash
        self.disabled = disabled
        self.unlock = unlock
    }
}

/// A token as it may be listed: named by the start of its hash (the token itself is never kept).
public struct TokenSummary: Sendable, Equatable {
    /// The first 12 hex digits of the token's SHA-256: enough to tell a user's tokens apart.
    public var id: String
    public var name: String
    public var createdAt: Date
    public var expiresAt: Date?

    public init(id: String, name: String, createdAt: Date, expiresAt: Date?) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// How many hex digits of the hash name a token.
    public static let idLength = 12
}

public struct NewToken: Sendable {
    public var userId: Int64
    public var hash: String
    public var name: String
    public var expiresAt: Date?

    public init(userId: Int64, hash: String, name: String, expiresAt: Date?) {
        self.userId = userId
        self.hash = hash
        self.name = name
        self.expiresAt = expiresAt
    }
}

/// A record sent to try a draft questionnaire version: checked like any record, kept apart.
public struct TestRecord: Sendable, Hashable {
    public var id: UUID
    public var questionnaireId: String
    public var version: String
    public var teamId: Int64
    public var collector: String
    public var submittedBy: String
    public var receivedAt: Date
    public var answerCount: Int
    /// The record's canonical JSON (``RecordCodec``); empty in lists.
    public var payload: [UInt8]

    public init(
        id: UUID, questionnaireId: String, version: String, teamId: Int64, collector: String, submittedBy: String, receivedAt: Date,
        answerCount: Int, payload: [UInt8]
    ) {
        self.id = id
        self.questionnaireId = questionnaireId
        self.version = version
        self.teamId = teamId
        self.collector = collector
        self.submittedBy = submittedBy
        self.receivedAt = receivedAt
        self.answerCount = answerCount
        self.payload = payload
    }
}
