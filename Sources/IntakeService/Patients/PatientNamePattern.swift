import Foundation

/// A LIKE pattern for names starting with a folded query, with `\`, `%` and `_` escaped (the
/// stores say `ESCAPE '\'`).
package enum PatientNamePattern {
    package static func prefix(_ folded: String) -> String {
        var pattern = ""
        for character in folded {
            if character == "\\" || character == "%" || character == "_" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }
}
