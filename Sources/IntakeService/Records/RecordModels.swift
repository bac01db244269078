import Foundation
import IntakeCore

/// A record ready to store: its canonical bytes (``RecordCodec``) and their SHA-256.
public struct IngestItem: Sendable {
    public private(set) var record: PatientResponse
    public private(set) var body: [UInt8]
    public private(set) var contentHash: String
    /// The patient's names as lookups find them (`NameKey.lookupKey`), worked out once, as the
    /// request is read, not in the store's writer.
    public private(set) var givenNameKey: String
    public private(set) var familyNameKey: String
    /// The device it was saved from (the client's `Intake-Device-Id`), kept with the revision.
    public var deviceId: String?
    /// The alerts the record raises (the keys of the questions whose `alert if` holds): stored
    /// with it, each as a notification to the team's coordinators, once per record and alert.
    public var alerts: [String] = []
    /// What the record does to cases (its openings and its visit: ``CaseService/caseWork(of:questionnaire:)``),
    /// worked out where it is checked and kept on its row, for the case service to follow the
    /// change feed without reading records again; nil: nothing.
    public var caseWork: String?
    /// The case the record names (`case.id`): kept on its row when it is deleted or moved, so
    /// the case service withdraws its visit from that case.
    public var followsCase: String? { record.caseLink.map { $0.id.uuidString.lowercased() } }

    public init(record: PatientResponse) {
        self.record = record
        self.body = RecordCodec.encode(record)
        self.contentHash = RecordCodec.contentHash(ofCanonical: body)
        self.givenNameKey = NameKey.lookupKey(record.patient.givenName)
        self.familyNameKey = NameKey.lookupKey(record.patient.familyName)
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
