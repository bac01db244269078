import Foundation
import IntakeCore

/// One non-empty cell of an export's table before it is written: collected text (escaped in
/// the CSV files), a value Intake made that needs no escaping (a data group's 0/1), or
/// "asked, not answered" (the unanswered code in the CSV files).
enum CellValue: Sendable, Equatable {
    case text(String)
    case plain(String)
    case unanswered
}

extension ExportPlan {
    /// The wide-CSV cells of one record, one per column.
    func cells(for item: ExportRecord) throws(ExportError) -> [String] {
        var cells = [String](repeating: "", count: columns.count)
        eachCell(of: try ExportRow(item, plan: self)) { index, text in cells[index] = text }
        return cells
    }

    /// The record as one wide-CSV line (CRLF included), appended to `out`.
    func writeLine(_ row: ExportRow, into out: inout [UInt8], lineBreaksEscaped: Bool = false) {
        var next = 0
        eachCell(of: row) { index, text in
            while next < index {
                if next > 0 { out.append(UInt8(ascii: ",")) }
                next += 1
            }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            CSV.append(lineBreaksEscaped ? CSV.escapingLineBreaks(text) : text, to: &out)
            next = index + 1
        }
        while next < columns.count {
            if next > 0 { out.append(UInt8(ascii: ",")) }
            next += 1
        }
        out.append(13)
        out.append(10)
    }

    /// Hands `cell` each non-empty cell of a record with its column index, in column order.
    ///
    /// An answered question gives its value; a question that was shown but not answered gives
    /// ``ExportOptions/unansweredCode``; a question hidden by show-if, or absent from the record's
    /// version, gives an empty cell.
    ///
    /// Collected text is escaped (``CSV/escape(_:marker:)``) unless ``ExportOptions/rawCells``
    /// is set, so a cell is never run as a formula and the bare unanswered code is never an answer.
    func eachCell(of row: ExportRow, _ cell: (Int, String) -> Void) {
        let code = options.unansweredCode
        let raw = options.rawCells
        eachValue(of: row) { index, value in
            switch value {
            case .text(let text): cell(index, raw ? text : CSV.escape(text, marker: code))
            case .plain(let text): cell(index, text)
            case .unanswered: cell(index, code)
            }
        }
    }

    /// Hands `cell` each non-empty cell of a record with its column index, in column order, as
    /// collected (no CSV escaping), with "asked, not answered" kept apart from any text: what
    /// the wide CSV writes (``eachCell(of:_:)``) and the statistics files read.
    func eachValue(of row: ExportRow, _ cell: (Int, CellValue) -> Void) {
        for index in columns.indices {
            switch columns[index].source {
            case .meta(let field):
                let text = Self.meta(field, of: row.item)
                if !text.isEmpty { cell(index, .text(text)) }
                continue
            case .dataGroup(let group):
                if let registry = row.item.registry { cell(index, .plain(registry.dataGroups.contains(group) ? "1" : "0")) }
                continue
            case .answer: break
            }
            break
        }
        // The slots and their columns are read in place: copying a slot (its type, its
        // columns' paths) for every question of every record was a fifth of writing a line.
        row.layout.slots.withUnsafeBufferPointer { slots in
            for slot in slots.indices where !row.hidden[slots[slot].ordinal] {
                if slots[slot].inRepeat {
                    // Each instance's answer, read from the repeat's; no cell for an instance the record
                    // lacks, nor for any when show-if hides the repeat (its table has no rows then).
                    guard let member = slots[slot].repeatMember, !row.hidden[member.group],
                        case .instances(let list)? = row.answers[member.group]
                    else { continue }
                    slots[slot].columns.withUnsafeBufferPointer { columns in
                        for column in columns.indices {
                            guard case .instance(let number)? = columns[column].path.first, number <= list.count else { continue }
                            guard let inner = list[number - 1][member.index],
                                let text = Self.cell(inner, columns[column].path.dropFirst(), type: slots[slot].type)
                            else {
                                // Unanswered where it was asked; a question show-if can hide may have been hidden there.
                                if !slots[slot].mayBeHidden { cell(columns[column].index, .unanswered) }
                                continue
                            }
                            if !text.isEmpty { cell(columns[column].index, .text(text)) }
                        }
                    }
                    continue
                }
                guard let answer = row.answers[slots[slot].ordinal] else {
                    for column in slots[slot].columns { cell(column.index, .unanswered) }
                    continue
                }
                slots[slot].columns.withUnsafeBufferPointer { columns in
                    for column in columns.indices {
                        // A question's own answer (most columns) needs neither its type nor a path.
                        let text =
                            columns[column].path.isEmpty
                            ? Self.text(of: answer) : Self.cell(answer, columns[column].path[...], type: slots[slot].type)
                        guard let text else {
                            cell(columns[column].index, .unanswered)
                            continue
                        }
                        if !text.isEmpty { cell(columns[column].index, .text(text)) }
                    }
                }
            }
        }
    }

    /// The cell of `answer` at `path`; nil when that part was not answered.
    static func cell(_ answer: Answer, _ path: ArraySlice<AnswerStep>, type: QuestionType) -> String? {
        guard let step = path.first else { return text(of: answer) }
        switch (step, answer) {
        case (.field(let key), .dictionary(let fields)):
            guard let value = fields[key] else { return nil }
            return cell(value, path.dropFirst(), type: type.part(at: path.prefix(1)) ?? .text)
        case (.field(let key), .geopoint(let point)):
            guard let value = point.part(key) else { return nil }
            return cell(value, path.dropFirst(), type: type.part(at: path.prefix(1)) ?? .text)
        case (.choice(let code), .choices(let codes)):
            return codes.contains(code) ? "1" : "0"
        case (.choice(let code), .choice(let chosen)):
            return code == chosen ? "1" : "0"
        default:
            return text(of: answer)
        }
    }

    /// An answer as one cell: codes for choices, 1/0 for yes/no, ISO dates.
    static func text(of answer: Answer) -> String {
        switch answer {
        case .text(let value): value
        case .integer(let value): String(value)
        case .decimal(let value): number(value)
        case .date(let value): value.description
        case .yesNo(let value): value ? "1" : "0"
        case .choice(let code): code
        case .choices(let codes): codes.joined(separator: ";")
        case .dictionary(let fields): fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(text(of: $0.value))" }.joined(separator: ";")
        case .geopoint(let point): point.description
        case .instances(let list): String(list.count)
        case .attachment(let ref): "attachments/" + ref.fileName
        }
    }

    package static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }

    static func meta(_ field: MetaField, of item: ExportRecord) -> String {
        let record = item.record
        switch field {
        case .recordId: return record.id.uuidString.lowercased()
        case .patientKey: return item.patientKey ?? ""
        case .givenName: return record.patient.givenName
        case .familyName: return record.patient.familyName
        case .dateOfBirth: return record.patient.dateOfBirth?.description ?? ""
        case .externalId: return record.patient.externalId ?? ""
        case .sex: return record.patient.sex?.rawValue ?? ""
        case .ageYears: return item.ageYears.map(String.init) ?? ""
        case .sharingScope: return item.registry?.sharingScope ?? ""
        case .dataGroups: return item.registry?.dataGroups.joined(separator: ";") ?? ""
        case .questionnaireId: return record.questionnaire.id
        case .questionnaireVersion: return record.questionnaire.version
        case .status: return record.status.rawValue
        case .revision: return item.revision.map(String.init) ?? ""
        case .language: return record.language ?? ""
        case .collector: return record.collector
        case .createdAt: return Timestamp.string(from: record.createdAt)
        case .updatedAt: return Timestamp.string(from: record.updatedAt)
        case .reviewState: return item.reviewState ?? ""
        }
    }
}
