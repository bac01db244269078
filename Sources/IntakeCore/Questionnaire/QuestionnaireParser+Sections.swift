import Foundation

extension QuestionnaireParser {
    /// The section files by number, after checking their names and numbering.
    func sectionFiles() -> [(number: Int, name: SectionFileName, file: QuestionnaireFiles.File)] {
        var sections: [Int: (SectionFileName, QuestionnaireFiles.File)] = [:]
        for (fileName, file) in files.files.sorted(by: { $0.key < $1.key }) where fileName != Manifest.fileName {
            guard fileName.first?.isNumber == true else { continue }
            guard let name = SectionFileName(fileName) else {
                report(
                    file.path, nil, nil, "cannot read the section number and name from '\(fileName)'",
                    hint: "name section files like 1-demographics.txt")
                continue
            }
            guard name.language == nil else { continue }
            if let other = sections[name.number] {
                report(
                    file.path, nil, nil, "two section files are numbered \(name.number): '\(other.1.path)' and this one",
                    hint: "give each section its own number")
                continue
            }
            sections[name.number] = (name, file)
        }
        if sections.isEmpty, !files.files.isEmpty {
            report(
                files.directory, nil, nil, "the questionnaire has no section files",
                hint: "add section files named 1-name.txt, 2-name.txt, …")
        }
        let numbers = sections.keys.sorted()
        for (expected, number) in zip(1..., numbers) where expected != number {
            report(
                sections[number]!.1.path, nil, nil,
                "sections must be numbered 1, 2, 3… without gaps; this is \(number) where \(expected) was expected",
                hint: "rename the file to start with '\(expected)-'")
            break
        }
        return numbers.map { ($0, sections[$0]!.0, sections[$0]!.1) }
    }

    func parseSections() -> [Section] {
        var idPositions: [String: (QuestionPosition, String, Int)] = [:]
        return sectionFiles().map { number, name, file in
            let text = textFile(file)
            var section = Section(number: number, name: name.name, title: LocalizedText(name.defaultTitle), questions: [], path: file.path)
            /// The repeat groups open at this line, outermost first, with the line each began on.
            var open: [(position: QuestionPosition, line: Int)] = []
            for line in text.lines {
                switch QuestionLine.split(line.text) {
                case .blank: continue
                case .directive("end", let value, let column):
                    guard let group = open.popLast() else {
                        report(
                            file.path, line.number, column, "'@end' closes a repeat, and no repeat is open",
                            hint: "remove it, or begin the group with a '| repeat' question")
                        continue
                    }
                    if let header = section.questions.first(where: { $0.position == group.position }), !value.isEmpty, value != header.id {
                        report(
                            file.path, line.number, column, "'@end \(value)' closes the repeat '\(header.key)' (line \(group.line))",
                            hint: "write '@end \(header.key)', or plain '@end'")
                    }
                    if section.questions.last?.position == group.position {
                        report(
                            file.path, group.line, nil, "the repeat has no questions",
                            hint: "put the questions asked per instance between it and '@end'")
                    }
                case .directive(let directive, let value, let column):
                    applyDirective(directive, value: value, to: &section.title, path: file.path, line: line.number, column: column)
                case .question(let textSegment, let annotations):
                    let position = QuestionPosition(section: number, index: section.questions.count + 1)
                    guard var question = parseQuestion(textSegment, annotations, position: position, path: file.path, line: line.number)
                    else { continue }
                    question.group = open.last?.position
                    if let group = question.group { groupOf[position] = group }
                    if question.isRepeat {
                        if open.count >= RepeatLimits.maxDepth {
                            report(
                                file.path, line.number, nil, "repeats nest at most \(RepeatLimits.maxDepth) deep",
                                hint: "close the enclosing repeat with '@end' first, or ask these questions in the outer repeat")
                        }
                        open.append((position, line.number))
                    }
                    if let id = question.id {
                        if let (other, otherPath, otherLine) = idPositions[id] {
                            report(
                                file.path, line.number, nil,
                                "the id '\(id)' is already used by question \(other) (\(otherPath):\(otherLine))",
                                hint: "ids must be unique across the questionnaire")
                        } else {
                            idPositions[id] = (position, file.path, line.number)
                        }
                    }
                    section.questions.append(question)
                }
            }
            for group in open.reversed() {
                report(
                    file.path, group.line, nil, "the repeat that begins here has no '@end'", hint: "end its questions with a line '@end'")
            }
            if section.questions.isEmpty, text.diagnostics.isEmpty {
                report(file.path, nil, nil, "the section has no questions", hint: "add one question a line, or remove the file")
            }
            return section
        }
    }

    func applyDirective(
        _ name: String, value: String, to title: inout LocalizedText, language: String? = nil, path: String, line: Int, column: Int
    ) {
        // A translation repeats the base file's '@end' lines, which say nothing to translate.
        if name == "end", language != nil { return }
        guard name == "title" else {
            let hint = Suggestion.nearest(to: name, in: ["title", "end"]).map { "did you mean '@\($0)'?" }
            report(
                path, line, column, "unknown directive '@\(name)'",
                hint: hint
                    ?? "the directives are '@title Section title' and '@end' (after a repeat's questions); start a question with '\\@' to begin it with '@'"
            )
            return
        }
        guard !value.isEmpty else {
            report(path, line, column, "@title needs a title", hint: "write '@title Medical history'")
            return
        }
        if let language { title.translations[language] = value } else { title.base = value }
    }

    private func parseQuestion(
        _ textSegment: QuestionLine.Segment, _ annotations: [QuestionLine.Segment], position: QuestionPosition, path: String, line: Int
    ) -> Question? {
        guard !textSegment.text.isEmpty else {
            report(path, line, textSegment.column, "the question has no text", hint: "write the question before the first '|'")
            return nil
        }
        var question = Question(
            position: position, id: nil, text: LocalizedText(textSegment.text), type: .text, isRequired: false,
            help: nil, showIf: nil, line: line)
        var typeSeen = false
        let pendingBefore = pendingExpressions.count
        for (annotation, segment) in parse(annotations, path: path, line: line) {
            switch annotation {
            case .id(let id): question.id = id
            case .required(let required): question.isRequired = required
            case .identifying: question.isIdentifying = true
            case .help(let help): question.help = LocalizedText(help)
            case .showIf(let syntax):
                pendingConditions.append(PendingCondition(position: position, syntax: syntax, path: path, line: line))
            case .showIfExpression(let expression):
                pending(.showIf, expression, position, path, line, segment.column)
            case .choiceFilter(let id, let column):
                pendingFilters.append((position, id, path, line, column))
            case .calculate(let expression): pending(.calculate, expression, position, path, line, segment.column)
            case .constraint(let expression): pending(.constraint, expression, position, path, line, segment.column)
            case .requiredIf(let expression): pending(.requiredIf, expression, position, path, line, segment.column)
            case .defaultValue(let expression): pending(.defaultValue, expression, position, path, line, segment.column)
            case .alertIf(let expression): pending(.alertIf, expression, position, path, line, segment.column)
            case .repeatCount(let expression): pending(.repeatCount, expression, position, path, line, segment.column)
            case .pattern(let pattern):
                question.constraint = AnswerConstraint(
                    expression: question.constraint?.expression, pattern: pattern, message: question.constraint?.message)
            case .message(let message):
                var constraint = question.constraint ?? AnswerConstraint()
                constraint.message = LocalizedText(message)
                question.constraint = constraint
            case .alertMessage(let message):
                alertMessages[position] = LocalizedText(message)
            case .type(let spec):
                if typeSeen {
                    report(path, line, segment.column, "the question has more than one type", hint: "keep one of them")
                }
                typeSeen = true
                if let type = resolve(spec, path: path, line: line, column: segment.column) { question.type = type }
            case .labels, .fields:
                report(
                    path, line, segment.column, "'labels' and 'fields' belong in translation files",
                    hint: "give choices here as 'single: code=Label, …'")
            }
        }
        checkRules(of: &question, typeSeen: typeSeen, pending: pendingExpressions[pendingBefore...], path: path)
        return question
    }

    /// The annotations that parse, each with its segment; the others are reported.
    func parse(_ segments: [QuestionLine.Segment], path: String, line: Int) -> [(Annotation, QuestionLine.Segment)] {
        var parsed: [(Annotation, QuestionLine.Segment)] = []
        for segment in segments {
            guard !segment.text.isEmpty else {
                report(path, line, segment.column, "empty annotation", hint: "remove the extra '|'")
                continue
            }
            do {
                parsed.append((try Annotation.parse(segment), segment))
            } catch {
                report(path, line, error.column, error.message, hint: error.hint)
            }
        }
        return parsed
    }

    /// Turns a parsed type into a question type, reading shared choice lists.
    func resolve(_ spec: Annotation.TypeSpec, path: String, line: Int, column: Int) -> QuestionType? {
        switch spec {
        case .text: return .text
        case .yesNo: return .yesNo
        case .note: return .note
        case .geopoint: return .geopoint
        case .repeatGroup(let bounds): return .repeatGroup(bounds)
        case .attachment(let kind): return .attachment(kind)
        case .integer(let bounds): return .integer(bounds)
        case .decimal(let bounds): return .decimal(bounds)
        case .date(let bounds): return .date(bounds)
        case .single(let choices): return choiceSet(choices, path: path, line: line, column: column).map(QuestionType.singleChoice)
        case .multiple(let choices): return choiceSet(choices, path: path, line: line, column: column).map(QuestionType.multipleChoice)
        case .compound(let fields):
            var resolved: [CompoundField] = []
            for field in fields {
                if case .note = field.type {
                    report(path, line, column, "a compound field cannot be a note", hint: "give the field a type that takes an answer")
                    return nil
                }
                if case .repeatGroup = field.type {
                    report(
                        path, line, column, "a compound field cannot be a repeat",
                        hint: "ask the repeated questions between 'repeat' and '@end'")
                    return nil
                }
                if case .geopoint = field.type {
                    report(path, line, column, "a compound field cannot be a place", hint: "ask for the place as a question of its own")
                    return nil
                }
                guard let type = resolve(field.type, path: path, line: line, column: column) else { return nil }
                resolved.append(CompoundField(key: field.key, type: type, isRequired: field.required))
            }
            return .compound(resolved)
        }
    }

    private func choiceSet(_ spec: Annotation.ChoicesSpec, path: String, line: Int, column: Int) -> ChoiceSet? {
        switch spec {
        case .inline(let choices):
            return ChoiceSet(choices: choices.map { Choice(code: $0.code, label: LocalizedText($0.label), filter: $0.filter) })
        case .list(let name):
            return choiceList(named: name, path: path, line: line, column: column)
        }
    }
}
