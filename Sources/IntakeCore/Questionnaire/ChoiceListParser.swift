import Foundation

/// Reads shared choice lists such as `Data/countries.txt`: one `code = Label` (or bare label) a line.
enum ChoiceListParser {
    /// `SY = Syria` or `Syria` (code `syria`); nil when no code can be made from the label.
    static func choice(from item: String) -> (code: String, label: String)? {
        if let equals = item.firstIndex(of: "=") {
            let code = item[..<equals].trimmingSpaces()
            let label = item[item.index(after: equals)...].trimmingSpaces()
            guard isCode(code), !label.isEmpty else { return nil }
            return (code, label)
        }
        let code = slug(item)
        return code.isEmpty ? nil : (code, item)
    }

    static func isCode(_ s: String) -> Bool {
        !s.isEmpty
            && s.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0))
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
    static func parse(_ file: TextFile, report: (QuestionnaireDiagnostic) -> Void) -> [(code: String, label: String)] {
        var result: [(code: String, label: String)] = []
        var codes: Set<String> = []
        for line in file.lines {
            let item = line.text.trimmingSpaces()
            if item.isEmpty || item.hasPrefix("#") { continue }
            guard let choice = choice(from: item) else {
                report(
                    QuestionnaireDiagnostic(
                        path: file.path, line: line.number, column: 1, message: "expected 'code = Label'",
                        hint: "codes are letters, digits, '_', '-' or '.', e.g. 'SY = Syria'"))
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
