import Foundation
import IntakeCore

/// What someone may want to do with one record.
public enum RecordAction: String, Sendable, CaseIterable {
    /// Read it and its revisions.
    case read
    /// Save a new revision.
    case edit
    /// Delete it (leaving a tombstone).
    case delete
    /// Refer it to a colleague or another team.
    case refer
    /// Move it to another team.
    case transfer
    /// Give, list or revoke grants on it.
    case grant
    /// Set its review state (has issues, approved, rejected), lock or reopen it.
    case review
    /// Read its review thread and add to it: whoever reads the record, and admins.
    case readReview
}

/// What the policy needs to know of a record to decide: its team, its collector, whether its
/// questionnaire is collector-only, whether it is deleted, and what a referral or grant gives the
/// actor on it (read and edit, each only when the record is another team's or hidden).
public struct RecordFacts: Sendable, Equatable {
    public var teamId: Int64
    public var collector: String
    public var collectorOnly: Bool
    public var deleted: Bool
    /// An open or accepted referral of it to the actor (or their team, for its coordinators).
    public var referral: (read: Bool, edit: Bool)
    /// An unexpired, unrevoked grant of it to the actor or their team.
    public var grant: (read: Bool, edit: Bool)

    public init(
        teamId: Int64, collector: String, collectorOnly: Bool = false, deleted: Bool = false,
        referral: (read: Bool, edit: Bool) = (false, false),
        grant: (read: Bool, edit: Bool) = (false, false)
    ) {
        self.teamId = teamId
        self.collector = collector
        self.collectorOnly = collectorOnly
        self.deleted = deleted
        self.referral = referral
        self.grant = grant
    }

    public static func == (a: RecordFacts, b: RecordFacts) -> Bool {
        a.teamId == b.teamId && a.collector == b.collector && a.collectorOnly == b.collectorOnly && a.deleted == b.deleted
            && a.referral == b.referral && a.grant == b.grant
    }
}

/// The policy's answer.
public enum AccessDecision: Sendable, Equatable {
    case allowed
    /// 404: the actor may not know the record exists.
    case notFound
    /// 410: the actor could see it, and it was deleted.
    case gone
    /// 403 with a code saying why (the actor sees it, and may not do this).
    case forbidden(code: String)
}

/// Who may do what with a record: the one place that decides it, for every route.
///
/// - Its team's field workers and coordinators see it, except that on a collector-only
///   questionnaire a field worker sees only the records they collected.
/// - Deleting, transferring and granting are its team's coordinators' (the routes admit only them).
/// - Outside its team (or hidden by collector-only), a referral to the actor or an unexpired grant
///   lets them read it, and edit it when the referral or grant allows editing; a referral or grant
///   never lets them delete, transfer, grant or refer it on.
/// - Reviewing (setting its review state, locking, reopening) is its team's coordinators' and
///   the deployment's admins'; a member who is not is refused (403), a referral or grant never
///   gives it.
/// - Anyone else is told it does not exist (404); who could see it is told it was deleted (410).
public enum RecordAccessPolicy {
    /// Whether the record's own team's member sees it (collector-only hides another field worker's).
    public static func teamSees(_ user: User, _ record: RecordFacts) -> Bool {
        user.teamId == record.teamId && sees(user, collectorOnly: record.collectorOnly, collector: record.collector)
    }

    /// Whether `user` sees questionnaire versions still in draft (to try them before publishing):
    /// those who manage questionnaires, coordinators and admins. Field workers see what is published.
    public static func seesDraftQuestionnaires(_ user: User) -> Bool {
        user.role == .coordinator || user.role == .admin
    }

    /// For lists of the team's own records (lookup, the change feed): whether a member sees one.
    public static func sees(_ user: User, collectorOnly: Bool, collector: String) -> Bool {
        !collectorOnly || user.role != .fieldworker || collector == user.username
    }

    /// Whether deciding needs what a referral or grant gives (the record is not plainly the
    /// actor's team's): the caller may then skip reading them.
    public static func needsReferralsAndGrants(_ user: User, _ record: RecordFacts) -> Bool { !teamSees(user, record) }

    public static func decide(_ action: RecordAction, by user: User, on record: RecordFacts) -> AccessDecision {
        let inTeam = user.teamId == record.teamId
        let member = teamSees(user, record)
        switch action {
        case .read, .edit:
            if member { return record.deleted ? .gone : .allowed }
            let outsideRead = record.referral.read || record.grant.read
            // A deleted record is "gone" to whoever could read it, its team's members included.
            if record.deleted { return inTeam || outsideRead ? .gone : .notFound }
            guard outsideRead else { return .notFound }
            guard action == .edit else { return .allowed }
            if record.referral.edit || record.grant.edit { return .allowed }
            return .forbidden(code: record.referral.read && !record.grant.read ? "read_only_referral" : "read_only_grant")
        case .delete, .transfer, .grant:
            guard inTeam else { return .notFound }
            return record.deleted ? .gone : .allowed
        case .refer:
            guard member, !record.deleted else { return .notFound }
            return .allowed
        case .review:
            if user.role == .admin { return record.deleted ? .gone : .allowed }
            guard member else {
                if record.deleted { return inTeam ? .gone : .notFound }
                return record.referral.read || record.grant.read ? .forbidden(code: "not_a_reviewer") : .notFound
            }
            if record.deleted { return .gone }
            return user.role == .coordinator ? .allowed : .forbidden(code: "not_a_reviewer")
        case .readReview:
            if user.role == .admin { return record.deleted ? .gone : .allowed }
            return decide(.read, by: user, on: record)
        }
    }
}

/// Which records an export may hold, as ``RecordAccessPolicy/export(by:includeIdentifiers:unlinkedRecordsReachResearchers:)`` decides.
public struct ExportReach: Sendable, Equatable {
    /// The team whose records it holds; nil for every team's.
    public var teamId: Int64?
    /// What each patient's consent must share with the exporter; nil when consent does not narrow it.
    public var consent: ConsentFilter?

    public init(teamId: Int64?, consent: ConsentFilter?) {
        self.teamId = teamId
        self.consent = consent
    }
}

extension RecordAccessPolicy {
    /// Who may export what. Coordinators export their own team's records and may include
    /// identifiers; researchers export every team's records (or their own team's, when they belong
    /// to one), always de-identified, and only what each patient's consent shares with their
    /// access level (records linked to no patient only where the deployment says so).
    /// `.forbidden` says why another may not.
    public static func export(by user: User, includeIdentifiers: Bool, unlinkedRecordsReachResearchers: Bool) -> Result<
        ExportReach, ExportRefusal
    > {
        switch user.role {
        case .coordinator:
            guard user.teamId != nil else { return .failure(.noTeam) }
            return .success(ExportReach(teamId: user.teamId, consent: nil))
        case .researcher:
            guard !includeIdentifiers else { return .failure(.identifiers) }
            let consent = ConsentFilter(scopes: (user.researchAccess ?? .external).scopes, includeUnlinked: unlinkedRecordsReachResearchers)
            return .success(ExportReach(teamId: user.teamId, consent: consent))
        case .fieldworker, .admin:
            return .failure(.role)
        }
    }
}

extension RecordAccessPolicy {
    /// Whether an export `reach` may hold a file of a record: a record of its team (every team's
    /// when it has none) that its consent filter reaches, as the export's records are chosen. A
    /// researcher never receives a file of a question marked identifying (a photo of a document,
    /// a signature), as a de-identified export leaves those answers out.
    public static func exportsFile(_ reach: ExportReach, recordTeam: Int64, linked: Bool, scope: SharingScope?, identifying: Bool) -> Bool {
        if let team = reach.teamId, team != recordTeam { return false }
        guard let consent = reach.consent else { return true }
        if identifying { return false }
        guard linked else { return consent.includeUnlinked }
        guard let scope else { return false }
        return consent.scopes.contains(scope)
    }
}

/// Why an export is refused (each a 403).
public enum ExportRefusal: Error, Sendable, Equatable {
    /// Only coordinators and researchers export.
    case role
    /// Only coordinators export identifiers.
    case identifiers
    /// A coordinator of no team has no records to export.
    case noTeam
}

/// What someone may want to do with a case.
public enum CaseAction: String, Sendable, CaseIterable {
    /// See it: its properties, its patient, its visits.
    case read
    /// Give it to a field worker, or back to the team.
    case assign
    /// Close it (or open it again) without a visit.
    case close
    /// Change its properties by hand, or delete a case opened by hand (an ODK entity's update and deletion).
    case update
    /// Name it as the case a follow-up record visits (an ODK submission picks it by id): a visit
    /// made offline keeps its case though the case was closed since, or given to another after
    /// the visitor opened it (the ODK façade asks this; a record sent to `POST /v1/records`
    /// names its case unchecked, and the case service folds it into a case of its own team only).
    case visit
}

extension RecordAccessPolicy {
    /// Who may see and change a case, the one place that decides it:
    /// - its team's coordinators see every case of the team, open or closed, and assign and close them;
    /// - a field worker of the team sees the open cases assigned to them or left to the team (a
    ///   closed case, or one assigned to another, is not theirs to know: 404), and may only read;
    ///   a follow-up of theirs visits such a case though it was closed since, and a case whose
    ///   opening record is theirs though it was given to another since (`hadIt`);
    /// - anyone else (another team, admins, researchers, who export instead) is told it does not exist.
    public static func decide(
        _ action: CaseAction, by user: User, onCaseOf teamId: Int64, assignee: String?, isOpen: Bool, hadIt: Bool = false
    ) -> AccessDecision {
        guard user.teamId == teamId else { return .notFound }
        switch user.role {
        case .coordinator: return .allowed
        case .fieldworker:
            if action == .visit, assignee == nil || assignee == user.username || hadIt { return .allowed }
            guard isOpen, assignee == nil || assignee == user.username else { return .notFound }
            return action == .read ? .allowed : .forbidden(code: "not_a_coordinator")
        case .admin, .researcher: return .notFound
        }
    }

    /// Which of its team's open cases `user`'s pull holds: a field worker's own and the team's
    /// (`visibleTo` their name), a coordinator's every one (nil); nil for anyone else (403).
    public static func casePull(by user: User) -> (teamId: Int64, visibleTo: String?)? {
        guard let team = user.teamId else { return nil }
        switch user.role {
        case .fieldworker: return (team, user.username)
        case .coordinator: return (team, nil)
        case .admin, .researcher: return nil
        }
    }
}
