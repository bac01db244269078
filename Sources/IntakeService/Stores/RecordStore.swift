import Foundation
import IntakeCore

/// Where the server keeps questionnaires, records and accounts.
///
/// Nothing here names a database: the SQLite store and (later) a PostgreSQL store implement it,
/// and one shared test suite proves they behave the same.
///
/// Services never take the whole of it: each depends on the narrow protocols it uses
/// (``RecordDataStore``, ``ExportStore``, ``SecretStore``, ``ReferralStore``, …).
public protocol RecordStore: RecordDataStore, ExportStore, SecretStore, QuestionnaireStore, AccountStore, TeamStore, ReferralStore,
    WebhookStore, PatientStore, AuditStore, GrantStore, DeviceStore, ReviewStore, CaseStore
{
    /// Throws when the store cannot be read, for `/health`.
    func checkHealth() async throws
    /// What `error`, thrown by this store, says of the database: full or unavailable (the server
    /// answers 503), or nil when it is about the request.
    func outage(_ error: any Error) -> StoreOutage?
}

/// The records themselves: ingest, read, revise, delete, move, and the change feed.
public protocol RecordDataStore: Sendable {
    // MARK: Records

    /// Stores each new record, recognises re-sent ones and refuses changed ones, all in one
    /// transaction: the batch is stored wholly or not at all.
    func ingest(_ items: [IngestItem], owner: RecordOwner, at time: Date) async throws -> [IngestOutcome]
    /// Reports the size and time of the group commits ``ingest(_:owner:at:)`` makes to `metrics`.
    func observeIngest(_ metrics: GroupCommitMetrics)
    /// A live record; nil for an unknown or deleted one (see ``tombstone(id:)``).
    func record(id: UUID) async throws -> StoredRecord?
    /// Every revision of a record, oldest first.
    func revisions(of id: UUID) async throws -> [RecordRevision]
    /// Saves a new revision if `baseRevision` is still the current one and the record belongs to `teamId`.
    func update(_ item: IngestItem, baseRevision: Int, teamId: Int64, savedBy: String, at time: Date) async throws -> UpdateOutcome
    /// Records of one team matching any of the query's fields, best matches first.
    func lookup(_ query: LookupQuery) async throws -> [LookupMatch]
    /// Up to `limit` live records of `teamId` whose id starts with `prefix` (lower-case hex and
    /// dashes): the short ids listings show.
    func records(idPrefix prefix: String, teamId: Int64, limit: Int) async throws -> [RecordIdMatch]

    // MARK: Deletion

    /// Deletes a record of `teamId` in one transaction: its answers, identification, revisions
    /// and lookup entry go, a tombstone stays (who, when, why), its change cursors move so
    /// incremental exports list it as removed, and the audit trail gets `record.delete`.
    func deleteRecord(id: UUID, teamId: Int64, reason: String, by user: String, at time: Date) async throws -> DeleteOutcome
    /// The tombstone of a deleted record; nil when the id is a live record or unknown.
    func tombstone(id: UUID) async throws -> Tombstone?
    /// Removes the tombstones of records deleted before `cutoff`, except those change cursors
    /// count from or referrals point to (see ``TombstonePurge/kept``), and audits the purge.
    func purgeTombstones(deletedBefore cutoff: Date, by user: String, at time: Date) async throws -> TombstonePurge

    // MARK: Transfers

    /// Moves records (or a patient and all their records) to another team in one transaction: the
    /// old team's change feed and incremental exports learn they left (an exit entry at its next
    /// cursor), the new team's count them as changed; the coordinators of both teams are notified;
    /// `record.transfer` goes on the audit trail for each record.
    func transfer(_ request: TransferRequest) async throws -> TransferOutcome

    // MARK: Change feed

    /// Up to `limit` of `teamId`'s records (live or deleted) whose latest change is after the
    /// team's cursor `after`, oldest change first, with the team's purge horizon, in one read.
    func changes(teamId: Int64, after: Int64, limit: Int) async throws -> ChangePage

}

/// Consistent views of the records for exports.
public protocol ExportStore: Sendable {
    /// A consistent view of the records as they are now, for one export: records that change
    /// while it is read keep their content in it, and show up in the next export. For a team
    /// (its cursor counts that team's changes only) or, with nil, for every team.
    func exportSnapshot(teamId: Int64?) async throws -> any ExportSnapshot
}

/// Secrets the server keeps in its store (keys for pseudonyms and signed links).
public protocol SecretStore: Sendable {
    /// A secret the server keeps under `name`, made of 32 random bytes on first use.
    func secret(named name: String) async throws -> Data

}

/// Published questionnaire versions and who sees their records: what ``QuestionnaireService``
/// needs of a store.
public protocol QuestionnaireStore: Sendable {
    /// Stores a questionnaire version; returns false when that version was already published.
    func publish(_ questionnaire: PublishedQuestionnaire) async throws -> Bool
    func questionnaire(id: String, version: String) async throws -> PublishedQuestionnaire?
    /// Every published version, newest first.
    func questionnaires() async throws -> [PublishedQuestionnaire]
    /// A version's state alone (what taking a record needs), or nil when it is not stored.
    func questionnaireStatus(id: String, version: String) async throws -> QuestionnaireStatus?
    /// Moves a version from state `from` to `to` in one transaction, with its audit event
    /// (`questionnaire.state`); false when it is not in state `from` any more (someone changed
    /// it meanwhile) or does not exist. Which changes are allowed is the service's to decide.
    func changeQuestionnaireState(
        id: String, version: String, from: QuestionnaireState, to: QuestionnaireState, by user: String, at time: Date
    ) async throws -> Bool
    /// Keeps a test record of a draft version apart from the records (no export, feed, lookup or
    /// count sees it), replacing one of the same id and team; true when it is new. Another
    /// team's of that id: ``RecordStoreError/alreadyExists(_:)``.
    func storeTestRecord(_ record: TestRecord) async throws -> Bool
    /// The test records of a version (of one team when given), newest first, without their answers.
    func testRecords(questionnaireId: String, version: String, teamId: Int64?) async throws -> [TestRecord]
    /// Deletes the test records of a version (of one team when given); how many.
    func deleteTestRecords(questionnaireId: String, version: String, teamId: Int64?) async throws -> Int
    /// Makes a questionnaire's records visible to the field workers who collected them only (and
    /// to coordinators), or to the whole team again. Every record of it counts as changed, so the
    /// change feed tells copies what they may now hold; audited with the change. Returns false
    /// when the setting was already so.
    func setCollectorOnly(questionnaireId: String, _ collectorOnly: Bool, by user: String, at time: Date) async throws -> Bool
    /// The questionnaires whose records field workers see only when they collected them.
    func collectorOnlyQuestionnaires() async throws -> Set<String>

}

/// Teams, users, tokens and sign-in failures: what ``AccountService`` needs of a store.
public protocol AccountStore: Sendable {
    /// Forms a team led by `leader` in one transaction: the team is created and `leader`, who must
    /// belong to no team at that moment, becomes its coordinator (its history says they joined).
    /// Two formations by one user at once make one team.
    func formTeam(name: String, leader: String, at time: Date) async throws -> TeamFormation
    func createTeam(name: String, at time: Date) async throws -> Team
    func teams() async throws -> [Team]
    func team(named name: String) async throws -> Team?
    /// Sets the team's time zone (nil: UTC); the team as it is now, nil when there is none.
    func setTeamTimeZone(teamId: Int64, _ timeZone: String?) async throws -> Team?
    func createUser(_ user: NewUser, at time: Date) async throws -> User
    func users() async throws -> [User]
    func credentials(username: String) async throws -> UserCredentials?
    func updateUser(username: String, _ change: UserChange) async throws -> User?
    /// Counts one more failed sign-in of `username` at `time`, in one atomic step (two servers
    /// may count at once), and locks the account when the count reaches `lockAfter`; nil for an
    /// unknown user.
    func recordSignInFailure(username: String, at time: Date, lockAfter: Int) async throws -> SignInFailures?
    /// Forgets the failed sign-ins of `username` after one succeeds (a lock stays).
    func clearSignInFailures(username: String) async throws
    func userCount() async throws -> Int
    func createToken(_ token: NewToken, at time: Date) async throws
    /// The user a token belongs to, if the token is known, unexpired and the user enabled.
    func user(tokenHash: String, now: Date) async throws -> User?
    func revokeToken(hash: String) async throws
    /// Revokes every session token of the user (those sign-in issued, named `session`), on
    /// every device: sign-out everywhere. Tokens made for scripts and machines stay. How many.
    func revokeSessions(userId: Int64) async throws -> Int
    /// The user's tokens, the newest first, expired ones too (until revoked).
    func tokens(userId: Int64) async throws -> [TokenSummary]
    /// Revokes the user's token named `id` (``TokenSummary/id``); whether there was one.
    func revokeToken(userId: Int64, id: String) async throws -> Bool
}

/// A failure of the store that the API reports as a client error.
/// A record found by the start of its id, with what collector-only visibility needs.
public struct RecordIdMatch: Sendable, Equatable {
    public var id: UUID
    public var questionnaireId: String
    public var collector: String

    public init(id: UUID, questionnaireId: String, collector: String) {
        self.id = id
        self.questionnaireId = questionnaireId
        self.collector = collector
    }
}

/// What became of forming a team.
public enum TeamFormation: Sendable, Equatable {
    case formed(Team)
    /// A team has that name already.
    case nameTaken
    /// The leader belongs to this team already (perhaps since a moment ago).
    case alreadyInTeam(String)
    case noSuchUser
}

public enum RecordStoreError: Error, Equatable, Sendable {
    /// A unique name (team, user) is taken.
    case alreadyExists(String)
    /// A referenced team or user does not exist.
    case notFound(String)
}

/// Enrolment codes and the machines enrolled with them.
public protocol DeviceStore: Sendable {
    /// Keeps a new enrolment code (its secret only as a hash); audited as `enrolment.create`.
    func createEnrolment(_ enrolment: NewEnrolment) async throws -> Enrolment
    /// The team's enrolment codes, newest first.
    func enrolments(teamId: Int64) async throws -> [Enrolment]
    /// Uses enrolment `id` in one transaction, by ``EnrolmentRules/redeem(_:secretMatches:lockAfter:at:)``
    /// (`matches` compares the secret with the stored hash): on success the code is used, the
    /// device kept with its token's hash, any earlier enrolment of the same device id revoked, and
    /// `device.enrol` audited. Two machines using one code at once: one is enrolled.
    func redeemEnrolment(id: String, device: NewDevice, at time: Date, lockAfter: Int, matches: @escaping @Sendable (String) -> Bool)
        async throws -> EnrolmentOutcome
    /// The devices of a team (every team's when nil), most recently enrolled first.
    func devices(teamId: Int64?) async throws -> [Device]
    /// The device a token belongs to, with its account as it is now; revoked ones too (the
    /// caller refuses them, saying so).
    func device(tokenHash: String) async throws -> (device: Device, user: User)?
    /// Revokes device `id` (of team `teamId` when given): its token stops. Audited as
    /// `device.revoke`; nil when there is no such device. Revoking twice keeps the first time.
    func revokeDevice(id: Int64, teamId: Int64?, by user: String, at time: Date) async throws -> Device?
    /// Keeps what a device reported: when seen, its last upload, its queue's size, its version.
    func noteDevice(id: Int64, _ report: DeviceReport) async throws
}
