import IntakeCore

/// The columns of an export over one or more versions of a questionnaire, and where each
/// version's questions land in them.
///
/// Columns are the union of every version's questions, keyed by question id (or section and
/// index for questions without one). A question removed in a later version keeps its column;
/// a question added later gets one next to its neighbours. Each record fills the columns of its
/// own version, found through the answers' section and index, so nothing can be misaligned.
public struct ExportPlan: Sendable {
    public let questionnaireId: String
    /// The versions, in the order given (oldest first).
    public let versions: [Questionnaire]
    public let options: ExportOptions
    public let questions: [PlannedQuestion]
    public let columns: [ExportColumn]
    /// Questions marked `identifying` (in any version) that this export leaves out, because it
    /// does not include identifiers; every format leaves out their answers, and the codebook lists them.
    public let leftOutAsIdentifying: [PlannedQuestion.Appearance]
    /// A table per repeat group (`repeat_<id>.csv`), with every instance.
    public let repeatTables: [RepeatTable]
    /// The columns of the case files written beside the records, when they are (the data
    /// package describes them).
    public var caseColumns: ExportCaseColumns?
    private let leftOutKeys: Set<String>
    let layouts: [String: VersionLayout]

    public init(questionnaires: [Questionnaire], options: ExportOptions = ExportOptions()) throws(ExportError) {
        guard let first = questionnaires.first else {
            throw ExportError("there is no questionnaire version to export; publish one or name a questionnaire folder")
        }
        guard !(options.includeIdentifiers && options.shiftDates) else {
            throw ExportError("shifting dates hides them and identifiers show them; ask for one or the other")
        }
        let ids = Set(questionnaires.map(\.id))
        guard ids.count == 1 else {
            throw ExportError(
                "an export covers one questionnaire, but versions of \(ids.sorted().joined(separator: ", ")) were given; export each separately"
            )
        }
        var versions: [Questionnaire] = []
        for questionnaire in questionnaires where !versions.contains(where: { $0.version == questionnaire.version }) {
            versions.append(questionnaire)
        }
        questionnaireId = first.id
        self.versions = versions
        self.options = options

        // The union of questions, in a stable order: new questions go after the previous question of their version.
        var order: [String] = []
        var appearances: [String: [PlannedQuestion.Appearance]] = [:]
        for questionnaire in versions {
            var previous = -1
            for question in questionnaire.allQuestions {
                let key = question.key
                if let index = order.firstIndex(of: key) {
                    previous = index
                } else {
                    order.insert(key, at: previous + 1)
                    previous += 1
                }
                appearances[key, default: []].append(.init(version: questionnaire.version, question: question))
            }
        }

        var columns = MetaField.allCases.filter { options.includeIdentifiers || !$0.isIdentifier }
            .map { ExportColumn(name: $0.rawValue, type: $0.type, source: .meta($0)) }
        for group in options.dataGroups {
            columns.append(ExportColumn(name: "group_" + Self.safeName(group), type: .indicator, source: .dataGroup(group)))
        }
        var used = Set(columns.map(\.name))
        var questions: [PlannedQuestion] = []
        var leftOut: [PlannedQuestion.Appearance] = []
        // The repeat each question is asked in (by key), and the repeat around that one.
        var groupKey: [String: String] = [:]
        for questionnaire in versions {
            for question in questionnaire.allQuestions {
                if let group = question.group, let header = questionnaire.question(at: group) { groupKey[question.key] = header.key }
            }
        }
        var shapes: [String: AnswerShape] = [:]
        for key in order {
            let seen = appearances[key] ?? []
            if !options.includeIdentifiers, let identifying = seen.last(where: { $0.question.isIdentifying }) {
                leftOut.append(identifying)
                continue
            }
            if options.dropFreeText, seen.contains(where: { $0.question.type == .text }) { continue }
            let shapeList = seen.compactMap { AnswerShape($0.question.type, dropFreeText: options.dropFreeText) }
            guard var shape = shapeList.first else { continue }
            for other in shapeList.dropFirst() { shape = shape.merged(with: other) }
            shapes[key] = shape
            let start = columns.count
            // A question asked in a repeat gets its columns once per instance, up to `repeatColumns`;
            // one in a repeat inside a repeat only in the repeats' own tables.
            var planned: [(name: String, type: ColumnType, path: [AnswerStep])] = []
            if let group = groupKey[key] {
                if groupKey[group] == nil {
                    for number in stride(from: 1, through: options.repeatColumns, by: 1) {
                        planned += shape.columns(base: Self.safeName(key) + "_\(number)", questionKey: key, path: [.instance(number)])
                    }
                }
            } else {
                planned = shape.columns(base: Self.safeName(key), questionKey: key)
            }
            for column in planned {
                var name = column.name
                var suffix = 2
                while used.contains(name) {
                    name = "\(column.name)_\(suffix)"
                    suffix += 1
                }
                used.insert(name)
                columns.append(ExportColumn(name: name, type: column.type, source: .answer(questionKey: key, path: column.path)))
            }
            questions.append(
                PlannedQuestion(key: key, appearances: seen, columns: start..<columns.count, shape: shape, repeatKey: groupKey[key]))
        }
        // One table per repeat: a row per instance, keyed by the record (and the outer instance).
        var tables: [RepeatTable] = []
        for planned in questions where planned.latest.isRepeat {
            let members = questions.filter { $0.repeatKey == planned.key }
            var tableColumns: [ExportColumn] = []
            var names = Set(RepeatTable.keyColumns)
            for member in members {
                guard let shape = shapes[member.key] else { continue }
                for column in shape.columns(base: Self.safeName(member.key), questionKey: member.key) {
                    var name = column.name
                    var suffix = 2
                    while names.contains(name) {
                        name = "\(column.name)_\(suffix)"
                        suffix += 1
                    }
                    names.insert(name)
                    tableColumns.append(
                        ExportColumn(name: name, type: column.type, source: .answer(questionKey: member.key, path: column.path)))
                }
            }
            tables.append(RepeatTable(key: planned.key, parentKey: groupKey[planned.key], columns: tableColumns))
        }
        self.repeatTables = tables
        self.questions = questions
        self.columns = columns
        self.leftOutAsIdentifying = leftOut
        self.leftOutKeys = Set(leftOut.map(\.question.key))
        self.layouts = Dictionary(
            uniqueKeysWithValues: versions.map {
                ($0.version, VersionLayout(questionnaire: $0, questions: questions, columns: columns, repeatTables: tables))
            })
    }

    /// Whether the export leaves this question's answers out (it is identifying, and identifiers
    /// are not included): the one rule every format follows.
    public func leavesOut(_ question: Question) -> Bool { leftOutKeys.contains(question.key) }

    /// The version a record names, or an error that says which versions the export knows.
    func layout(for reference: QuestionnaireReference) throws(ExportError) -> VersionLayout {
        guard reference.id == questionnaireId, let layout = layouts[reference.version] else {
            throw ExportError(
                "a record answers \(reference), which this export does not have (it has \(questionnaireId) versions "
                    + versions.map(\.version).joined(separator: ", ")
                    + "); publish that version on the server or pass its folder with --questionnaire")
        }
        return layout
    }

    /// The allowed codes of a single-choice column, for codebooks and Table Schema enums.
    func codes(of column: ExportColumn) -> [String] {
        guard case .answer(let key, let path) = column.source, let question = questions.first(where: { $0.key == key }) else { return [] }
        return question.shape.codes(at: path)
    }

    /// Letters, digits and `_` only, so every tool accepts the name.
    static func safeName(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }
}

/// A question as exported: its key and every version it appears in.
public struct PlannedQuestion: Sendable {
    public let key: String
    public let appearances: [Appearance]
    /// Its columns' indices in ``ExportPlan/columns``.
    public let columns: Range<Int>
    let shape: AnswerShape
    /// The repeat it is asked in, by key: its wide-CSV columns are one per instance.
    public var repeatKey: String? = nil

    /// The newest wording.
    public var latest: Question { appearances[appearances.count - 1].question }

    public struct Appearance: Sendable {
        public let version: String
        public let question: Question
    }
}

/// Where one version's questions land in the plan. (A class: every row of an export holds one.)
final class VersionLayout: Sendable {
    let questionnaire: Questionnaire
    /// Its ordinals and show-if, kept apart so a record's layout copies no questionnaire.
    let visibility: Visibility
    /// For each planned question: the question in this version, or nil.
    let questions: [Question?]
    /// For each column: whether this version has the part it reads.
    let hasColumn: [Bool]
    /// The planned questions this version has, with the columns each fills: what laying out a
    /// record needs, worked out once per version rather than once per record.
    let slots: [Slot]

    struct Slot: Sendable {
        let position: QuestionPosition
        /// The question's place in its version's ``Questionnaire/allQuestions``.
        let ordinal: Int
        let type: QuestionType
        let columns: [(index: Int, path: [AnswerStep])]
        /// Asked in a repeat: its cells read each instance's answer.
        var inRepeat = false
        /// For a question of a repeat at the top of the version: the repeat's ordinal and the
        /// question's index in each instance. Nil for one in a repeat inside a repeat, which
        /// has no cells of its own in the wide CSV.
        var repeatMember: (group: Int, index: Int)?
        /// Whether show-if can hide it, so an instance without its answer may not have asked it.
        var mayBeHidden = false
    }

    /// This version's questions by key.
    let byKey: [String: Question]
    /// For each repeat table (by its repeat's key) this version has the repeat of: the repeat,
    /// and for each of the table's columns where an instance's answer for it is, worked out once
    /// per version rather than once per instance.
    let repeatCells: [String: RepeatCells]

    struct RepeatCells: Sendable {
        let group: Question
        /// Nil: this version has no such part in the repeat, and the cell is empty.
        let columns: [RepeatCell?]
    }

    struct RepeatCell: Sendable {
        /// The question's index in an instance.
        let index: Int
        let path: [AnswerStep]
        let type: QuestionType
        /// Whether an instance without the answer was asked and left it unanswered (no show-if
        /// could have hidden it).
        let unansweredWhenMissing: Bool
    }

    init(questionnaire: Questionnaire, questions planned: [PlannedQuestion], columns: [ExportColumn], repeatTables: [RepeatTable]) {
        self.questionnaire = questionnaire
        visibility = questionnaire.visibility
        let byKey = Dictionary(questionnaire.allQuestions.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        self.byKey = byKey
        questions = planned.map { byKey[$0.key] }
        var members: [Int: (group: Int, index: Int)] = [:]
        for group in questionnaire.allQuestions where group.isRepeat && group.group == nil {
            guard let groupOrdinal = questionnaire.ordinal(of: group.position) else { continue }
            for member in questionnaire.members(of: group.position) {
                if let ordinal = questionnaire.ordinal(of: member.position) { members[ordinal] = (groupOrdinal, member.position.index) }
            }
        }
        var repeatCells: [String: RepeatCells] = [:]
        for table in repeatTables {
            guard let group = byKey[table.key], group.isRepeat else { continue }
            repeatCells[table.key] = RepeatCells(
                group: group,
                columns: table.columns.map { column in
                    guard case .answer(let key, let path) = column.source, let member = byKey[key], member.group == group.position,
                        member.type.part(at: path[...]) != nil
                    else { return nil }
                    return RepeatCell(
                        index: member.position.index, path: path, type: member.type, unansweredWhenMissing: member.showIf == nil)
                })
        }
        self.repeatCells = repeatCells
        let hasColumn = columns.map { column in
            switch column.source {
            case .meta, .dataGroup: return true
            case .answer(let key, let path): return byKey[key]?.type.part(at: path[...]) != nil
            }
        }
        self.hasColumn = hasColumn
        slots = zip(planned, questions).compactMap { planned, question in
            guard let question else { return nil }
            let filled = planned.columns.compactMap { index -> (index: Int, path: [AnswerStep])? in
                guard hasColumn[index], case .answer(_, let path) = columns[index].source else { return nil }
                return (index, path)
            }
            guard let ordinal = questionnaire.ordinal(of: question.position) else { return nil }
            return Slot(
                position: question.position, ordinal: ordinal, type: question.type, columns: filled, inRepeat: question.group != nil,
                repeatMember: members[ordinal], mayBeHidden: question.showIf != nil)
        }
    }
}

/// A repeat's own table: `record_id`, `parent_instance` (for a repeat inside a repeat), `instance`,
/// then the columns of the questions asked in it.
public struct RepeatTable: Sendable {
    /// The repeat's key (its id).
    public let key: String
    /// The repeat it is inside, if any.
    public let parentKey: String?
    public let columns: [ExportColumn]

    static let keyColumns = ["record_id", "parent_instance", "instance"]

    /// `repeat_members.csv`.
    public var fileName: String { "repeat_\(ExportPlan.safeName(key)).csv" }

    /// The key columns this table has, in order.
    public var keyColumnNames: [String] { parentKey == nil ? ["record_id", "instance"] : Self.keyColumns }
}

/// Why an export cannot be made, with what to do about it.
public struct ExportError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
