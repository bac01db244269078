import Foundation

/// Reads shared choice lists such as `Data/countries.txt`: one `code = Label` (or bare label) a line.
enum ChoiceListParser {
    /// `SY = Syria` or `Syria` (code `syria`); `amman:sahab = Sahab` is a choice shown when the
    /// question that filters the list is answered `amman`. Nil when no code can be made.
    static func choice(from item: String) -> (code: String, label: String, filter: String?)? {
        if let equals = item.firstIndex(ofASCII: UInt8(ascii: "=")) {
            var code = item[..<equals].trimmingSpaces()
            let label = item[item.index(after: equals)...].trimmingSpaces()
            var filter: String?
            if let colon = code.firstIndex(ofASCII: UInt8(ascii: ":")) {
                filter = String(code[..<colon]).trimmingSpaces()
                code = String(code[code.index(after: colon)...]).trimmingSpaces()
                guard isCode(filter!) else { return nil }
            }
            guard isCode(code), !label.isEmpty else { return nil }
            return (code, label, filter)
        }
        let code = slug(item)
        return code.isEmpty ? nil : (code, item, nil)
    }

    /// A choice's code: ASCII letters, digits, '_', '-' and '.' (the rule ``Questionnaire/isChoiceCode(_:)`` gives others).
    static func isCode(_ s: String) -> Bool {
        !s.isEmpty
            && s.unicodeScalars.allSatisfy {
                $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == "."
            }
    }

    /// `Once a day` → `once_a_day`.
    static func slug(_ label: String) -> String {
        var result = ""
        for scalar in label.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty, result.last != "_" {
                result.append("_")
            }
        }
        while result.last == "_" { result.removeLast() }
        return result
    }

    /// Parses a whole list file, reporting bad lines.
    static func parse(_ file: TextFile, report: (QuestionnaireDiagnostic) -> Void) -> [(code: String, label: String, filter: String?)] {
        var result: [(code: String, label: String, filter: String?)] = []
        var codes: Set<String> = []
        for line in file.lines {
            let item = line.text.trimmingSpaces()
            if item.isEmpty || item.hasPrefix("#") { continue }
            guard let choice = choice(from: item) else {
                report(
                    QuestionnaireDiagnostic(
                        path: file.path, line: line.number, column: 1, message: "expected 'code = Label'",
                        hint: "codes are letters, digits, '_', '-' or '.', e.g. 'SY = Syria' (or 'amman:sahab = Sahab' for a filtered list)"
                    ))
                continue
            }
            guard codes.insert(choice.code).inserted else {
                report(
                    QuestionnaireDiagnostic(
                        path: file.path, line: line.number, column: 1, message: "the code '\(choice.code)' appears twice",
                        hint: "each choice in a list needs its own code"))
                continue
            }
            result.append(choice)
        }
        return result
    }
}

extension Questionnaire {
    /// Whether `text` can be a choice's code: ASCII letters, digits, '_', '-' and '.'.
    public static func isChoiceCode(_ text: String) -> Bool {
        ChoiceListParser.isCode(text)
    }
}
