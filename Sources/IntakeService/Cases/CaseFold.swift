import Foundation
import IntakeCore

/// How a case's state follows from what opened it and its visits: the one rule, in one place.
///
/// - Visits apply in the order they were **made** (their record's `createdAt`, then the record's
///   id), not the order they arrived: a visit flushed a week late does not undo the visits made
///   after it.
/// - Each property a visit sets takes that value; one it does not set keeps its value. The due
///   date likewise. Whether the case is open follows the latest visit (a visit that closes it,
///   or one that does not).
/// - Two visits **saw neither the other** when each was made from a revision the other's arrival
///   had not reached (two machines offline with the same case). Where such visits leave a property,
///   or the case's status, different, the property is flagged as a conflict, naming the visits;
///   nothing is lost (both records are kept, both visits stay in the case).
/// - A coordinator's closing (or opening again) takes its place among the visits by its time; so
///   does a change of properties by hand (an ODK entity's update), which is folded as a visit
///   that sets those properties and leaves the status as it is.
/// - A case whose opening record was deleted is closed, and keeps no properties.
/// - A visit whose record was deleted, or moved to another team, is withdrawn: it keeps its
///   revision and nothing else, and the case is what its other visits make it.
public enum CaseFold {
    /// The case with `visit` recorded: a new visit takes the next revision; a visit already
    /// recorded (its record sent again, or edited) is replaced and keeps its arrival.
    public static func recording(_ visit: CaseVisit, in stored: StoredCase, at time: Date) -> StoredCase {
        var next = stored
        var visit = visit
        if let index = next.visits.firstIndex(where: { $0.recordId == visit.recordId }) {
            visit.arrivalRevision = next.visits[index].arrivalRevision
            next.visits[index] = visit
        } else {
            visit.arrivalRevision = (next.visits.map(\.arrivalRevision).max() ?? 1) + 1
            next.visits.append(visit)
        }
        next.updatedAt = time
        return folded(next)
    }

    /// The case as it stood at `revision`, as a machine that read it then saw it: its opening and
    /// the visits that had arrived by then (`stored` itself at its revision or later).
    public static func asOf(_ revision: Int, _ stored: StoredCase) -> StoredCase {
        guard revision < stored.revision, revision >= 1 else { return stored }
        var past = stored
        past.visits = stored.visits.filter { $0.arrivalRevision <= revision }
        return folded(past)
    }

    /// The state `stored`'s opening and visits give.
    public static func folded(_ stored: StoredCase) -> StoredCase {
        var state = stored
        state.properties = stored.opening.properties
        state.due = stored.opening.due
        state.status = .open
        state.revision = (stored.visits.map(\.arrivalRevision).max() ?? 1)
        let ordered = stored.visits.filter { !$0.withdrawn }.sorted { ($0.at, $0.recordId.uuidString) < ($1.at, $1.recordId.uuidString) }
        // A coordinator's closing or reopening takes its place among the visits by its time.
        var changes = stored.statusChanges.sorted { $0.at < $1.at }[...]
        func applyChanges(before time: Date?) {
            while let change = changes.first, time.map({ change.at <= $0 }) ?? true {
                state.status = change.closed ? .closed : .open
                changes.removeFirst()
            }
        }
        for visit in ordered {
            applyChanges(before: visit.at)
            for (name, value) in visit.properties { state.properties[name] = value }
            if let due = visit.due { state.due = due }
            // A change by hand sets properties; only a visit opens or closes the case.
            if !visit.byHand { state.status = visit.closes ? .closed : .open }
        }
        applyChanges(before: nil)
        state.conflicts = conflicts(ordered)
        if stored.erased {
            state.status = .closed
            state.properties = [:]
            state.due = nil
            state.conflicts = []
        }
        return state
    }

    /// The case deleted (its opening record deleted, or, opened by hand, deleted itself): closed,
    /// keeping nothing of the patient (who, what was set, when due); its visits keep their places.
    public static func erased(_ stored: StoredCase, at time: Date) -> StoredCase {
        var next = stored
        next.erased = true
        next.opening.patient = PatientIdentification()
        next.opening.properties = [:]
        next.opening.due = nil
        next.patientId = nil
        for index in next.visits.indices { next.visits[index].properties = [:] }
        next.updatedAt = time
        return folded(next)
    }

    /// The properties visits that saw neither the other left different, each with the visits.
    static func conflicts(_ ordered: [CaseVisit]) -> [CaseConflict] {
        var byProperty: [String: [UUID]] = [:]
        func flag(_ property: String, _ a: CaseVisit, _ b: CaseVisit) {
            var ids = byProperty[property] ?? []
            for id in [a.recordId, b.recordId] where !ids.contains(id) { ids.append(id) }
            byProperty[property] = ids
        }
        for (i, a) in ordered.enumerated() {
            for b in ordered[(i + 1)...] where !a.saw(b) && !b.saw(a) {
                for (name, value) in a.properties where b.properties[name].map({ $0 != value }) == true { flag(name, a, b) }
                if a.closes != b.closes, !a.byHand, !b.byHand { flag("status", a, b) }
            }
        }
        let order = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1.recordId, $0) })
        return byProperty.keys.sorted().map { property in
            CaseConflict(property: property, recordIds: byProperty[property]!.sorted { order[$0]! < order[$1]! })
        }
    }
}
