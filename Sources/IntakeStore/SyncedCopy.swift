import Foundation
import IntakeCore

/// One change from the server's feed, as the synced copy applies it.
public enum SyncedChange: Sendable {
    /// The record as it is now on the server.
    case saved(PatientResponse, revision: Int, cursor: Int64, updatedAt: Date)
    /// Deleted on the server (or out of reach): the copy drops it.
    case removed(UUID, cursor: Int64)
}

/// A record of the synced copy: the server's record at a revision.
public struct SyncedRecord: Sendable {
    public var response: PatientResponse
    public var revision: Int
    public var updatedAt: Date
}

/// Where the synced copy stands: which server and team it copies, up to which cursor, and when
/// it last caught up.
public struct SyncState: Sendable, Equatable {
    public var server: String
    public var team: String
    public var cursor: Int64
    public var syncedAt: Date
    public var count: Int
}
