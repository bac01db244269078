import Foundation
import IntakeCore

/// Writing the Intake files: a section for each top-level group (and for the questions between
/// them), a line for each question, its translations, the manifest and the shared lists.
extension FormReader {
    /// A line being written: its parts and the sheet column each came from.
    struct Parts {
        var items: [(text: String, column: String?)] = []

        mutating func add(_ text: String, _ column: String?) {
            items.append((text, column))
        }

        /// The line, `|` between parts (a bar inside a part escaped), and where each part starts.
        func line(sheet: String, row: Int) -> OutFile.Line {
            var text = ""
            var spans: [(start: Int, column: String?)] = []
            for (offset, item) in items.enumerated() {
                if offset > 0 { text += " | " }
                spans.append((text.count + 1, item.column))
                var escaped = item.text.replacingOccurrences(of: "\\|", with: "\u{1}").replacingOccurrences(of: "|", with: "\\|")
                    .replacingOccurrences(of: "\u{1}", with: "\\|")
                if offset == 0, escaped.hasPrefix("#") || escaped.hasPrefix("@") { escaped = "\\" + escaped }
                text += escaped
            }
            return OutFile.Line(text: text, sheet: sheet, row: row, spans: spans)
        }
    }

    /// The section being written, and its translations.
    struct SectionWriter {
        var number: Int
        var name: String
        var base = OutFile()
        var translations: [String: OutFile] = [:]
        var questionCount = 0
    }

    // MARK: Sections

    mutating func writeSections(_ nodes: [SurveyNode], title: String?) {
        var loose: [SurveyNode] = []
        var number = 0
        var usedNames: Set<String> = []
        let hasGroups = nodes.contains { if case .group = $0 { return true } else { return false } }
        func sectionName(_ wanted: String) -> String {
            // A file name's part: letters, digits, '-' and '_' (a '.' would read as a language).
            var clean = String(wanted.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "-" })
            if clean.isEmpty { clean = "section" }
            var name = clean
            var suffix = 2
            while usedNames.contains(name) {
                name = "\(clean)-\(suffix)"
                suffix += 1
            }
            usedNames.insert(name)
            return name
        }
        func flush(_ reader: inout FormReader) {
            guard !loose.isEmpty else { return }
            number += 1
            let titles = [reader.base: hasGroups || title == nil ? "Questions" : title!]
            if !reader.writeSection(number: number, name: sectionName("questions"), titles: titles, titleRow: nil, relevance: nil, loose) {
                number -= 1
            }
            loose = []
        }
        for node in nodes {
            if case .group(let item, _) = node, item.intake.contains("patient") { continue }  // an export's identification
            guard case .group(let item, let children) = node else {
                loose.append(node)
                continue
            }
            flush(&self)
            number += 1
            let titles = texts("label", survey, item.row)
            let relevance = expression("relevant", item.row, role: "relevant")
            // An export names a group apart from a question of the same name, and says the section's.
            let named = item.intake.first { $0.hasPrefix("section:") }.map {
                String($0.dropFirst("section:".count)).trimmingCharacters(in: .whitespaces)
            }
            if !writeSection(
                number: number, name: sectionName(named ?? item.name), titles: titles, titleRow: item.row.number, relevance: relevance,
                children)
            {
                number -= 1
                problem(
                    .leftOut, "survey", item.row.number, nil,
                    "the group '\(item.name)' holds no question Intake asks; it is no section of its own")
            }
            if survey.value("repeat_count", in: item.row) != "" || survey.value("required", in: item.row) != "" {
                problem(
                    .leftOut, "survey", item.row.number, nil,
                    "a group's 'required' and 'repeat_count' mean nothing in a group; they are not read")
            }
        }
        flush(&self)
        if number == 0 {
            if nodes.isEmpty {
                problem(.error, "survey", nil, nil, "the form has no questions", "add rows to the survey sheet")
            } else {
                problem(
                    .unsupported, "survey", nil, nil,
                    "the form holds no question Intake asks (only what Intake records itself or cannot hold)",
                    "add a question, a note or a calculation Intake can hold")
            }
        }
    }

    /// Writes a section's files; false (and nothing written) when it holds no question.
    mutating func writeSection(
        number: Int, name: String, titles: [String: String], titleRow: Int?, relevance: Expression?, _ nodes: [SurveyNode]
    ) -> Bool {
        var writer = SectionWriter(number: number, name: name)
        if let title = titles[base] ?? titles.values.first {
            writer.base.lines.append(OutFile.Line(text: "@title \(title)", sheet: "survey", row: titleRow, spans: [(1, nil)]))
        }
        for language in languages.dropFirst() {
            var file = OutFile()
            if let title = titles[language] {
                file.lines.append(OutFile.Line(text: "@title \(title)", sheet: "survey", row: titleRow, spans: [(1, nil)]))
            }
            writer.translations[language] = file
        }
        emit(nodes, inherited: relevance, into: &writer)
        guard writer.questionCount > 0 else { return false }
        files["\(number)-\(name).txt"] = writer.base
        for (language, file) in writer.translations {
            files["\(number)-\(name).\(language).txt"] = file
        }
        return true
    }

    mutating func emit(_ nodes: [SurveyNode], inherited: Expression?, into writer: inout SectionWriter) {
        for node in nodes {
            switch node {
            case .question(let item):
                emitQuestion(item, inherited: inherited, into: &writer)
            case .group(let item, let children):
                // A group inside a section: its label becomes a note, its relevance its questions'.
                let own = expression("relevant", item.row, role: "relevant")
                let relevance = Self.both(inherited, own)
                if !texts("label", survey, item.row).isEmpty {
                    var heading = item
                    heading.word = "note"
                    heading.intake = []
                    emitQuestion(heading, inherited: relevance, into: &writer, ownRelevance: false)
                }
                emit(children, inherited: relevance, into: &writer)
            case .repeatGroup(let item, let children):
                let before = (writer.base.lines.count, writer.questionCount)
                emitQuestion(item, inherited: inherited, into: &writer)
                guard writer.questionCount > before.1 else { continue }
                emit(children, inherited: nil, into: &writer)
                if writer.questionCount == before.1 + 1 {
                    // Nothing of the repeat is asked: it is no repeat.
                    writer.base.lines.removeSubrange(before.0...)
                    for language in languages.dropFirst() { writer.translations[language]!.lines.removeLast() }
                    writer.questionCount = before.1
                    problem(
                        .leftOut, "survey", item.row.number, nil, "the repeat '\(item.name)' holds no question Intake asks; it is left out")
                    continue
                }
                writer.base.lines.append(OutFile.Line(text: "@end \(item.name)", sheet: "survey", row: item.row.number, spans: [(1, nil)]))
                for language in languages.dropFirst() {
                    writer.translations[language]!.lines.append(
                        OutFile.Line(text: "@end \(item.name)", sheet: "survey", row: item.row.number, spans: [(1, nil)]))
                }
            }
        }
    }

    static func both(_ a: Expression?, _ b: Expression?) -> Expression? {
        guard let a else { return b }
        guard let b else { return a }
        var parts: [Expression] = []
        for part in [a, b] {
            if case .and(let inner) = part { parts += inner } else { parts.append(part) }
        }
        return .and(parts)
    }

    /// A column's XLSForm expression in Intake's language, or nil (with a problem) when empty or
    /// not expressible.
    mutating func expression(_ field: String, _ row: Sheet.Row, role: String) -> Expression? {
        let text = survey.value(field, in: row)
        guard !text.isEmpty, let column = survey.first(field) else { return nil }
        return read(text, row: row, column: column)
    }

    mutating func read(_ written: String, row: Sheet.Row, column: Columns.Column, sheet: String = "survey") -> Expression? {
        let text = readingCaseProperties(written)
        do {
            return try XPath.read(text, names: names)
        } catch {
            if text.contains(where: { "‘’“”".contains($0) }) {
                // ODK reads such an expression (its quotes straight); Intake does not guess.
                problem(
                    .unsupported, sheet, row.number, column.shown,
                    "the expression has curly quotes (‘’“”), which Intake does not read as quotes: \(error.message)",
                    "write straight quotes (' or \") in expressions")
                return nil
            }
            if text.contains("${last-saved#") {
                problem(
                    .unsupported, sheet, row.number, column.shown,
                    "'${last-saved#…}' (the last saved record's answer) has no Intake equivalent", "leave it out, or import with --partial")
                return nil
            }
            if let (name, at) = leftOutNames.first(where: { text.contains("${\($0.key)}") }) {
                problem(
                    .unsupported, sheet, row.number, column.shown,
                    "the expression reads ${\(name)}, which Intake does not ask (row \(at))",
                    "write the expression without it, or import with --partial to leave it out")
                return nil
            }
            let unsupported = ["no Intake equivalent", "stands for the answer itself", "is neither a ${question} nor a quoted value"]
                .contains { error.message.contains($0) }
            problem(unsupported ? .unsupported : .error, sheet, row.number, column.shown, error.message, error.hint)
            return nil
        }
    }

    // MARK: A question

    mutating func emitQuestion(_ item: SurveyItem, inherited: Expression?, into writer: inout SectionWriter, ownRelevance: Bool = true) {
        if item.intake.contains("patient") { return }
        let row = item.row
        let columns = survey
        let column = { (field: String) in columns.first(field)?.shown }
        var labels = texts("label", survey, row)
        if ["calculate", "hidden"].contains(item.word), !labels.isEmpty {
            // No form shows a calculate row's label; Intake keeps the row a calculate row (its
            // text is its name), so that it is exported back as one.
            problem(
                .leftOut, "survey", row.number, column("label"),
                "the label of a calculate row is not kept: no form shows it, and Intake names the value by its name")
            labels = [:]
        }
        var type: String?
        var choices: (list: String, rows: [ChoiceRow], shared: Bool)?
        var calculation = expression("calculation", row, role: "calculation")
        let intakeType = item.intake.first { Self.intakeTypeWords.contains(Self.firstWord($0)) }
        let appearance = survey.value("appearance", in: row)
        var appearanceRead = false
        var timePattern: (pattern: String, shown: String)?

        switch item.word {
        case "text", "note", "integer", "decimal", "date", "geopoint": type = item.word == "text" ? nil : item.word
        case "hidden":
            // A field with no control: its value is calculated or its default, as pyxform binds it.
            let defaultText = survey.value("default", in: row)
            if calculation == nil, !defaultText.isEmpty, let column = survey.first("default") {
                calculation =
                    defaultText.contains("${") || defaultText.contains("(")
                    ? read(defaultText, row: row, column: column) : .text(defaultText)
            }
            guard calculation != nil else {
                problem(
                    .leftOut, "survey", row.number, column("type"),
                    "the hidden field '\(item.name)' gets no value (no calculation or default); it is left out")
                return
            }
            type = Self.inferredType(calculation, kinds: kinds)
        case "calculate":
            type = Self.inferredType(calculation, kinds: kinds)
            if calculation == nil, survey.value("calculation", in: row).isEmpty {
                problem(
                    .error, "survey", row.number, column("calculation") ?? column("type"), "a calculate row needs a calculation",
                    "write the expression in the 'calculation' column")
            }
        case "barcode":
            // A barcode scanner on a laptop types the code and Enter: a text answer.
            problem(
                .leftOut, "survey", row.number, column("type"),
                "the barcode is asked as text: a scanner that types (most USB and Bluetooth scanners do) fills it")
        case "time", "datetime":
            // Intake has no time type: the answer is text, checked by a pattern, as ODK's
            // widget writes it without seconds and zone (`14:30`, `2024-03-15 14:30`).
            let pattern =
                item.word == "time"
                ? #"([01][0-9]|2[0-3]):[0-5][0-9]"# : #"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[ T]([01][0-9]|2[0-3]):[0-5][0-9]"#
            timePattern = (pattern, item.word == "time" ? "HH:MM (24 hours)" : "YYYY-MM-DD HH:MM")
            problem(
                .leftOut, "survey", row.number, column("type"),
                "'\(item.word)' is asked as text in the form \(timePattern!.shown), checked by a pattern: Intake has no time type")
        case "acknowledge", "trigger":
            // ODK stores "OK" when the box is ticked: a single choice of that one answer.
            type = "single: OK=OK"
            problem(
                .leftOut, "survey", row.number, column("type"),
                "the acknowledgement is a single choice of one answer, OK, which is what ODK stores")
        case "image":
            appearanceRead = appearance.lowercased().split(separator: " ").contains("signature")
            type = appearanceRead ? "signature" : "photo"
        case "audio": type = "audio"
        case "file": type = "document"
        case "begin_repeat": type = "repeat"
        case "range": type = rangeType(row)
        case "select_one", "select_multiple":
            let keyword = item.word == "select_one" ? "single" : "multiple"
            guard let list = item.list, !list.isEmpty else {
                problem(
                    .error, "survey", row.number, column("type"), "'\(item.word)' needs a list's name",
                    "write '\(item.word) list_name', with the list on the choices sheet")
                return
            }
            if intakeType.map(Self.firstWord) == "yesno" {
                type = nil
                break
            }
            guard let rows = lists[list] else {
                problem(
                    .error, "survey", row.number, column("type"), "the list '\(list)' is not on the choices sheet",
                    lists.isEmpty
                        ? "add a choices sheet with the list's choices"
                        : "the lists are: \(lists.keys.sorted().prefix(12).joined(separator: ", "))")
                return
            }
            let shared = usedLists[list]?.shared ?? false
            choices = (list, rows, shared)
            type =
                shared
                ? "\(keyword) from \(list)"
                : "\(keyword): " + rows.map { "\($0.code)=\($0.labels[base] ?? $0.code)" }.joined(separator: ", ")
        default:
            if saidRows.contains(row.number) { return }
            if let what = Self.unsupportedTypes[item.word] {
                problem(
                    .unsupported, "survey", row.number, column("type"), "'\(item.word)' (\(what)) has no Intake equivalent",
                    "ask it another way (a text question, a date), or import with --partial to leave it out")
            } else {
                let typed = survey.value("type", in: row)
                let known = Self.readType(typed.lowercased()).word
                let casing =
                    known != typed.lowercased().split(separator: " ").first.map(String.init) || Self.typeNames[typed.lowercased()] != nil
                problem(
                    .error, "survey", row.number, column("type"), "'\(typed)' is not a question type",
                    casing
                        ? "write it in lower case, '\(typed.lowercased())': pyxform reads types as written, and refuses this one too"
                        : "the types are text, integer, decimal, date, select_one, select_multiple, note, calculate, geopoint, image, audio, file, begin group and begin repeat"
                )
            }
            return
        }
        if let intakeType {
            let word = Self.firstWord(intakeType)
            let compatible: Set<String> =
                switch item.word {
                case "select_one": ["yesno", "single"]
                case "select_multiple": ["multiple"]
                case "text": ["text", "compound"]
                case "image": ["photo", "signature"]
                case "file": ["document"]
                case "calculate": ["text", "yesno", "integer", "decimal", "date", "single"]
                case "begin_repeat": ["repeat"]
                default: [item.word]
                }
            if compatible.contains(word) || item.word == "calculate" || calculation != nil {
                if word != "single" && word != "multiple" { type = intakeType }
            } else {
                problem(
                    .error, "survey", row.number, column("intake"),
                    "the intake column says '\(word)', but the row's type is '\(item.word)'", "make them agree, or empty the intake column")
            }
        }
        if !appearance.isEmpty && !appearanceRead {
            problem(
                .leftOut, "survey", row.number, column("appearance"),
                "the appearance '\(appearance)' is not used: Intake's terminal form shows every question its own way")
        }

        // The text, in every language.
        var text = labels[base]
        var hints = texts("hint", survey, row)
        if labels.isEmpty, !hints.isEmpty, !["calculate", "hidden"].contains(item.word) {
            // pyxform shows a hint in place of a missing label; Intake's text is the hint.
            labels = hints
            hints = [:]
            text = labels[base]
        }
        let unlabelled = labels.isEmpty
        if text == nil {
            let media = ["image", "audio", "video", "big-image", "media"].contains { field in
                survey.all(field).contains { !row[$0.index].trimmingCharacters(in: .whitespaces).isEmpty }
            }
            if ["calculate", "hidden", "begin_repeat"].contains(item.word) || calculation != nil {
                text = item.name
            } else if let other = labels.values.first {
                problem(
                    .leftOut, "survey", row.number, column("label"),
                    "the question has no label in the base language; another language's is used")
                text = other
            } else if media {
                // A picture or sound in place of a label (said unsupported below); its name is shown.
                text = item.name
            } else {
                problem(
                    .error, "survey", row.number, column("label"), "the question has no label",
                    "write what the field worker asks in the label column (pyxform refuses it too)")
                text = item.name
            }
            labels[base] = text
        }
        for (language, label) in labels where label.contains("${") {
            guard item.word == "note" else {
                problem(
                    .unsupported, "survey", row.number, column("label"),
                    "a label that shows answers (${…}) is only possible in a note in Intake", "put the answer in a note after the question")
                break
            }
            var shown = label
            for (old, new) in names.renamed where shown.contains("${\(old)}") {
                shown = shown.replacingOccurrences(of: "${\(old)}", with: "${\(new)}")
            }
            labels[language] = shown.replacingOccurrences(of: "${", with: "{")
        }

        writer.questionCount += 1
        var parts = Parts()
        parts.add(labels[base]!, column("label"))
        let keepsId = item.name != "s\(writer.number)_q\(writer.questionCount)"
        if keepsId { parts.add("id: \(item.name)", column("name")) }
        if let type { parts.add(type, intakeType != nil && type == intakeType ? column("intake") : column("type")) }

        let required = survey.value("required", in: row)
        switch required.lowercased() {
        case "", "no", "false", "false()", "0": break
        case "yes", "true", "true()", "1": parts.add("required", column("required"))
        default:
            if let condition = read(required, row: row, column: survey.first("required")!) {
                parts.add("required if: \(condition)", column("required"))
            }
        }
        if !survey.value("required_message", in: row).isEmpty || !texts("required_message", survey, row).isEmpty {
            problem(
                .leftOut, "survey", row.number, column("required_message"),
                "the message for a required question is not shown: Intake's form says itself, in the form's language, that an answer is needed"
            )
        }
        for segment in item.intake where segment != intakeType && segment.lowercased() != "from list" {
            parts.add(segment, column("intake"))
        }
        if let hint = hints[base] ?? hints.values.first {
            parts.add("help: \(hint)", column("hint"))
        } else if let timePattern {
            parts.add("help: \(timePattern.shown)", column("type"))
        }
        if let timePattern { parts.add("pattern: \(timePattern.pattern)", column("type")) }
        let relevance = Self.both(inherited, ownRelevance ? expression("relevant", row, role: "relevant") : nil)
        if let relevance { parts.add("show if: \(relevance)", column("relevant")) }
        if item.word == "note" { calculation = nil }
        if let calculation { parts.add("calculate: \(calculation)", column("calculation")) }
        let constraint = expression("constraint", row, role: "constraint")
        if let constraint { parts.add("constraint: \(constraint)", column("constraint")) }
        var messages = texts("constraint_message", survey, row)
        if constraint == nil, !messages.isEmpty, survey.value("constraint", in: row).isEmpty {
            problem(
                .leftOut, "survey", row.number, column("constraint_message"),
                "the constraint message is not used: the row has no constraint")
            messages = [:]
        }
        if let message = messages[base] ?? messages.values.first { parts.add("message: \(message)", column("constraint_message")) }
        if calculation != nil, item.word != "hidden", !survey.value("default", in: row).isEmpty {
            problem(.leftOut, "survey", row.number, column("default"), "the default is not used: the question's value is calculated")
        } else if item.word != "hidden", let value = defaultValue(item, type: type) {
            parts.add("default: \(value)", column("default"))
        }
        let filter = survey.value("choice_filter", in: row)
        if !filter.isEmpty {
            if let (filterColumn, question) = Self.choiceFilter(filter), let list = choices?.list,
                usedLists[list]?.filterColumn == filterColumn,
                (choiceColumns.columns + externalColumns.columns).contains(where: { $0.header == filterColumn })
            {
                parts.add("filter: \(names.renamed[question] ?? question)", column("choice_filter"))
            } else {
                problem(
                    .unsupported, "survey", row.number, column("choice_filter"), "the choice filter '\(filter)' has no Intake equivalent",
                    "Intake filters a list by the answer to an earlier single choice: write 'column = ${question}', with that column on the choices sheet, one filter column per list"
                )
            }
        }
        if item.word == "begin_repeat", let countText = Optional(survey.value("repeat_count", in: row)), !countText.isEmpty {
            if let count = read(countText, row: row, column: survey.first("repeat_count")!) {
                parts.add("count: \(count)", column("repeat_count"))
            }
        }
        for (field, what) in [("image", "a picture"), ("audio", "a sound"), ("video", "a video"), ("big-image", "a picture")] {
            for media in survey.all(field) where !row[media.index].trimmingCharacters(in: .whitespaces).isEmpty {
                if unlabelled {
                    problem(
                        .unsupported, "survey", row.number, media.shown,
                        "a question asked by \(what) alone, without a text, has no Intake equivalent",
                        "write the question's text in the label, or import with --partial to leave it out")
                } else {
                    problem(
                        .leftOut, "survey", row.number, media.shown,
                        "\(what) beside the label is not shown: Intake's terminal form asks by the text")
                }
            }
        }
        if !survey.value("trigger", in: row).isEmpty {
            problem(.unsupported, "survey", row.number, column("trigger"), "'trigger' has no Intake equivalent")
        }
        let saveTo = survey.value("save_to", in: row)
        if !saveTo.isEmpty {
            // A case property set from the answer (cases.txt's `set:`, written with the entities).
            savedTo.append((row.number, item.name, saveTo))
        }
        let readOnly = survey.value("read_only", in: row).lowercased()
        if ["yes", "true", "true()", "1"].contains(readOnly), calculation == nil, item.word != "note" {
            problem(
                .unsupported, "survey", row.number, column("read_only"),
                "a read-only question that is not calculated has no Intake equivalent", "calculate its value, or import with --partial")
        }
        let parameters = survey.value("parameters", in: row)
        if !parameters.isEmpty, item.word != "range" {
            problem(.leftOut, "survey", row.number, column("parameters"), "the parameters '\(parameters)' are not used")
        }
        if !survey.value("guidance_hint", in: row).isEmpty {
            problem(.leftOut, "survey", row.number, column("guidance_hint"), "the guidance hint is not shown")
        }
        writer.base.lines.append(parts.line(sheet: "survey", row: row.number))

        // Each translation's line.
        for language in languages.dropFirst() {
            var translated = Parts()
            if let label = labels[language] {
                translated.add(label, column("label"))
            } else {
                if !unlabelled { missingTranslations[language, default: 0] += 1 }
                translated.add(labels[base]!, column("label"))
            }
            if keepsId { translated.add("id: \(item.name)", column("name")) }
            if let hint = hints[language], hints[base] != nil { translated.add("help: \(hint)", column("hint")) }
            if let choices, !choices.shared, item.word != "calculate" {
                translated.add(
                    "labels: "
                        + choices.rows.map { "\($0.code)=\($0.labels[language] ?? $0.labels[base] ?? $0.code)" }.joined(separator: ", "),
                    column("label"))
            }
            if let message = messages[language], messages[base] != nil {
                translated.add("message: \(message)", column("constraint_message"))
            }
            for intake in survey.all("intake") where intake.language != nil && codes[intake.language] == language {
                for segment in Self.segments(row[intake.index].trimmingCharacters(in: .whitespaces)) {
                    translated.add(segment, intake.shown)
                }
            }
            writer.translations[language]!.lines.append(translated.line(sheet: "survey", row: row.number))
        }
        if item.orOther { emitOther(item, relevance: relevance, into: &writer) }
    }

    /// `or_other`, as pyxform writes it: after the choice, a text question `name_other` asked when
    /// 'other' is chosen (the list got its 'other' choice when names were read).
    mutating func emitOther(_ item: SurveyItem, relevance: Expression?, into writer: inout SectionWriter) {
        let name = "\(item.name)_other"
        guard !kinds.keys.contains(name) else {
            problem(
                .unsupported, "survey", item.row.number, survey.first("type")?.shown,
                "'or_other' asks '\(name)', a name the form already uses",
                "rename that question, or write the 'other' choice and its text question yourself")
            return
        }
        kinds[name] = "text"
        let chosen = Expression.call("selected", [.name(item.name, column: 1), .text("other")], column: 1)
        let shown = Self.both(relevance, chosen)!
        problem(
            .leftOut, "survey", item.row.number, survey.first("type")?.shown,
            "'or_other' is asked as pyxform asks it: an 'other' choice, then '\(name)' (\"Specify other.\") when it is chosen")
        writer.questionCount += 1
        var parts = Parts()
        parts.add("Specify other.", nil)
        parts.add("id: \(name)", nil)
        parts.add("show if: \(shown)", nil)
        writer.base.lines.append(parts.line(sheet: "survey", row: item.row.number))
        for language in languages.dropFirst() {
            var translated = Parts()
            translated.add("Specify other.", nil)
            translated.add("id: \(name)", nil)
            writer.translations[language]!.lines.append(translated.line(sheet: "survey", row: item.row.number))
        }
    }

    /// `range` with whole-number start, end and step 1 is an integer question in those bounds.
    mutating func rangeType(_ row: Sheet.Row) -> String? {
        var values: [String: Double] = ["start": 1, "end": 10, "step": 1]
        for pair in survey.value("parameters", in: row).split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "," }) {
            let sides = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if sides.count == 2, let value = Double(sides[1]) { values[sides[0]] = value }
        }
        let (start, end, step) = (values["start"]!, values["end"]!, values["step"]!)
        guard step == 1, start == start.rounded(), end == end.rounded() else {
            problem(
                .unsupported, "survey", row.number, survey.first("parameters")?.shown,
                "a range with steps other than 1 has no Intake equivalent",
                "ask an integer or decimal question with bounds, or import with --partial")
            return "decimal \(ExpressionValue.number(min(start, end)).text)..\(ExpressionValue.number(max(start, end)).text)"
        }
        return "integer \(Int(min(start, end)))..\(Int(max(start, end)))"
    }

    /// The `default` column: a value as the question's type reads it, or an expression.
    mutating func defaultValue(_ item: SurveyItem, type: String?) -> String? {
        let text = survey.value("default", in: item.row)
        guard !text.isEmpty, let column = survey.first("default") else { return nil }
        if text.contains("${") || text.contains("(") || text == "." {
            return read(text, row: item.row, column: column).map(\.description)
        }
        if let list = item.list, let renamed = codeRenames[list]?[text] { return Expression.text(renamed).description }
        let word = Self.firstWord(type ?? "text")
        switch word {
        case "integer", "decimal":
            if let number = Double(text) { return Expression.number(number).description }
        case "date":
            if let date = LocalDate(iso: text) { return date.description }
        case "yesno":
            if ["yes", "true", "1"].contains(text.lowercased()) { return "yes" }
            if ["no", "false", "0"].contains(text.lowercased()) { return "no" }
        case "multiple":
            problem(
                .unsupported, "survey", item.row.number, column.shown, "a default for a multiple choice has no Intake equivalent",
                "leave it out, or import with --partial")
            return nil
        default: break
        }
        return Expression.text(text).description
    }

    /// What a `calculate` row's value is: a number, a date, yes/no or text.
    static func inferredType(_ expression: Expression?, kinds: [String: String]) -> String {
        guard let expression else { return "text" }
        switch expression {
        case .number, .arithmetic, .negate: return "decimal"
        case .date: return "date"
        case .text: return "text"
        case .bool, .compare, .answered, .and, .or, .not: return "yesno"
        case .name(let name, _):
            switch kinds[name] {
            case "decimal", "integer": return "decimal"
            case "date": return "date"
            case "yesno": return "yesno"
            default: return "text"
            }
        case .call(let name, let arguments, _):
            switch name {
            case "if": return arguments.count == 3 ? inferredType(arguments[1], kinds: kinds) : "text"
            case "coalesce": return arguments.first.map { inferredType($0, kinds: kinds) } ?? "text"
            case "today": return "date"
            case "selected", "contains", "matches": return "yesno"
            case "concat", "lower", "upper", "substr": return "text"
            default: return "decimal"
            }
        }
    }

    // MARK: Manifest and lists

    mutating func writeManifest(id: String, settings: Settings) {
        var lines = ["# Imported from an XLSForm by 'intake questionnaire import'; see docs/questionnaire-format.md."]
        if let version = settings.version {
            lines.append("# The XLSForm's version: \(version) (Intake versions a questionnaire by its content).")
        }
        lines.append("id: \(id)")
        lines.append("title: \(settings.title ?? id)")
        for line in settings.intake where line.hasPrefix("title.") { lines.append(line) }
        lines.append("format: 1")
        lines.append("languages: \(languages.joined(separator: ", "))")
        for code in languages { if let name = languageNames[code] { lines.append("language.\(code): \(name)") } }
        files["manifest.txt"] = OutFile(lines: lines.map { OutFile.Line(text: $0, sheet: "settings", row: 2, spans: [(1, nil)]) })
        for (language, count) in missingTranslations.sorted(by: { $0.key < $1.key }) {
            problem(
                .leftOut, "survey", nil, nil,
                "\(count) label\(count == 1 ? " has" : "s have") no '\(language)' text; the \(base) text is shown in its place")
        }
    }

    mutating func writeLists() {
        for (list, use) in usedLists.sorted(by: { $0.key < $1.key }) where use.shared {
            guard let rows = lists[list] else { continue }
            guard ChoiceListName.isValid(list) else {
                problem(
                    .unsupported, choiceColumns.sheet, rows.first?.row, nil, "the list name '\(list)' cannot name an Intake list file",
                    "list names shared by several questions are letters, digits, '_' and '-', starting with a letter: rename it")
                continue
            }
            var base = OutFile()
            for choice in rows {
                var tag = ""
                if let filter = use.filterColumn {
                    var value = choice.extra[filter] ?? ""
                    if !value.isEmpty, !Questionnaire.isChoiceCode(value) {
                        // The filtering question's choice, coded as Intake codes it.
                        value = codeRenames.values.compactMap { $0[value] }.first ?? ChoiceListName.suggestion(value)
                    }
                    tag = value.isEmpty ? "" : "\(value):"
                }
                let column = choiceColumns.first("label")?.shown
                base.lines.append(
                    OutFile.Line(
                        text: "\(tag)\(choice.code) = \(choice.labels[self.base] ?? choice.code)", sheet: choiceColumns.sheet,
                        row: choice.row, spans: [(1, choiceColumns.first("name")?.shown), (tag.count + choice.code.count + 2, column)]))
            }
            files["\(list).txt"] = base
            for language in languages.dropFirst() {
                var file = OutFile()
                for choice in rows {
                    let label = choice.labels[language] ?? choice.labels[self.base] ?? choice.code
                    if choice.labels[language] == nil { missingChoiceTranslations += 1 }
                    file.lines.append(
                        OutFile.Line(
                            text: "\(choice.code) = \(label)", sheet: choiceColumns.sheet, row: choice.row,
                            spans: [(1, choiceColumns.first("name")?.shown)]))
                }
                files["\(list).\(language).txt"] = file
            }
        }
        if missingChoiceTranslations > 0 {
            problem(
                .leftOut, choiceColumns.sheet, nil, nil,
                "\(missingChoiceTranslations) choice label\(missingChoiceTranslations == 1 ? " has" : "s have") no translation; the \(base) text is shown in its place"
            )
        }
    }
}

/// List files are named after the list; a name that would read as a section or a translation is not one.
enum ChoiceListName {
    /// A code made of a name Intake cannot take: `24/7` → `24_7`, `geflüchtete` → `gefl_chtete`.
    static func suggestion(_ name: String) -> String {
        let clean = String(
            name.unicodeScalars.map {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".") ? Character($0) : "_"
            })
        return clean.isEmpty ? "choice" : clean
    }

    static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
        }
            && name != "manifest" && name != "cases"
    }
}
