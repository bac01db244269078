import Foundation
import IntakeCore

/// XLSForm's entities (ODK's case lists) as Intake's `cases.txt`: an `entities` sheet row
/// without `entity_id` opens a case of its list (`opens:`, `create_if` its `if:`); a row whose
/// `entity_id` is `${q}`, q a `select_one_from_file list.csv`, makes the form a follow-up of the
/// list (`follows:`; q is not asked: the case is chosen when the form is filled); each survey
/// row's `save_to` sets a property from its answer (`set: property = question`).
struct EntityDeclaration {
    var row: Int
    var list: String
    var createIf: String
    var entityId: String
    var updateIf: String
    var label: String
}

extension FormReader {
    /// The entities sheet's rows, checked as pyxform checks them (what it refuses is an error
    /// here too); the question an `entity_id` names is remembered, so it is not asked.
    mutating func readEntities() {
        guard let sheet = workbook.sheet("entities") else { return }
        let rows = readable(sheet)
        let columns = Columns(rows.first, sheet: sheet.name)
        entityColumns = columns
        for column in columns.columns
        where !["list_name", "dataset", "entity_id", "create_if", "update_if", "label", "repeat"].contains(column.field) {
            problem(
                .error, sheet.name, rows.first?.number, column.shown, "the entities sheet has no column '\(column.header)'",
                "its columns are list_name, label, create_if, update_if and entity_id (pyxform refuses others)")
        }
        for row in rows.dropFirst() where !row.isEmpty {
            let list = columns.value("list_name", in: row).isEmpty ? columns.value("dataset", in: row) : columns.value("list_name", in: row)
            let declaration = EntityDeclaration(
                row: row.number, list: list, createIf: columns.value("create_if", in: row), entityId: columns.value("entity_id", in: row),
                updateIf: columns.value("update_if", in: row), label: columns.value("label", in: row))
            guard !list.isEmpty else {
                problem(.error, sheet.name, row.number, nil, "the entity has no list_name", "name the entity list it saves to")
                continue
            }
            if !columns.value("repeat", in: row).isEmpty {
                problem(
                    .unsupported, sheet.name, row.number, columns.first("repeat")?.shown,
                    "an entity per repeat instance has no Intake equivalent: a record opens one case per 'opens:'",
                    "save the entity from questions outside the repeat, or import with --partial")
                continue
            }
            if !declaration.entityId.isEmpty {
                // `${case}`: the question that picks the entity, from the list's file.
                let trimmed = declaration.entityId.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("${"), trimmed.hasSuffix("}") {
                    entityPicker[String(trimmed.dropFirst(2).dropLast())] = list
                }
            }
            entities.append(declaration)
        }
        if !rows.dropFirst().contains(where: { !$0.isEmpty }) {
            problem(.leftOut, sheet.name, nil, nil, "the entities sheet declares no entity")
        }
    }

    /// ODK's read of the followed entity's property, `instance('list')/root/item[name=${picker}]/p`,
    /// as Intake's `${case.p}` (the picker being the question an `entity_id` names).
    mutating func readingCaseProperties(_ text: String) -> String {
        guard !entityPicker.isEmpty, text.contains("instance(") else { return text }
        var out = text
        for (picker, list) in entityPicker {
            let pattern =
                #"instance\(\s*['"]"# + NSRegularExpression.escapedPattern(for: list)
                + #"['"]\s*\)\s*/\s*root\s*/\s*item\s*\[\s*name\s*=\s*\$\{\s*"#
                + NSRegularExpression.escapedPattern(for: picker) + #"\s*\}\s*\]\s*/\s*([A-Za-z_][A-Za-z0-9_]*)(?![-.\w])"#
            guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
            let range = NSRange(out.startIndex..., in: out)
            for match in regex.matches(in: out, range: range) {
                // ODK's own fields of an entity (its name, label, version) are no case property:
                // left unread, the expression is refused as ODK's path it is.
                if let name = Range(match.range(at: 1), in: out).map({ String(out[$0]) }), !["name", "label"].contains(name),
                    !name.hasPrefix("__")
                {
                    caseReads.insert(name)
                    names.known.insert("case.\(name)")
                }
            }
            for match in regex.matches(in: out, range: range).reversed() {
                guard let whole = Range(match.range, in: out), let name = Range(match.range(at: 1), in: out).map({ String(out[$0]) }),
                    caseReads.contains(name)
                else { continue }
                out.replaceSubrange(whole, with: "${case.\(name)}")
            }
        }
        return out
    }

    /// `cases.txt` from the entities sheet and the survey's `save_to` cells, each line pointing at
    /// the cell it came from (what Intake's loader refuses is said there); or, when Intake's own
    /// export wrote it whole in the settings' `intake` cell, from there.
    mutating func writeCases() {
        if !settingsCaseLines.isEmpty {
            if !entities.isEmpty || !savedTo.isEmpty {
                problem(
                    .leftOut, "settings", 2, nil,
                    "the case rules are read from the case: lines of the settings (Intake's export writes them whole there); the entities sheet and save_to cells are not read",
                    "to change the cases, edit the case: lines, or delete them to have the entities sheet read")
            }
            let column = workbook.sheet("settings").flatMap { Columns(readable($0).first, sheet: $0.name).first("intake")?.shown }
            files[CaseRules.fileName] = OutFile(
                lines: settingsCaseLines.map { OutFile.Line(text: $0, sheet: "settings", row: 2, spans: [(1, column)]) })
            return
        }
        guard !entities.isEmpty || !savedTo.isEmpty else { return }
        let sheet = workbook.sheet("entities")?.name ?? "entities"
        let columns = entityColumns
        var file = OutFile()
        var follows = false
        for declaration in entities {
            let at = declaration.row
            guard CaseListName.isValid(declaration.list) else {
                problem(
                    .unsupported, sheet, at, columns.first("list_name")?.shown,
                    "the entity list '\(declaration.list)' cannot name an Intake case list",
                    "Intake's case lists are lowercase letters, digits, '-' and '_', starting with a letter: rename it")
                continue
            }
            var block: [OutFile.Line] = []
            if !declaration.entityId.isEmpty {
                if !declaration.createIf.isEmpty {
                    problem(
                        .unsupported, sheet, at, columns.first("create_if")?.shown,
                        "an entity created or updated by one form has no Intake equivalent",
                        "a form opens cases or follows them: keep create_if or entity_id")
                    continue
                }
                guard let picker = entityPicker.first(where: { $0.value == declaration.list })?.key, pickerRows[picker] != nil else {
                    problem(
                        .unsupported, sheet, at, columns.first("entity_id")?.shown,
                        "the entity_id '\(declaration.entityId)' is not ${question} of a select_one_from_file \(declaration.list).csv",
                        "Intake names the followed case outside the form (intake fill --case): pick it with a select_one_from_file question"
                    )
                    continue
                }
                guard !follows else {
                    problem(
                        .unsupported, sheet, at, columns.first("entity_id")?.shown, "a second entity to update has no Intake equivalent",
                        "an Intake questionnaire follows at most one case list")
                    continue
                }
                follows = true
                if !declaration.updateIf.isEmpty {
                    problem(
                        .unsupported, sheet, at, columns.first("update_if")?.shown,
                        "'update_if' has no Intake equivalent: every complete follow-up visit updates its case",
                        "leave update_if empty, or import with --partial")
                }
                block.append(
                    OutFile.Line(
                        text: "follows: \(declaration.list)", sheet: sheet, row: at, spans: [(10, columns.first("list_name")?.shown)]))
                // What the questions read of the case: text, as ODK's entities hold it.
                for name in caseReads.sorted() {
                    block.append(
                        OutFile.Line(
                            text: "property: \(name) text", sheet: sheet, row: at, spans: [(11, columns.first("entity_id")?.shown)]))
                }
            } else {
                block.append(
                    OutFile.Line(text: "opens: \(declaration.list)", sheet: sheet, row: at, spans: [(8, columns.first("list_name")?.shown)])
                )
                if !declaration.createIf.isEmpty, let column = columns.first("create_if") {
                    // A condition that cannot be read leaves the case out, never opened for every record.
                    guard let condition = read(declaration.createIf, row: Sheet.Row(number: at, cells: []), column: column, sheet: sheet)
                    else { continue }
                    block.append(OutFile.Line(text: "if: \(condition)", sheet: sheet, row: at, spans: [(5, column.shown)]))
                }
            }
            if !declaration.label.isEmpty {
                problem(
                    .leftOut, sheet, at, columns.first("label")?.shown,
                    "the entity's label is not kept: an Intake case is named by its record's patient")
            }
            for saved in savedTo {
                let parts = saved.target.split(separator: "#", omittingEmptySubsequences: false).map(String.init)
                let (list, property) = parts.count == 2 ? (parts[0], parts[1]) : (entities.count == 1 ? declaration.list : "", parts[0])
                guard list == declaration.list else { continue }
                block.append(
                    OutFile.Line(
                        text: "set: \(property) = \(saved.question)", sheet: "survey", row: saved.row,
                        spans: [(6, survey.first("save_to")?.shown)]))
            }
            file.lines += block
        }
        // A save_to naming no declared list: pyxform refuses it, and so does Intake.
        for saved in savedTo {
            let parts = saved.target.split(separator: "#", omittingEmptySubsequences: false).map(String.init)
            let list = parts.count == 2 ? parts[0] : (entities.count == 1 ? entities[0].list : "")
            if !entities.contains(where: { $0.list == list }) {
                problem(
                    .error, "survey", saved.row, survey.first("save_to")?.shown,
                    entities.isEmpty
                        ? "'save_to' names an entity property, and the form has no entities sheet"
                        : "'save_to' \(saved.target) names no entity of the entities sheet"
                            + (parts.count == 2 ? "" : " (with several entities, write list#property)"),
                    "declare the entity list on the entities sheet")
            }
        }
        if !file.lines.isEmpty { files[CaseRules.fileName] = file }
    }
}
