import Foundation

/// Reads what ``RecordAccessPolicy`` needs of one record and applies it: every route that acts
/// on one record asks here, and gets the record or the refusal to give (not found, deleted, forbidden).
public struct RecordAccessService: Sendable {
    /// The facts the policy reads: the record (or its tombstone), referrals, grants and the
    /// collector-only questionnaires.
    public typealias Store = RecordDataStore & ReferralStore & GrantStore & QuestionnaireStore
    let store: any Store
    let clock: @Sendable () -> Date

    public init(store: any Store, clock: @escaping @Sendable () -> Date) {
        self.store = store
        self.clock = clock
    }

    /// The questionnaires whose records `user` sees only when they collected them: the
    /// collector-only ones for a field worker, none for anyone else.
    public func collectorOnly(for user: User) async throws -> Set<String> {
        guard user.role == .fieldworker else { return [] }
        return try await store.collectorOnlyQuestionnaires()
    }

    /// The facts of a stored record or tombstone; what referrals and grants give only when the
    /// record is not plainly the user's team's (the common case reads nothing more).
    func facts(_ id: UUID, stored: StoredRecord?, tombstone: Tombstone?, for user: User) async throws -> RecordFacts? {
        let questionnaire: String
        var facts: RecordFacts
        if let stored {
            questionnaire = stored.record.questionnaire.id
            facts = RecordFacts(teamId: stored.teamId, collector: stored.collector)
        } else if let tombstone {
            questionnaire = tombstone.questionnaireId
            facts = RecordFacts(teamId: tombstone.teamId, collector: "", deleted: true)
        } else {
            return nil
        }
        facts.collectorOnly = try await collectorOnly(for: user).contains(questionnaire)
        if RecordAccessPolicy.needsReferralsAndGrants(user, facts), let team = user.teamId {
            facts.referral = try await store.referralAccess(recordId: id, username: user.username, teamId: team, role: user.role)
            if !facts.referral.edit {
                facts.grant = try await store.grantAccess(recordId: id, username: user.username, teamId: team, now: clock())
            }
        }
        return facts
    }

    /// The live record, when `user` may do `action` with it; otherwise throws what to answer.
    public func record(_ id: UUID, for action: RecordAction, by user: User) async throws -> StoredRecord {
        let stored = try await store.record(id: id)
        let tombstone = stored == nil ? try await store.tombstone(id: id) : nil
        guard let facts = try await facts(id, stored: stored, tombstone: tombstone, for: user) else { throw ServiceError.noRecord(id) }
        switch RecordAccessPolicy.decide(action, by: user, on: facts) {
        case .allowed:
            guard let stored else { throw ServiceError.noRecord(id) }
            return stored
        case .notFound: throw ServiceError.noRecord(id)
        case .gone:
            guard let tombstone else { throw ServiceError.noRecord(id) }
            throw ServiceError.deleted(tombstone)
        case .forbidden(let code): throw Self.forbidden(code)
        }
    }

    /// The error for a record that is gone, when `user` could have seen it; not found otherwise.
    /// For store operations that found no live record of the team (it was deleted meanwhile).
    public func missing(_ id: UUID, for action: RecordAction, by user: User) async throws -> ServiceError {
        guard let tombstone = try await store.tombstone(id: id),
            let facts = try await facts(id, stored: nil, tombstone: tombstone, for: user),
            RecordAccessPolicy.decide(action, by: user, on: facts) == .gone
        else { return .noRecord(id) }
        return .deleted(tombstone)
    }

    static func forbidden(_ code: String) -> ServiceError {
        switch code {
        case "read_only_referral":
            .forbidden("the referral lets you read this record, not edit it; ask the referrer", code: code)
        case "read_only_grant":
            .forbidden("your grant lets you read this record, not edit it; ask its team's coordinator", code: code)
        case "not_a_reviewer":
            .forbidden("records are reviewed by their team's coordinators (and admins); ask one of them", code: code)
        default:
            .forbidden("you may not do this with this record", code: code)
        }
    }
}

/// Grants: access to one record beyond its team, given, listed and revoked by its coordinators.
extension RecordAccessService {
    public func createGrant(_ grant: NewGrant) async throws -> GrantOutcome { try await store.createGrant(grant) }
    public func grants(recordId: UUID) async throws -> [RecordGrant] { try await store.grants(recordId: recordId) }
    public func revokeGrant(id: UUID, recordId: UUID, by user: String) async throws -> RecordGrant? {
        try await store.revokeGrant(id: id, recordId: recordId, by: user, at: clock())
    }
    public func grantsReceived(by user: User) async throws -> [RecordGrant] {
        try await store.grantsReceived(username: user.username, teamId: user.teamId, now: clock())
    }

    /// Whether a questionnaire is collector-only.
    public func isCollectorOnly(_ questionnaireId: String) async throws -> Bool {
        try await store.collectorOnlyQuestionnaires().contains(questionnaireId)
    }

    /// The records whose id starts with `prefix` that `user` sees: their team's (a collector-only
    /// questionnaire's record of another field worker left out, as everywhere), then another
    /// team's referred to their team or granted to them or their team, when the policy lets
    /// them read it. The short ids listings show, turned back into whole ones. At most `limit`.
    public func records(idPrefix prefix: String, by user: User, teamId: Int64, limit: Int) async throws -> [UUID] {
        let prefix = prefix.lowercased()
        let hidden = try await collectorOnly(for: user)
        var ids = try await store.records(idPrefix: prefix, teamId: teamId, limit: limit)
            .filter { RecordAccessPolicy.sees(user, collectorOnly: hidden.contains($0.questionnaireId), collector: $0.collector) }
            .map(\.id)
        guard ids.count < limit else { return ids }
        let referred = try await store.referrals(ReferralFilter(toTeamId: teamId)).map(\.recordId)
        let granted = try await store.grantsReceived(username: user.username, teamId: teamId, now: clock()).map(\.recordId)
        for id in Set(referred + granted).sorted(by: { $0.uuidString < $1.uuidString })
        where ids.count < limit && !ids.contains(id) && id.uuidString.lowercased().hasPrefix(prefix) {
            // Reachable only if the policy says so (a revoked grant, a declined referral: not).
            if (try? await record(id, for: .read, by: user)) != nil { ids.append(id) }
        }
        return ids
    }
}
