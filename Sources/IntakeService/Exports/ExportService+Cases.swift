import Foundation
import IntakeCore
import IntakeExport

extension ExportService {
    /// The case files' columns for a prepared export: the lists the exported questionnaire opens
    /// or follows, and their properties as every published questionnaire declares them, less
    /// those the export may not hold.
    ///
    /// A property is identifying when a `property:` line says so, or when what sets it reads an
    /// identifying question (or an identifying property); it is free text when declared `text`,
    /// or when what sets it reads a text question. A de-identified export leaves identifying
    /// properties out, as it leaves the questions out; `dropFreeText` leaves free text out.
    public func caseColumns(_ prepared: Prepared) async throws -> ExportCaseColumns {
        var lists: [String] = []
        for version in prepared.plan.versions {
            let rules = version.cases
            for name in rules.opens.map(\.list) + [rules.follows?.list].compactMap({ $0 }) where !lists.contains(name) {
                lists.append(name)
            }
        }
        guard !lists.isEmpty else { return ExportCaseColumns(lists: [], properties: []) }
        var order: [String] = []
        var identifying = Set<String>()
        var freeText = Set<String>()
        /// What sets a property (or the due date: `nil`), for the taint that passes through `case.name` reads.
        var reads: [(property: String?, properties: [String])] = []
        var dueIdentifying = false
        func note(_ property: String) { if !order.contains(property) { order.append(property) } }
        /// What an expression reads: an identifying question (or the date of birth), a text
        /// question, and which case properties.
        func taint(_ value: BoundExpression, in questionnaire: Questionnaire) -> (identifying: Bool, text: Bool, properties: [String]) {
            var result = (identifying: false, text: false, properties: [String]())
            func question(_ question: Question) {
                if question.isIdentifying { result.identifying = true }
                if case .text = question.type { result.text = true }
            }
            for position in value.positions.values {
                switch position.section {
                case CaseRules.section:
                    let declared = questionnaire.cases.follows?.properties ?? []
                    if position.index >= 1, position.index <= declared.count { result.properties.append(declared[position.index - 1].name) }
                case 0:
                    // The patient's identification: the date of birth identifies, the sex does not.
                    if position != PatientIdentification.expressionFields["sex"] { result.identifying = true }
                default:
                    if let found = questionnaire.question(at: position) { question(found) }
                }
            }
            // A repeat's answers summed or counted: as identifying as any question asked in it.
            for read in value.repeated.values {
                for section in questionnaire.sections {
                    for member in section.questions where member.group == read.group { question(member) }
                }
            }
            return result
        }
        /// What sets a property (nil: the due date) of a list exported (`exported`), or of another
        /// list, whose properties may be read into one exported (by name: conservative where
        /// two lists share one).
        func assignment(_ property: String?, _ value: BoundExpression, in questionnaire: Questionnaire, exported: Bool = true) {
            if let property, exported { note(property) }
            if property == nil, !exported { return }
            let found = taint(value, in: questionnaire)
            if let property {
                if found.identifying { identifying.insert(property) }
                if found.text { freeText.insert(property) }
            } else if found.identifying {
                dueIdentifying = true
            }
            reads.append((property, found.properties))
        }
        let published = try await store.questionnaires().filter { $0.status.state != .draft }
        for entry in published {
            guard let questionnaire = try? await questionnaires.questionnaire(QuestionnaireReference(id: entry.id, version: entry.version))
            else { continue }
            let rules = questionnaire.cases
            for opening in rules.opens {
                let exported = lists.contains(opening.list)
                for set in opening.assignments { assignment(set.property, set.value, in: questionnaire, exported: exported) }
                if let due = opening.due { assignment(nil, due, in: questionnaire, exported: exported) }
            }
            guard let follows = rules.follows else { continue }
            // Whatever the list: a property of another list read into one of these carries its kind.
            for property in follows.properties {
                if lists.contains(follows.list) { note(property.name) }
                if property.isIdentifying { identifying.insert(property.name) }
                if case .text = property.type { freeText.insert(property.name) }
            }
            let exported = lists.contains(follows.list)
            for set in follows.assignments { assignment(set.property, set.value, in: questionnaire, exported: exported) }
            if let due = follows.due { assignment(nil, due, in: questionnaire, exported: exported) }
        }
        // A property set from an identifying (or free-text) property is one too.
        var changed = true
        while changed {
            changed = false
            for (property, from) in reads {
                guard let property else {
                    if from.contains(where: identifying.contains) { dueIdentifying = true }
                    continue
                }
                if !identifying.contains(property), from.contains(where: identifying.contains) {
                    identifying.insert(property)
                    changed = true
                }
                if !freeText.contains(property), from.contains(where: freeText.contains) {
                    freeText.insert(property)
                    changed = true
                }
            }
        }
        let options = prepared.plan.options
        let kept = order.filter {
            (options.includeIdentifiers || !identifying.contains($0)) && !(options.dropFreeText && freeText.contains($0))
        }
        var columns = ExportCaseColumns(lists: lists, properties: kept)
        // A due date worked out from the date of birth (or another identifying answer) would tell it.
        columns.dueLeftOut = dueIdentifying && !options.includeIdentifiers
        return columns
    }

    /// The cases a prepared export reaches, a page at a time: the cases of `columns`' lists of
    /// its team (every team's for a researcher's), of patients whose consent and data groups the
    /// export's records obey, keyed and de-identified as they are. Every case, open or closed,
    /// whatever changed since an earlier export (as the reports); cases whose opening record was
    /// deleted keep nothing and are left out.
    public final class CasePager {
        let prepared: Prepared
        let columns: ExportCaseColumns
        let store: any ExportService.Store
        private var teams: [Int64]?
        private var after: Int64 = 0
        private var patients: [UUID: Patient?] = [:]
        /// The cases written already: one changed while the pass reads moves behind it, and is
        /// not written twice.
        private var seen: Set<UUID> = []
        let limit = 500

        init(_ prepared: Prepared, columns: ExportCaseColumns, store: any ExportService.Store) {
            self.prepared = prepared
            self.columns = columns
            self.store = store
        }

        public func next() async throws -> [ExportCase]? {
            if columns.lists.isEmpty { return nil }
            if teams == nil {
                if let team = prepared.query.teamId {
                    teams = [team]
                } else {
                    teams = try await store.teams().map(\.id).sorted()
                }
            }
            while let team = teams?.first {
                let page = try await store.teamCases(teamId: team, changedAfter: after, limit: limit)
                if page.count < limit {
                    teams?.removeFirst()
                    after = 0
                } else if let last = page.last {
                    after = last.changeSeq
                }
                var exported: [ExportCase] = []
                for stored in page where !stored.erased && columns.lists.contains(stored.list) && seen.insert(stored.id).inserted {
                    guard try await reaches(stored) else { continue }
                    exported.append(
                        ExportCase(
                            Self.facts(of: stored), columns: columns, keyer: prepared.keyer, options: prepared.plan.options))
                }
                if !exported.isEmpty { return exported }
            }
            return nil
        }

        /// Whether the export may hold the case: its patient's consent shares with a researcher
        /// (a case without a registry patient as the records without one), and the patient is
        /// in one of the asked data groups, when some are.
        private func reaches(_ stored: StoredCase) async throws -> Bool {
            let consent = prepared.query.consent
            let groups = prepared.query.dataGroups
            guard consent != nil || !groups.isEmpty else { return true }
            guard let patientId = stored.patientId else { return groups.isEmpty && (consent?.includeUnlinked ?? true) }
            let patient: Patient?
            if let known = patients[patientId] {
                patient = known
            } else {
                patient = try await store.patient(id: patientId)
                patients[patientId] = patient
            }
            guard let patient else { return false }
            if let consent, !consent.scopes.contains(patient.effectiveScope) { return false }
            return groups.isEmpty || patient.dataGroups.contains(where: groups.contains)
        }

        /// The case whole, with what set its properties in the order made.
        static func facts(of stored: StoredCase) -> ExportCase.Facts {
            let opening = stored.opening
            let openedBy = opening.recordId == stored.id ? nil : opening.recordId
            var history: [ExportCase.Change] = []
            for (name, value) in opening.properties.sorted(by: { $0.key < $1.key }) {
                history.append(
                    ExportCase.Change(
                        at: opening.at, source: .opened, recordId: openedBy, by: opening.collector, property: name, value: value))
            }
            if let due = opening.due {
                history.append(
                    ExportCase.Change(
                        at: opening.at, source: .opened, recordId: openedBy, by: opening.collector, property: "due", value: .date(due),
                        kind: .due))
            }
            enum Step {
                case visit(CaseVisit)
                case change(CaseStatusChange)
                var at: Date {
                    switch self {
                    case .visit(let visit): visit.at
                    case .change(let change): change.at
                    }
                }
            }
            let visits = stored.visits.filter { !$0.withdrawn }
            let recorded = stored.recordVisits
            // As the fold orders them: visits by time (and record), a coordinator's change before a visit of its time.
            let steps =
                (visits.map(Step.visit) + stored.statusChanges.map(Step.change)).enumerated().sorted { a, b in
                    if a.element.at != b.element.at { return a.element.at < b.element.at }
                    switch (a.element, b.element) {
                    case (.visit(let x), .visit(let y)): return x.recordId.uuidString < y.recordId.uuidString
                    case (.change, .visit): return true
                    case (.visit, .change): return false
                    case (.change, .change): return a.offset < b.offset
                    }
                }.map(\.element)
            var closed = false
            for step in steps {
                switch step {
                case .visit(let visit):
                    // A change by hand is a coordinator's, and names no record.
                    let source: ExportCase.Change.Source = visit.byHand ? .coordinator : .visit
                    let record = visit.byHand ? nil : visit.recordId
                    func change(_ property: String, _ value: Answer, kind: ExportCase.Change.Kind = .property) {
                        history.append(
                            ExportCase.Change(
                                at: visit.at, source: source, recordId: record, by: visit.collector, property: property, value: value,
                                kind: kind))
                    }
                    for (name, value) in visit.properties.sorted(by: { $0.key < $1.key }) { change(name, value) }
                    if let due = visit.due { change("due", .date(due), kind: .due) }
                    if !visit.byHand, visit.closes != closed {
                        closed = visit.closes
                        change("status", .text(closed ? "closed" : "open"), kind: .status)
                    }
                case .change(let change):
                    if change.closed != closed {
                        closed = change.closed
                        history.append(
                            ExportCase.Change(
                                at: change.at, source: .coordinator, recordId: nil, by: change.by, property: "status",
                                value: .text(closed ? "closed" : "open"), kind: .status))
                    }
                }
            }
            return ExportCase.Facts(
                id: stored.id, list: stored.list, patientId: stored.patientId, patient: opening.patient, openedBy: openedBy,
                openedAt: opening.at, collector: opening.collector, assignee: stored.assignee, status: stored.status.rawValue,
                due: stored.due,
                revision: stored.revision, visits: recorded.count, lastVisitAt: recorded.map(\.at).max(),
                conflicts: Array(Set(stored.conflicts.map(\.property))), properties: stored.properties, history: history)
        }
    }

    /// The visits of the cases of `lists` that records opened, by the opening record's id: the
    /// visits' record ids in the order made (withdrawn visits and changes by hand aside), of
    /// `teamId`'s cases (every team's when nil). What the REDCap façade repeats under a record.
    public func caseVisits(teamId: Int64?, lists: Set<String>) async throws -> [UUID: [UUID]] {
        guard !lists.isEmpty else { return [:] }
        let teams: [Int64]
        if let teamId { teams = [teamId] } else { teams = try await store.teams().map(\.id) }
        var visits: [UUID: [(at: Date, id: UUID)]] = [:]
        for team in teams {
            var after: Int64 = 0
            while true {
                let page = try await store.teamCases(teamId: team, changedAfter: after, limit: 500)
                for stored in page where lists.contains(stored.list) && !stored.erased && !stored.openedByHand {
                    if !stored.recordVisits.isEmpty {
                        visits[stored.opening.recordId, default: []] += stored.recordVisits.map { ($0.at, $0.recordId) }
                    }
                }
                guard page.count == 500, let last = page.last else { break }
                after = last.changeSeq
            }
        }
        // In the order made, whichever of the record's cases each visits.
        return visits.mapValues { $0.sorted { ($0.at, $0.id.uuidString) < ($1.at, $1.id.uuidString) }.map(\.id) }
    }

    /// Pages of the cases a prepared export reaches (``CasePager``).
    public func casePager(_ prepared: Prepared, columns: ExportCaseColumns) -> CasePager {
        CasePager(prepared, columns: columns, store: store)
    }

    /// The case files of a prepared export, each written from its own pass over the cases.
    public func caseSource(_ prepared: Prepared) async throws -> ExportCaseSource {
        let columns = try await caseColumns(prepared)
        let service = self
        return ExportCaseSource(columns: columns) { file, write in
            let pager = service.casePager(prepared, columns: columns)
            return try await CaseFiles.stream(
                file, columns: columns, options: prepared.plan.options, nextPage: { try await pager.next() }, write: write)
        }
    }
}
