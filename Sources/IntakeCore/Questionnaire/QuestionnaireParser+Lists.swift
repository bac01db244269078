import Foundation

extension QuestionnaireParser {
    /// The shared list `name` with its translations, read once; nil (with a message) when missing.
    func choiceList(named name: String, path: String, line: Int, column: Int) -> ChoiceSet? {
        if let cached = listCache[name] {
            if cached == nil { reportMissingList(name, path: path, line: line, column: column) }
            return cached
        }
        guard let file = files.lists["\(name).txt"] else {
            listCache[name] = .some(nil)
            reportMissingList(name, path: path, line: line, column: column)
            return nil
        }
        var choices = ChoiceListParser.parse(textFile(file), report: report).map {
            Choice(code: $0.code, label: LocalizedText($0.label), filter: $0.filter)
        }
        for language in languages.dropFirst() {
            guard let translation = files.lists["\(name).\(language).txt"] else {
                report(
                    file.path, nil, nil, "the list '\(name)' has no '\(language)' translation",
                    hint: "add \(name).\(language).txt beside it with the same codes, as the manifest lists '\(language)'")
                continue
            }
            for entry in ChoiceListParser.parse(textFile(translation), report: report) {
                guard let index = choices.firstIndex(where: { $0.code == entry.code }) else {
                    report(
                        translation.path, nil, nil, "the code '\(entry.code)' is not in \(name).txt",
                        hint: "translations use the codes of the base list")
                    continue
                }
                choices[index].label.translations[language] = entry.label
            }
        }
        let set = ChoiceSet(choices: choices, listName: name)
        listCache[name] = set
        return set
    }

    private func reportMissingList(_ name: String, path: String, line: Int, column: Int) {
        let available = files.lists.keys.filter { $0.split(separator: ".").count == 2 }.map { String($0.dropLast(4)) }.sorted()
        let hint =
            Suggestion.nearest(to: name, in: available).map { "did you mean '\($0)'?" }
            ?? (available.isEmpty
                ? "put \(name).txt in the Data/ folder beside Questionnaires/, or in the questionnaire folder"
                : "lists found: \(available.joined(separator: ", "))")
        report(path, line, column, "no choice list named '\(name)'", hint: hint)
    }
}
