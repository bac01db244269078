import Foundation
import IntakeCore

/// A row of the survey sheet, its type read.
struct SurveyItem {
    var row: Sheet.Row
    /// `select_one`, `begin_group`, `integer`, …: the type's first word, aliases folded.
    var word: String
    /// A select's list name.
    var list: String?
    var orOther = false
    var name: String
    /// The row's `intake` cell split at its bars: Intake annotations XLSForm has no column for.
    var intake: [String]
}

indirect enum SurveyNode {
    case question(SurveyItem)
    case group(SurveyItem, [SurveyNode])
    case repeatGroup(SurveyItem, [SurveyNode])
}

extension FormReader {
    static let metadata: Set<String> = [
        "start", "end", "today", "deviceid", "username", "email", "phonenumber", "simserial", "subscriberid", "audit", "start-geopoint",
        "background-geopoint", "uri:email", "uri:phonenumber", "uri:deviceid", "uri:username", "uri:simserial", "uri:subscriberid",
    ]
    static let unsupportedTypes: [String: String] = [
        "time": "a time of day", "datetime": "a date and time", "barcode": "a barcode scan", "video": "a video", "geotrace": "a line on a map",
        "geoshape": "an area on a map", "acknowledge": "an acknowledgement", "trigger": "an acknowledgement", "hidden": "a hidden value",
        "rank": "a ranking", "background-audio": "background audio", "xml-external": "an external XML instance", "csv-external": "an external CSV",
        "select_one_from_file": "choices from a file", "select_multiple_from_file": "choices from a file", "select_one_external": "external choices",
        "begin_table": "a table", "osm": "an OpenStreetMap question",
    ]
    static let intakeTypeWords: Set<String> = [
        "text", "yesno", "single", "multiple", "integer", "decimal", "date", "compound", "note", "geopoint", "repeat", "photo", "audio", "document", "signature",
    ]

    /// `select one x`, `select_one x`, `begin group`, `select all that apply x` → word and list.
    static func readType(_ raw: String) -> (word: String, list: String?, orOther: Bool) {
        var parts = raw.split(whereSeparator: \.isWhitespace).map(String.init)
        var orOther = false
        if parts.count > 1, parts.last?.lowercased() == "or_other" {
            orOther = true
            parts.removeLast()
        }
        let lower = parts.map { $0.lowercased() }
        func rest(_ count: Int) -> String? { parts.count > count ? parts[count...].joined(separator: " ") : nil }
        if lower.starts(with: ["begin", "group"]) { return ("begin_group", nil, false) }
        if lower.starts(with: ["end", "group"]) { return ("end_group", nil, false) }
        if lower.starts(with: ["begin", "repeat"]) { return ("begin_repeat", nil, false) }
        if lower.starts(with: ["end", "repeat"]) { return ("end_repeat", nil, false) }
        if lower.starts(with: ["select", "one"]) { return ("select_one", rest(2), orOther) }
        if lower.starts(with: ["select", "all", "that", "apply"]) { return ("select_multiple", rest(4), orOther) }
        if lower.starts(with: ["select", "multiple"]) { return ("select_multiple", rest(2), orOther) }
        guard let first = lower.first else { return ("", nil, false) }
        switch first {
        case "select_one", "select1": return ("select_one", rest(1), orOther)
        case "select_multiple": return ("select_multiple", rest(1), orOther)
        case "begin_group", "begin_repeat", "end_group", "end_repeat": return (first, nil, false)
        case "string": return ("text", nil, false)
        case "int": return ("integer", nil, false)
        case "photo": return ("image", nil, false)
        case "datetime", "date_time": return ("datetime", nil, false)
        default: return (first, rest(1), orOther)
        }
    }

    /// An `intake` cell's annotations; `\|` is a bar inside one.
    static func segments(_ cell: String) -> [String] {
        guard !cell.isEmpty else { return [] }
        return TextSheets.splitAtBars(cell, keepingEscapes: true).filter { !$0.isEmpty }
    }

    // MARK: The tree of groups and repeats

    mutating func buildTree(_ rows: [Sheet.Row]) -> [SurveyNode] {
        let typeColumn = survey.first("type")!
        let nameColumn = survey.first("name")!
        var stack: [(item: SurveyItem?, children: [SurveyNode])] = [(nil, [])]
        var names: [String: Int] = [:]
        var sections: [String: Int] = [:]
        reportUnknownColumns()
        for row in rows where !row.isEmpty {
            let raw = row[typeColumn.index].trimmingCharacters(in: .whitespaces)
            guard !raw.isEmpty else {
                problem(.error, "survey", row.number, typeColumn.shown, "the row has no type", "give it a type (text, integer, select_one list, …) or delete the row")
                continue
            }
            let (word, list, orOther) = Self.readType(raw)
            let name = row[nameColumn.index].trimmingCharacters(in: .whitespaces)
            let item = SurveyItem(row: row, word: word, list: list, orOther: orOther, name: name, intake: Self.segments(survey.value("intake", in: row)))
            switch word {
            case "begin_group", "begin_repeat":
                // A top-level group is a section: its name is a file's, apart from the questions'.
                let isSection = word == "begin_group" && stack.count == 1
                guard isSection ? checkName(item, nameColumn, &sections, section: true) : checkName(item, nameColumn, &names) else { continue }
                stack.append((item, []))
            case "end_group", "end_repeat":
                let wanted = word == "end_group" ? "begin_group" : "begin_repeat"
                guard stack.count > 1, let open = stack.last?.item, open.word == wanted else {
                    let what = word == "end_group" ? "group" : "repeat"
                    problem(.error, "survey", row.number, typeColumn.shown, "'\(raw)' closes a \(what), and no \(what) is open here", stack.count > 1 ? "the \(stack.last!.item!.word == "begin_group" ? "group" : "repeat") '\(stack.last!.item!.name)' is open: close it first" : "delete the row, or add the 'begin \(what)' it closes")
                    continue
                }
                let closed = stack.removeLast()
                stack[stack.count - 1].children.append(word == "end_group" ? .group(open, closed.children) : .repeatGroup(open, closed.children))
            default:
                if Self.metadata.contains(word) {
                    problem(.leftOut, "survey", row.number, typeColumn.shown, "'\(word)' is not asked: Intake records when, by whom and on which device each record was made itself")
                    continue
                }
                guard checkName(item, nameColumn, &names) else { continue }
                stack[stack.count - 1].children.append(.question(item))
            }
        }
        while stack.count > 1 {
            let open = stack.removeLast()
            let what = open.item!.word == "begin_group" ? "group" : "repeat"
            problem(.error, "survey", open.item!.row.number, typeColumn.shown, "the \(what) '\(open.item!.name)' that begins here is never closed", "add an 'end \(what)' row after its last question")
            stack[stack.count - 1].children.append(open.item!.word == "begin_group" ? .group(open.item!, open.children) : .repeatGroup(open.item!, open.children))
        }
        return stack[0].children
    }

    private mutating func checkName(_ item: SurveyItem, _ column: Columns.Column, _ names: inout [String: Int], section: Bool = false) -> Bool {
        guard !item.name.isEmpty else {
            problem(.error, "survey", item.row.number, column.shown, "the row has no name", "give it a name: letters, digits and '_', unique in the form")
            return false
        }
        guard item.name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || section && $0 == "-") }),
            let first = item.name.unicodeScalars.first, first.properties.isAlphabetic || first == "_"
        else {
            problem(
                .unsupported, "survey", item.row.number, column.shown, "the name '\(item.name)' is not an Intake id",
                "Intake ids are letters, digits and '_', starting with a letter or '_': rename it, e.g. '\(item.name.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined())', and every ${\(item.name)} that reads it")
            return false
        }
        if let earlier = names[item.name] {
            problem(.error, "survey", item.row.number, column.shown, "the name '\(item.name)' is already used on row \(earlier)", "give every question, group and repeat its own name")
            return false
        }
        names[item.name] = item.row.number
        return true
    }

    private mutating func reportUnknownColumns() {
        let known: Set<String> = [
            "type", "name", "label", "hint", "required", "required_message", "relevant", "constraint", "constraint_message", "calculation",
            "default", "choice_filter", "repeat_count", "appearance", "parameters", "read_only", "intake", "guidance_hint", "image", "audio",
            "video", "big-image", "media", "trigger", "save_to", "note", "body", "bind", "instance", "control",
        ]
        for column in survey.columns where !known.contains(column.field) {
            problem(.leftOut, "survey", 1, column.shown, "the column '\(column.header)' is not one Intake reads")
        }
    }

    // MARK: Names and lists

    mutating func scanNames(_ nodes: [SurveyNode]) {
        names.known.formUnion(PatientIdentification.expressionFields.keys)
        func visit(_ nodes: [SurveyNode]) {
            for node in nodes {
                switch node {
                case .question(let item):
                    names.known.insert(item.name)
                    let override = item.intake.first { Self.intakeTypeWords.contains(Self.firstWord($0)) }.map(Self.firstWord)
                    if override == "yesno" { names.yesNo.insert(item.name) }
                    if item.word == "select_multiple" && override == nil { names.multiple.insert(item.name) }
                    kinds[item.name] = override ?? ["integer": "decimal", "decimal": "decimal", "range": "decimal", "date": "date"][item.word] ?? "text"
                    if let list = item.list, item.word == "select_one" || item.word == "select_multiple", override != "yesno" {
                        usedLists[list, default: ListUse()].questions.append(item.name)
                        if item.intake.contains(where: { $0.lowercased() == "from list" }) { usedLists[list]!.shared = true }
                        if let (column, _) = Self.choiceFilter(survey.value("choice_filter", in: item.row)) {
                            usedLists[list]!.shared = true
                            if let other = usedLists[list]!.filterColumn, other != column { continue }
                            usedLists[list]!.filterColumn = column
                        }
                    }
                case .group(let item, let children):
                    names.known.insert(item.name)
                    visit(children)
                case .repeatGroup(let item, let children):
                    names.known.insert(item.name)
                    kinds[item.name] = "repeat"
                    visit(children)
                }
            }
        }
        visit(nodes)
        for (list, use) in usedLists {
            guard let rows = lists[list] else { continue }
            let unsafe = rows.contains { row in
                (row.labels.values + [row.code]).contains { $0.contains(",") || $0.contains("=") || $0.contains("|") || $0.contains(":") && $0 == row.code }
            }
            if use.questions.count > 1 || unsafe { usedLists[list]!.shared = true }
        }
    }

    static func firstWord(_ segment: String) -> String {
        let word = segment.prefix { !$0.isWhitespace && $0 != ":" }
        return word.lowercased()
    }

    /// `region = ${region}` (or the other way round): the choices column and the question.
    static func choiceFilter(_ text: String) -> (column: String, question: String)? {
        let sides = text.components(separatedBy: "=")
        guard sides.count == 2 else { return nil }
        let a = sides[0].trimmingCharacters(in: .whitespaces)
        let b = sides[1].trimmingCharacters(in: .whitespaces)
        func reference(_ side: String) -> String? {
            guard side.hasPrefix("${"), side.hasSuffix("}") else { return nil }
            return String(side.dropFirst(2).dropLast()).trimmingCharacters(in: .whitespaces)
        }
        func column(_ side: String) -> String? {
            !side.isEmpty && side.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } ? side : nil
        }
        if let question = reference(b), let name = column(a) { return (name, question) }
        if let question = reference(a), let name = column(b) { return (name, question) }
        return nil
    }
}
