import Foundation
import IntakeClient
import IntakeCore
import IntakeStore

/// Finds a patient on the server and on this device: its drafts, queued records and the synced
/// copy of the team's records (`intake sync`).
public struct PatientFinder: Sendable {
    public let store: LocalStore
    public let client: IntakeClient?

    public init(store: LocalStore, client: IntakeClient?) {
        self.store = store
        self.client = client
    }

    /// Where a match was found.
    public enum Source: String, Sendable {
        case server, draft, queued, synced
    }

    public struct Match: Sendable {
        public var source: Source
        public var id: UUID
        public var patient: PatientIdentification
        /// The server revision, for server matches.
        public var revision: Int?
    }

    public struct Result: Sendable {
        public var matches: [Match]
        /// Why the server was not searched, if it was not.
        public var serverProblem: String?
    }

    public func find(_ criteria: LookupCriteria) async throws -> Result {
        var matches: [Match] = []
        var problem: String?
        var local: Set<UUID> = []
        for draft in try store.drafts() where Self.matches(draft.response.patient, criteria) {
            matches.append(Match(source: .draft, id: draft.response.id, patient: draft.response.patient, revision: draft.baseRevision))
            local.insert(draft.response.id)
        }
        var after: (Date, UUID)?
        while true {
            let page = try store.pending(limit: 200, after: after)
            for queued in page where Self.matches(queued.response.patient, criteria) && !local.contains(queued.response.id) {
                matches.append(
                    Match(source: .queued, id: queued.response.id, patient: queued.response.patient, revision: queued.entry.baseRevision))
                local.insert(queued.response.id)
            }
            guard let last = page.last, page.count == 200 else { break }
            after = (last.entry.enqueuedAt, last.entry.id)
        }
        var fromServer: [Match] = []
        if let client {
            do {
                for remote in try await client.lookup(criteria) {
                    guard let id = UUID(uuidString: remote.id), !local.contains(id) else { continue }
                    fromServer.append(Match(source: .server, id: id, patient: remote.patient, revision: remote.revision))
                    local.insert(id)
                }
            } catch {
                problem = error.description
            }
        } else {
            problem = "no server asked (offline, or none configured)"
        }
        // The synced copy fills in what the server did not answer (offline, or not asked).
        var fromCopy: [Match] = []
        for synced in try store.syncedRecords() where Self.matches(synced.response.patient, criteria) && !local.contains(synced.response.id)
        {
            fromCopy.append(Match(source: .synced, id: synced.response.id, patient: synced.response.patient, revision: synced.revision))
        }
        return Result(matches: matches + fromServer + fromCopy, serverProblem: problem)
    }

    /// Any given field matches: names folded for case and accents, partially; dates and ids exactly.
    static func matches(_ patient: PatientIdentification, _ criteria: LookupCriteria) -> Bool {
        // Names by the server's lookup keys: case, accents, spaces and Arabic letter variants do not count.
        func key(_ name: String) -> String { NameKey.lookupKey(name) }
        if let family = criteria.familyName, !family.isEmpty, key(patient.familyName).contains(key(family)) { return true }
        if let given = criteria.givenName, !given.isEmpty, key(patient.givenName).contains(key(given)) { return true }
        if let birth = criteria.dateOfBirth, patient.dateOfBirth == birth { return true }
        if let external = criteria.externalId, let id = patient.externalId, TextFold.fold(id) == TextFold.fold(external) { return true }
        return false
    }

    /// Opens a match as a draft to edit: a server record is loaded at its current revision; a queued
    /// record comes out of the queue into the drafts.
    public func open(_ match: Match) async throws -> Draft {
        switch match.source {
        case .draft:
            guard let draft = try store.draft(id: match.id) else { throw LocalStoreError("the draft is gone", fix: "search again") }
            return draft
        case .queued:
            return try store.takeOutOfQueue(id: match.id)
        case .synced:
            guard var synced = try store.syncedRecord(id: match.id)?.response, let revision = match.revision else {
                throw LocalStoreError("the record is no longer in the synced copy", fix: "search again")
            }
            synced.status = .draft
            let draft = Draft(response: synced, cursor: QuestionPosition(section: 0, index: 1), baseRevision: revision)
            try store.save(draft)
            return draft
        case .server:
            guard let client else { throw ClientError.offline("no server is configured") }
            var (record, revision) = try await client.record(id: match.id)
            record.status = .draft
            let draft = Draft(response: record, cursor: QuestionPosition(section: 0, index: 1), baseRevision: revision)
            try store.save(draft)
            return draft
        }
    }
}
