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
        "video": "a video", "geotrace": "a line on a map", "geoshape": "an area on a map", "rank": "a ranking",
        "background-audio": "background audio", "xml-external": "an external XML instance", "csv-external": "an external CSV",
        "select_one_from_file": "choices from a file", "select_multiple_from_file": "choices from a file",
        "select_one_external": "external choices",
        "begin_table": "a table", "osm": "an OpenStreetMap question",
    ]
    static let intakeTypeWords: Set<String> = [
        "text", "yesno", "single", "multiple", "integer", "decimal", "date", "compound", "note", "geopoint", "repeat", "photo", "audio",
        "document", "signature",
    ]

    /// pyxform's names of each type (its question type dictionary, spelled as it spells them:
    /// pyxform, and so Intake, reads `Text` as no type) → the word Intake's reader uses.
    static let typeNames: [String: String] = {
        var names: [String: String] = [:]
        let groups: [String: [String]] = [
            "text": ["text", "string", "q string", "add text prompt", "phone number"],
            "integer": [
                "integer", "int", "q int", "add integer prompt", "percentage", "number of days in last month",
                "number of days in last six months", "number of days in last year",
            ],
            "decimal": ["decimal", "q decimal", "add decimal prompt"],
            "date": ["date", "q date", "add date prompt"],
            "datetime": ["datetime", "dateTime", "date time", "q date time", "q dateTime", "add date time prompt", "add dateTime prompt"],
            "time": ["time"],
            "note": ["note", "q note", "add note prompt"],
            "calculate": ["calculate", "q calculate", "add calculate prompt"],
            "geopoint": ["geopoint", "gps", "location", "q location", "q geopoint", "add location prompt"],
            "geoshape": ["geoshape", "q geoshape"], "geotrace": ["geotrace", "q geotrace"],
            "image": ["image", "photo", "q picture", "q image", "add image prompt"],
            "audio": ["audio", "q audio", "add audio prompt"], "video": ["video", "q video", "add video prompt"],
            "file": ["file", "add file prompt"], "barcode": ["barcode", "q barcode", "add barcode prompt"],
            "acknowledge": ["acknowledge", "q acknowledge", "add acknowledge prompt"], "trigger": ["trigger"],
            "range": ["range"], "hidden": ["hidden"], "osm": ["osm"], "xml-external": ["xml-external"], "csv-external": ["csv-external"],
            "start": ["start", "start time", "get start time"], "end": ["end", "end time", "get end time"],
            "today": ["today", "get today"],
            "deviceid": ["deviceid", "device id", "get device id", "imei"],
            "subscriberid": ["subscriberid", "subscriber id", "get subscriber id"],
            "simserial": ["simserial", "sim id", "get sim id"], "phonenumber": ["phonenumber", "get phone number"],
            "username": ["username"], "email": ["email"], "audit": ["audit"], "start-geopoint": ["start-geopoint"],
            "background-geopoint": ["background-geopoint"], "background-audio": ["background-audio"],
            "uri:email": ["uri:email"], "uri:phonenumber": ["uri:phonenumber"], "uri:deviceid": ["uri:deviceid"],
            "uri:username": ["uri:username"],
            "uri:simserial": ["uri:simserial"], "uri:subscriberid": ["uri:subscriberid"],
        ]
        for (word, spellings) in groups {
            for spelling in spellings { names[spelling] = word }
        }
        return names
    }()

    /// pyxform's select commands, each followed by one list name (and perhaps `or_other`).
    static let selectCommands: [(String, String)] = [
        ("add select one prompt using", "select_one"), ("add select multiple prompt using", "select_multiple"),
        ("select all that apply from", "select_multiple"), ("select one from", "select_one"), ("select1", "select_one"),
        ("select_one", "select_one"), ("select one", "select_one"), ("select_multiple", "select_multiple"),
        ("select all that apply", "select_multiple"), ("select_one_external", "select_one_external"),
        ("select_one_from_file", "select_one_from_file"), ("select_multiple_from_file", "select_multiple_from_file"),
        ("select one from file", "select_one_from_file"), ("select multiple from file", "select_multiple_from_file"), ("rank", "rank"),
    ]

    /// A type cell as pyxform reads it → word and list: `select one from x`, `select_one x
    /// or_other`, `begin group`, `begin loop over x`, `gps`. Spellings are pyxform's, case
    /// included; what pyxform does not know comes back as its own first word.
    static func readType(_ raw: String) -> (word: String, list: String?, orOther: Bool) {
        var parts = raw.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !parts.isEmpty else { return ("", nil, false) }
        func rest(_ count: Int) -> String? { parts.count > count ? parts[count...].joined(separator: " ") : nil }
        // `begin group`, `begin_repeat`, `begin lgroup`, `begin looped group`, `begin loop over x`.
        let controls = ["group": "group", "repeat": "repeat", "lgroup": "repeat", "looped group": "repeat", "loop": "loop"]
        for edge in ["begin", "end"] {
            var control: String?
            var after = 0
            if parts[0] == edge, parts.count > 1 {
                control = parts.count > 2 && parts[1] == "looped" && parts[2] == "group" ? "looped group" : parts[1]
                after = control == "looped group" ? 3 : 2
            } else if parts[0].hasPrefix(edge + "_") {
                control = String(parts[0].dropFirst(edge.count + 1))
                after = 1
                if control == "looped", parts.count > 1, parts[1] == "group" { (control, after) = ("looped group", 2) }
            }
            guard let control, let kind = controls[control] else { continue }
            if kind == "loop", edge == "begin" {
                let list = parts.count > after + 1 && parts[after] == "over" ? rest(after + 1) : rest(after)
                return ("begin_loop", list, false)
            }
            return ("\(edge)_\(kind)", nil, false)
        }
        var orOther = false
        for suffix in [["or", "specify", "other"], ["or", "other"], ["or_other"]]
        where parts.count > suffix.count + 1 && Array(parts.suffix(suffix.count)) == suffix {
            orOther = true
            parts.removeLast(suffix.count)
            break
        }
        let joined = parts.joined(separator: " ")
        for (command, word) in selectCommands {
            let words = command.split(separator: " ").map(String.init)
            if parts.count == words.count + 1, Array(parts.prefix(words.count)) == words { return (word, parts.last, orOther) }
        }
        if orOther { parts += ["or_other"] }
        if let word = typeNames[parts.joined(separator: " ")] ?? typeNames[joined] { return (word, nil, false) }
        // A select whose list is missing or followed by more words: the command, for a clear error.
        for (command, word) in selectCommands where joined == command || joined.hasPrefix(command + " ") {
            return (word, rest(command.split(separator: " ").count), orOther)
        }
        return (parts[0], rest(1), false)
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
        /// Names by the group or repeat that holds them (`outer/inner/name`): pyxform refuses a
        /// name twice in one group and takes it in two.
        var paths: Set<String> = []
        func path(_ name: String) -> String { (stack.compactMap { $0.item?.name } + [name]).joined(separator: "/") }
        reportUnknownColumns()
        for row in rows where !row.isEmpty {
            let raw = row[typeColumn.index].trimmingCharacters(in: .whitespaces)
            guard !raw.isEmpty else {
                // pyxform passes over a row with neither a name nor a label: a comment.
                if row[nameColumn.index].trimmingCharacters(in: .whitespaces).isEmpty, texts("label", survey, row).isEmpty {
                    problem(
                        .leftOut, "survey", row.number, typeColumn.shown,
                        "the row has no type, name or label; it is read as a comment, as pyxform reads it")
                } else {
                    problem(
                        .error, "survey", row.number, typeColumn.shown, "the row has no type",
                        "give it a type (text, integer, select_one list, …) or delete the row (pyxform refuses it too)")
                }
                continue
            }
            var (word, list, orOther) = Self.readType(raw)
            // The question an entity_id names picks the case to follow from the list's file:
            // Intake names the case outside the form (intake fill --case), so it is not asked.
            let rowName = row[nameColumn.index].trimmingCharacters(in: .whitespaces)
            if let followed = entityPicker[rowName], ["select_one_from_file", "select_one", "csv-external"].contains(word) {
                pickerRows[rowName] = row.number
                leftOutNames[rowName] = row.number
                problem(
                    .leftOut, "survey", row.number, typeColumn.shown,
                    "'\(rowName)' picks the \(followed) case to update; Intake names the case when the form is filled (intake fill --case), so it is not asked"
                )
                continue
            }
            if word == "select_one_external", list.map({ lists[$0] != nil }) == true { word = "select_one" }
            if word == "select_one_from_file" || word == "select_multiple_from_file", let file = list {
                if let listName = choicesFromFile(file, row: row) {
                    (word, list) = (word == "select_one_from_file" ? "select_one" : "select_multiple", listName)
                } else {
                    saidRows.insert(row.number)  // the file's problem is said; the type is not said again
                }
            }
            var name = row[nameColumn.index].trimmingCharacters(in: .whitespaces)
            if name.isEmpty, word == "note" {
                // pyxform takes a note without a name; Intake gives it one of its row.
                name = "note_row\(row.number)"
                while names[name] != nil { name += "_" }
            }
            let item = SurveyItem(
                row: row, word: word, list: list, orOther: orOther, name: name, intake: Self.segments(survey.value("intake", in: row)))
            switch word {
            case "begin_group", "begin_repeat", "begin_loop":
                // A top-level group is a section: its name is a file's, apart from the questions'.
                let isSection = word == "begin_group" && stack.count == 1
                if word == "begin_repeat", name == rootName || names[name] != nil || sections[name] != nil {
                    // pyxform refuses a repeat named as the form's root or as another element.
                    problem(
                        .error, "survey", row.number, nameColumn.shown,
                        name == rootName
                            ? "the repeat is named '\(name)', as the form's root is"
                            : "the repeat's name '\(name)' is already used on row \(names[name] ?? sections[name]!)",
                        "give the repeat a name of its own (pyxform refuses the form too)")
                }
                var item = item
                if !(isSection
                    ? checkName(&item, nameColumn, &sections, section: true)
                    : checkName(&item, nameColumn, &names, path: path(name), in: &paths))
                {
                    // Reported; the group still holds its rows, under a name Intake can use.
                    var clean = String(
                        item.name.unicodeScalars.map {
                            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? Character($0) : "_"
                        })
                    if clean.first?.isLetter != true { clean = "g_" + clean }
                    while names[clean] != nil || sections[clean] != nil { clean += "_" }
                    item.name = clean
                    if isSection { sections[clean] = row.number } else { names[clean] = row.number }
                }
                if word == "begin_loop" {
                    guard let list = item.list, lists[list] != nil else {
                        problem(
                            .error, "survey", row.number, typeColumn.shown,
                            "the loop names no list of the choices sheet ('\(item.list ?? "")')",
                            "write 'begin loop over list_name', with the list on the choices sheet")
                        continue
                    }
                }
                stack.append((item, []))
            case "end_group", "end_repeat", "end_loop":
                let wanted = "begin_" + word.dropFirst("end_".count)
                let what = String(word.dropFirst("end_".count))
                guard stack.count > 1, let open = stack.last?.item, open.word == wanted else {
                    let openWhat = stack.last?.item.map { String($0.word.dropFirst("begin_".count)) }
                    problem(
                        .error, "survey", row.number, typeColumn.shown, "'\(raw)' closes a \(what), and no \(what) is open here",
                        stack.count > 1
                            ? "the \(openWhat!) '\(stack.last!.item!.name)' is open: close it first"
                            : "delete the row, or add the 'begin \(what)' it closes")
                    continue
                }
                let closed = stack.removeLast()
                switch word {
                case "end_group": stack[stack.count - 1].children.append(.group(open, closed.children))
                case "end_repeat": stack[stack.count - 1].children.append(.repeatGroup(open, closed.children))
                default: stack[stack.count - 1].children += expandLoop(open, closed.children, names: &names)
                }
            default:
                if Self.metadata.contains(word) {
                    problem(
                        .leftOut, "survey", row.number, typeColumn.shown,
                        "'\(word)' is not asked: Intake records when, by whom and on which device each record was made itself")
                    if !name.isEmpty { leftOutNames[name] = row.number }
                    continue
                }
                var item = item
                guard checkName(&item, nameColumn, &names, path: path(name), in: &paths) else {
                    if !name.isEmpty, names[name] == nil { leftOutNames[name] = row.number }
                    continue
                }
                stack[stack.count - 1].children.append(.question(item))
            }
        }
        while stack.count > 1 {
            let open = stack.removeLast()
            let what = String(open.item!.word.dropFirst("begin_".count))
            problem(
                .error, "survey", open.item!.row.number, typeColumn.shown,
                "the \(what) '\(open.item!.name)' that begins here is never closed", "add an 'end \(what)' row after its last question")
            stack[stack.count - 1].children.append(
                open.item!.word == "begin_repeat" ? .repeatGroup(open.item!, open.children) : .group(open.item!, open.children))
        }
        return stack[0].children
    }

    /// `select_one_from_file towns.csv`: the CSV beside the form read as a list (its `name` and
    /// `label` columns, or those the row's `parameters` name, `value=code label=town`); the list's
    /// name, or nil (said) when there is no such file or it is not a CSV Intake can read.
    mutating func choicesFromFile(_ file: String, row: Sheet.Row) -> String? {
        let column = survey.first("type")?.shown
        let stem = (file as NSString).deletingPathExtension
        var listName = String(stem.map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "_" || $0 == "-" ? $0 : "_" })
        if listName.first?.isLetter != true { listName = "file_" + listName }
        if let loaded = filesLoaded[file] { return loaded }
        guard (file as NSString).pathExtension.lowercased() == "csv" else {
            problem(
                .unsupported, "survey", row.number, column, "choices from '\(file)' (XML or GeoJSON) have no Intake equivalent",
                "give the choices as a CSV file, or on the choices sheet")
            return nil
        }
        guard !file.contains("/"), !file.contains("\\"), !file.hasPrefix("."), let data = formFile(file) else {
            problem(
                .unsupported, "survey", row.number, column, "the choices file '\(file)' is not beside the form",
                "put \(file) in the form's folder and import again, or import with --partial to leave the question out")
            return nil
        }
        var parameters: [String: String] = [:]
        for pair in survey.value("parameters", in: row).split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "," }) {
            let sides = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if sides.count == 2 { parameters[sides[0].lowercased()] = sides[1] }
        }
        let rows: [[String]]
        do {
            rows = try TextSheets.csvRows(try TextSheets.decode(data, kind: "CSV"))
        } catch {
            problem(.unsupported, "survey", row.number, column, "the choices file '\(file)' cannot be read: \(error.message)", error.hint)
            return nil
        }
        let header = rows.first?.map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        let (valueName, labelName) = (parameters["value"] ?? "name", parameters["label"] ?? "label")
        guard let valueIndex = header.firstIndex(of: valueName) else {
            problem(
                .unsupported, "survey", row.number, column, "the choices file '\(file)' has no '\(valueName)' column",
                "its first row names its columns: name, label (or say which with parameters: value=… label=…)")
            return nil
        }
        let labelIndex = header.firstIndex(of: labelName)
        while lists[listName] != nil { listName += "_file" }
        var seen: Set<String> = []
        var choices: [ChoiceRow] = []
        for (offset, cells) in rows.dropFirst().enumerated()
        where valueIndex < cells.count && !cells[valueIndex].trimmingCharacters(in: .whitespaces).isEmpty {
            var code = cells[valueIndex].trimmingCharacters(in: .whitespaces)
            if !Questionnaire.isChoiceCode(code) {
                var renamed = ChoiceListName.suggestion(code.folding(options: [String.CompareOptions.diacriticInsensitive], locale: nil))
                while seen.contains(renamed) { renamed += "_" }
                codeRenames[listName, default: [:]][code] = renamed
                code = renamed
            }
            guard seen.insert(code).inserted else { continue }
            let label =
                labelIndex.flatMap { $0 < cells.count ? cells[$0].trimmingCharacters(in: .whitespaces) : nil }.flatMap {
                    $0.isEmpty ? nil : $0
                } ?? code
            choices.append(ChoiceRow(row: offset + 2, code: code, labels: [base: label], extra: [:]))
        }
        guard !choices.isEmpty else {
            problem(
                .unsupported, "survey", row.number, column, "the choices file '\(file)' holds no choice",
                "give it rows under its header: name, label")
            return nil
        }
        lists[listName] = choices
        filesLoaded[file] = listName
        problem(
            .leftOut, "survey", row.number, column,
            "the choices of '\(file)' (\(choices.count)) are the list '\(listName)', written as the file \(listName).txt of the questionnaire"
        )
        return listName
    }

    /// A loop over a list is asked once per choice: a group for each, its questions named
    /// `question_choice` and `%(label)s` in their labels replaced by the choice's label.
    private mutating func expandLoop(_ loop: SurveyItem, _ children: [SurveyNode], names: inout [String: Int]) -> [SurveyNode] {
        let choices = lists[loop.list ?? ""] ?? []
        problem(
            .leftOut, "survey", loop.row.number, survey.first("type")?.shown,
            "the loop over '\(loop.list ?? "")' is asked once per choice (\(choices.count)): each question is named with the choice's name after its own, as 'question_\(choices.first?.code ?? "choice")'"
        )
        let labelColumns = survey.all("label")
        func relabel(_ row: Sheet.Row, _ choice: ChoiceRow) -> Sheet.Row {
            var row = row
            for column in labelColumns where row[column.index].contains("%(label)s") {
                let code = codes[column.language] ?? base
                let text = choice.labels[code] ?? choice.labels[base] ?? choice.code
                if row.cells.count <= column.index { row.cells += Array(repeating: "", count: column.index - row.cells.count + 1) }
                row.cells[column.index] = row[column.index].replacingOccurrences(of: "%(label)s", with: text)
            }
            return row
        }
        func renamed(_ item: SurveyItem, _ choice: ChoiceRow) -> SurveyItem {
            var item = item
            item.name = "\(item.name)_\(choice.code)"
            item.row = relabel(item.row, choice)
            if let earlier = names[item.name] {
                problem(
                    .unsupported, "survey", item.row.number, survey.first("name")?.shown,
                    "the loop's question '\(item.name)' takes the name of row \(earlier)", "rename one of them")
            }
            names[item.name] = item.row.number
            return item
        }
        func copy(_ nodes: [SurveyNode], _ choice: ChoiceRow) -> [SurveyNode] {
            nodes.map { node in
                switch node {
                case .question(let item): .question(renamed(item, choice))
                case .group(let item, let children): .group(renamed(item, choice), copy(children, choice))
                case .repeatGroup(let item, let children): .repeatGroup(renamed(item, choice), copy(children, choice))
                }
            }
        }
        return choices.map { choice in
            var group = renamed(loop, choice)
            group.word = "begin_group"
            return .group(group, copy(children, choice))
        }
    }

    /// Whether the row's name can be an Intake id. A name pyxform takes twice (in two groups) is
    /// given its group's name before it, and said so.
    private mutating func checkName(
        _ item: inout SurveyItem, _ column: Columns.Column, _ names: inout [String: Int], path: String, in paths: inout Set<String>
    ) -> Bool {
        guard !item.name.isEmpty, let earlier = names[item.name] else {
            guard checkName(&item, column, &names) else { return false }
            paths.insert(path)
            return true
        }
        guard paths.insert(path).inserted else {
            problem(
                .error, "survey", item.row.number, column.shown,
                "the name '\(item.name)' is already used on row \(earlier), in the same group",
                "give every question of a group its own name (pyxform refuses the form too)")
            return false
        }
        let parts = path.split(separator: "/").map(String.init)
        var wanted = (parts.dropLast().last.map { "\($0)_" } ?? "") + item.name
        var suffix = 2
        while names[wanted] != nil {
            wanted = (parts.dropLast().last.map { "\($0)_" } ?? "") + item.name + "_\(suffix)"
            suffix += 1
        }
        problem(
            .leftOut, "survey", item.row.number, column.shown,
            "the name '\(item.name)' is also used on row \(earlier), in another group; Intake names this one '\(wanted)'")
        item.name = wanted
        return checkName(&item, column, &names)
    }

    private mutating func checkName(_ item: inout SurveyItem, _ column: Columns.Column, _ names: inout [String: Int], section: Bool = false)
        -> Bool
    {
        guard !item.name.isEmpty else {
            problem(
                .error, "survey", item.row.number, column.shown, "the row has no name",
                "give it a name: letters, digits and '_', unique in the form")
            return false
        }
        let isId = { (name: String) in
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || section && $0 == "-")
            })
                && name.unicodeScalars.first.map { $0.properties.isAlphabetic || $0 == "_" } == true
        }
        if !isId(item.name), !section, item.name.unicodeScalars.first.map({ $0.properties.isAlphabetic || $0 == "_" }) == true,
            item.name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0))
            })
        {
            // XML allows '-' and '.' in a name (ODK forms use them often); Intake's ids do not.
            // The question is named with '_' in their place, and every ${…} that reads it follows.
            var clean = String(item.name.map { $0 == "-" || $0 == "." ? "_" : $0 })
            while names[clean] != nil || self.names.renamed.values.contains(clean) { clean += "_" }
            problem(
                .leftOut, "survey", item.row.number, column.shown,
                "the name '\(item.name)' is not an Intake id ('-' and '.' are not in one); Intake names it '\(clean)', and reads ${\(item.name)} as it"
            )
            self.names.renamed[item.name] = clean
            item.name = clean
        }
        guard isId(item.name) else {
            problem(
                .unsupported, "survey", item.row.number, column.shown, "the name '\(item.name)' is not an Intake id",
                "Intake ids are letters, digits and '_', starting with a letter or '_': rename it, e.g. '\(item.name.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined())', and every ${\(item.name)} that reads it"
            )
            return false
        }
        if let earlier = names[item.name] {
            problem(
                .error, "survey", item.row.number, column.shown, "the name '\(item.name)' is already used on row \(earlier)",
                "give every question, group and repeat its own name")
            return false
        }
        names[item.name] = item.row.number
        return true
    }

    private mutating func reportUnknownColumns() {
        let known: Set<String> = [
            "type", "name", "label", "hint", "required", "required_message", "relevant", "constraint", "constraint_message", "calculation",
            "default", "choice_filter", "repeat_count", "appearance", "parameters", "read_only", "intake", "guidance_hint", "image",
            "audio",
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
                    kinds[item.name] =
                        override ?? ["integer": "decimal", "decimal": "decimal", "range": "decimal", "date": "date"][item.word] ?? "text"
                    if item.orOther, let list = item.list, var rows = lists[list], !rows.contains(where: { $0.code == "other" }) {
                        // As pyxform does: the list gains an 'other' choice, in every language.
                        rows.append(
                            ChoiceRow(
                                row: item.row.number, code: "other",
                                labels: Dictionary(uniqueKeysWithValues: languages.map { ($0, "Other") }), extra: [:]))
                        lists[list] = rows
                    }
                    if item.orOther { names.known.insert("\(item.name)_other") }
                    if let list = item.list, let renamed = codeRenames[list] { names.codes[item.name] = renamed }
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
                (row.labels.values + [row.code]).contains {
                    $0.contains(",") || $0.contains("=") || $0.contains("|") || $0.contains(":") && $0 == row.code
                }
            }
            // A long list is a file of its own: a question's line holds a few thousand characters.
            let inline = rows.reduce(0) { $0 + $1.code.count + ($1.labels.values.map(\.count).max() ?? 0) + 3 }
            if use.questions.count > 1 || unsafe || filesLoaded.values.contains(list) || inline > 2_500 { usedLists[list]!.shared = true }
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
