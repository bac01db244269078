import Foundation

extension QuestionnaireParser {
    /// Reads `N-name.<language>.txt` for every language after the base one and attaches its texts.
    func applyTranslations(to sections: [Section]) -> [Section] {
        var sections = sections
        var translationFiles: [SectionFileName: QuestionnaireFiles.File] = [:]
        for (fileName, file) in files.files {
            guard let name = SectionFileName(fileName), let language = name.language else { continue }
            guard languages.dropFirst().contains(language) else {
                report(
                    file.path, nil, nil, "a translation into '\(language)', which the manifest does not list",
                    hint: "add '\(language)' to 'languages:' in manifest.txt, or remove the file")
                continue
            }
            guard sections.contains(where: { $0.number == name.number && $0.name == name.name }) else {
                report(
                    file.path, nil, nil, "a translation of a section that does not exist",
                    hint: "name it after its section file: N-name.\(language).txt")
                continue
            }
            translationFiles[name] = file
        }
        for language in languages.dropFirst() {
            for index in sections.indices {
                var key = SectionFileName(number: sections[index].number, name: sections[index].name, language: language)
                key.language = language
                guard let file = translationFiles[key] else {
                    report(
                        sections[index].path, nil, nil, "section \(sections[index].number) has no '\(language)' translation",
                        hint:
                            "add \(sections[index].number)-\(sections[index].name).\(language).txt with the same questions in the same order"
                    )
                    continue
                }
                translate(&sections[index], language: language, file: file)
            }
        }
        return sections
    }

    private func translate(_ section: inout Section, language: String, file: QuestionnaireFiles.File) {
        let text = textFile(file)
        var count = 0
        for line in text.lines {
            switch QuestionLine.split(line.text) {
            case .blank: continue
            case .directive(let name, let value, let column):
                applyDirective(
                    name, value: value, to: &section.title, language: language, path: file.path, line: line.number, column: column)
            case .question(let textSegment, let annotations):
                count += 1
                guard count <= section.questions.count else { continue }
                translate(&section.questions[count - 1], textSegment, annotations, language: language, path: file.path, line: line.number)
            }
        }
        if count != section.questions.count, text.diagnostics.isEmpty {
            report(
                file.path, nil, nil, "the translation has \(count) questions; \(section.path) has \(section.questions.count)",
                hint: "a translation has the same questions in the same order, one a line")
        }
    }

    private func translate(
        _ question: inout Question, _ textSegment: QuestionLine.Segment, _ annotations: [QuestionLine.Segment],
        language: String, path: String, line: Int
    ) {
        if textSegment.text.isEmpty {
            report(
                path, line, textSegment.column, "the translated question has no text", hint: "write the translation before the first '|'")
        }
        question.text.translations[language] = textSegment.text
        for (annotation, segment) in parse(annotations, path: path, line: line) {
            switch annotation {
            case .id(let id) where id != question.id:
                report(
                    path, line, segment.column, "the id '\(id)' does not match question \(question.position) ('\(question.id ?? "no id")')",
                    hint: "translations follow the base file's order; a question may be missing or extra above this line")
            case .id: continue
            case .help(let help):
                if question.help == nil { question.help = LocalizedText("") }
                question.help?.translations[language] = help
            case .labels(let labels):
                if case .compound(var fields) = question.type {
                    translateFieldChoices(&fields, labels, language: language, path: path, line: line, column: segment.column)
                    question.type = .compound(fields)
                } else {
                    question.type = translated(
                        question.type, labels, language: language, path: path, line: line, column: segment.column,
                        position: question.position)
                }
            case .fields(let labels):
                translateFieldLabels(&question, labels, language: language, path: path, line: line, column: segment.column)
            case .message(let message):
                guard question.constraint?.message != nil else {
                    report(
                        path, line, segment.column, "the base question has no 'message' to translate",
                        hint: "remove it, or add the message to the base file")
                    continue
                }
                question.constraint?.message?.translations[language] = message
            case .alertMessage(let message):
                guard question.alert != nil else {
                    report(
                        path, line, segment.column, "the base question has no alert to translate",
                        hint: "remove it, or add 'alert if' and 'alert' to the base file")
                    continue
                }
                question.alert?.message.translations[language] = message
            default:
                report(
                    path, line, segment.column, "a translation line carries only text, id, help, labels, fields, message and alert",
                    hint: "types, required, identifying and show-if come from the base file")
            }
        }
    }

    /// The type with its inline choices' labels translated.
    private func translated(
        _ type: QuestionType, _ labels: [(code: String, label: String)], language: String, path: String, line: Int, column: Int,
        position: QuestionPosition
    ) -> QuestionType {
        guard var set = type.choices, set.listName == nil else {
            report(
                path, line, column, "question \(position) has no inline choices to label",
                hint: "choices from a shared list are translated in the list's own file")
            return type
        }
        for entry in labels {
            guard let index = set.choices.firstIndex(where: { $0.code == entry.code }) else {
                report(
                    path, line, column, "no choice '\(entry.code)' in question \(position)",
                    hint: "use the codes of the base file: \(set.choices.map(\.code).joined(separator: ", "))")
                continue
            }
            set.choices[index].label.translations[language] = entry.label
        }
        if case .singleChoice = type { return .singleChoice(set) }
        return .multipleChoice(set)
    }

    /// `labels: unit.mg=ملغ` on a compound question labels the choices of its fields.
    private func translateFieldChoices(
        _ fields: inout [CompoundField], _ labels: [(code: String, label: String)], language: String, path: String, line: Int, column: Int
    ) {
        for entry in labels {
            let parts = entry.code.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let index = fields.firstIndex(where: { $0.key == parts[0] }) else {
                report(
                    path, line, column, "'\(entry.code)' names no field choice",
                    hint: "label a compound field's choices as field.code=label, e.g. unit.mg=…")
                continue
            }
            let position = QuestionPosition(section: 0, index: 0)
            fields[index].type = translated(
                fields[index].type, [(parts[1], entry.label)], language: language, path: path, line: line, column: column,
                position: position)
        }
    }

    private func translateFieldLabels(
        _ question: inout Question, _ labels: [(code: String, label: String)], language: String, path: String, line: Int, column: Int
    ) {
        guard case .compound(var fields) = question.type else {
            report(
                path, line, column, "question \(question.position) is not compound; only compound questions have fields",
                hint: "remove 'fields:'")
            return
        }
        for entry in labels {
            guard let index = fields.firstIndex(where: { $0.key == entry.code }) else {
                report(
                    path, line, column, "question \(question.position) has no field '\(entry.code)'",
                    hint: "its fields are \(fields.map(\.key).joined(separator: ", "))")
                continue
            }
            fields[index].label.translations[language] = entry.label
        }
        question.type = .compound(fields)
    }
}

extension SectionFileName {
    init(number: Int, name: String, language: String?) {
        self.init("\(number)-\(name).txt")!
        self.language = language
    }
}
