import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
import IntakeStore

/// The cases this machine's account follows, kept sealed in the local store (like the registry's
/// copy), brought up to date by `intake cases pull` from where the last pull stopped, and read
/// offline by `intake cases list|show` and `intake fill --case`.
///
/// A pull asks only for the cases changed since the copy's cursor; its last page names every
/// open case the account follows, and the copy drops the others (closed, or given to someone
/// else). A copy of another server or account starts again from the beginning.
public struct CaseCopy: Sendable {
    public let store: LocalStore
    static let document = "cases"

    public init(store: LocalStore) {
        self.store = store
    }

    public struct Summary: Sendable, Equatable {
        /// Cases new or changed on this machine.
        public var received = 0
        /// Cases dropped: closed, or no longer the account's.
        public var dropped = 0
        public var total = 0
    }

    /// Brings the copy up to date; what changed.
    @discardableResult
    public func pull(from client: IntakeClient, user: String) async throws -> Summary {
        let server = client.baseURL.absoluteString
        var copy = try load() ?? FollowedCase.Copy(server: server, user: user, cursor: 0, cases: [])
        if copy.server != server || copy.user != user { copy = FollowedCase.Copy(server: server, user: user, cursor: 0, cases: []) }
        let before = Set(copy.cases.map(\.id))
        var received = 0
        var pages: [FollowedCase.Page] = []
        var cursor = copy.cursor
        while true {
            let page = try await client.cases(after: cursor, limit: 1000)
            received += page.cases.count
            pages.append(page)
            cursor = max(cursor, page.cursor)
            if !page.more { break }
        }
        copy = copy.applying(pages)
        try store.saveDocument(Self.document, Data(copy.encoded()))
        let after = Set(copy.cases.map(\.id))
        return Summary(received: received, dropped: before.subtracting(after).count, total: copy.cases.count)
    }

    /// A follow-up completed on this machine, applied to its copy of the case: what it sets, its
    /// due date; a visit that closes the case takes it off the machine. The next pull brings the
    /// server's word; meanwhile a second visit made here reads what the first one left.
    public func recordVisit(_ record: PatientResponse, questionnaire: Questionnaire) throws {
        guard let update = questionnaire.caseEffects(of: record).update, var copy = try load(),
            let index = copy.cases.firstIndex(where: { $0.id == update.caseId })
        else { return }
        if update.closes {
            copy.cases.remove(at: index)
        } else {
            for (name, value) in update.properties { copy.cases[index].properties[name] = value }
            if let due = update.due { copy.cases[index].due = due }
            copy.cases[index].visits += 1
        }
        try store.saveDocument(Self.document, Data(copy.encoded()))
    }

    /// The copy; nil before the first pull.
    public func load() throws -> FollowedCase.Copy? {
        guard let (data, _) = try store.document(Self.document) else { return nil }
        do {
            return try FollowedCase.Copy.decode(data)
        } catch {
            throw FieldworkError(
                "the cases kept on this machine cannot be read (\(error.message)); run 'intake cases pull' to fetch them again")
        }
    }

    /// The case `reference` names in the copy: its id or first characters (as listings show
    /// them), or the patient's name (given, family or both, ignoring case); one case only.
    public func find(_ reference: String) throws -> FollowedCase {
        guard let copy = try load() else {
            throw FieldworkError("this machine holds no cases yet; run 'intake cases pull' while the server can be reached")
        }
        let text = reference.trimmingCharacters(in: .whitespaces)
        let lowered = text.lowercased()
        var matches = ShortId.isPrefix(lowered) ? copy.cases.filter { $0.id.uuidString.lowercased().hasPrefix(lowered) } : []
        if matches.isEmpty {
            let key = NameKey.lookupKey(text)
            matches = copy.cases.filter { followed in
                let given = NameKey.lookupKey(followed.patient.givenName), family = NameKey.lookupKey(followed.patient.familyName)
                return !key.isEmpty
                    && (given == key || family == key
                        || NameKey.lookupKey("\(followed.patient.givenName) \(followed.patient.familyName)") == key)
            }
        }
        guard let first = matches.first else {
            throw FieldworkError(
                "no case on this machine is '\(text.prefix(40))'; 'intake cases list' shows them (run 'intake cases pull' first for new ones)"
            )
        }
        guard matches.count == 1 else {
            throw FieldworkError(
                "'\(text.prefix(40))' names \(matches.count) cases on this machine; give the case's id as 'intake cases list' shows it")
        }
        return first
    }
}

/// How `intake cases` shows cases: a list with initials, never names, and one case in full.
public enum CaseText {
    /// The columns of the full table; a terminal narrower than they (a phone's, 40 columns) gets
    /// the first four, which fit one.
    static let listWidths = [8, 12, 5, 11, 12, 6]

    /// The table of `intake cases list`, soonest due first, in the language `say` speaks;
    /// `width`: the terminal's columns, when it says (a narrow one gets id, list, initials and
    /// due, its conflicts marked beside the due date).
    public static func list(_ cases: [FollowedCase], today: LocalDate, width: Int? = nil, say: FormLanguage = FormLanguage(nil))
        -> [String]
    {
        guard !cases.isEmpty else { return [say(.casesNone)] }
        let narrow = width.map { $0 < listWidths.reduce(listWidths.count - 1, +) } ?? false
        let widths = narrow ? Array(listWidths.prefix(4)) : listWidths
        let rtl = say.isRightToLeft
        let header = say(.caseColumns).split(separator: "|").map(String.init)
        var lines = [TextTable.row(Array(header.prefix(widths.count)), widths: widths, rightToLeft: rtl)]
        for followed in cases {
            let due = followed.due.map { $0.description + (followed.isOverdue(on: today) ? "!" : "") } ?? "-"
            let conflict = followed.conflicts.isEmpty ? "" : " ⚠"
            let row = [
                String(followed.id.uuidString.lowercased().prefix(8)), followed.list, followed.patient.initials,
                narrow ? due + conflict.trimmingCharacters(in: .whitespaces) : due, followed.assignee ?? say(.caseTheTeam),
                String(followed.visits) + conflict,
            ]
            lines.append(TextTable.row(Array(row.prefix(widths.count)), widths: widths, rightToLeft: rtl))
        }
        if narrow { lines.append(say(.casesDetails)) }
        let overdue = cases.filter { $0.isOverdue(on: today) }.count
        if overdue > 0 { lines.append(say(.casesOverdue(overdue))) }
        if cases.contains(where: { !$0.conflicts.isEmpty }) { lines.append(say(.casesConflictNote)) }
        return lines
    }

    /// What `intake cases show` prints, in the language `say` speaks; `follows`: the declaration
    /// of the questionnaire that follows the case's list, whose choices' labels its properties
    /// are shown by.
    public static func detail(
        _ followed: FollowedCase, today: LocalDate, follows: CaseRules.Follow? = nil, say: FormLanguage = FormLanguage(nil)
    ) -> [String] {
        let labels = say(.caseFields).split(separator: "|").map(String.init)
        func field(_ index: Int, _ value: String) -> String {
            "  " + (labels[index] + ":").padding(toLength: max(11, labels[index].count + 2), withPad: " ", startingAt: 0) + value
        }
        var lines = [
            say(.caseHeading(id: followed.id.uuidString.lowercased())),
            field(0, "\(followed.list) (\(say(.caseStatus(open: followed.status == "open"))))"),
            field(1, followed.patient.fullName + (followed.patient.dateOfBirth.map { say(.caseBorn($0.description)) } ?? "")),
            field(2, followed.assignee ?? say(.caseTheTeam)),
            field(3, followed.due.map { $0.description + (followed.isOverdue(on: today) ? " " + say(.caseOverdue) : "") } ?? "-"),
            field(4, say(.caseVisits(visits: followed.visits, revision: followed.revision))),
        ]
        for name in followed.properties.keys.sorted() {
            let value = followed.properties[name]!
            let text =
                follows?.properties.first { $0.name == name }.map { $0.text(of: value, language: say.code) } ?? ExpressionValue(value).text
            lines.append("  \(name): \(text)")
        }
        if !followed.conflicts.isEmpty { lines.append(field(5, say(.caseConflicts(followed.conflicts.joined(separator: ", "))))) }
        lines.append(say(.caseFill(id: String(followed.id.uuidString.lowercased().prefix(8)))))
        return lines
    }
}
