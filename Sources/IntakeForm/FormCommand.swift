import IntakeCore

/// A command typed at a prompt, starting with ':' so that it can never be mistaken for an answer.
enum FormCommand: Equatable {
    case help, back, skip, nextSection, review, clear, finish, quit, list
    case go(Target)

    enum Target: Equatable {
        case patient
        case section(Int)
        case question(section: Int, index: Int)
    }

    enum ParseError: Error, Equatable {
        case unknown(String, suggestion: String?)
        case badTarget(String)
    }

    /// Parses `:go 2.5`; the leading ':' is already checked by the caller.
    static func parse(_ input: String) throws(ParseError) -> FormCommand {
        let words = input.dropFirst().split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let name = words.first?.lowercased() ?? ""
        switch name {
        case "help", "h", "?": return .help
        case "back", "b": return .back
        case "skip", "s": return .skip
        case "next", "n": return .nextSection
        case "review", "r": return .review
        case "clear": return .clear
        case "finish", "f": return .finish
        case "quit", "q", "exit": return .quit
        case "list", "l": return .list
        case "go", "g":
            guard words.count == 2 else { throw .badTarget(words.dropFirst().joined(separator: " ")) }
            return .go(try target(words[1]))
        default:
            let names = ["help", "back", "skip", "next", "review", "clear", "finish", "quit", "list", "go"]
            throw .unknown(name, suggestion: Suggestion.nearest(to: name, in: names, maxDistance: 2))
        }
    }

    private static func target(_ text: String) throws(ParseError) -> Target {
        if ["patient", "p", "0"].contains(text.lowercased()) { return .patient }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 1, let section = Int(parts[0]) { return .section(section) }
        if parts.count == 2, let section = Int(parts[0]), let index = Int(parts[1]) { return .question(section: section, index: index) }
        throw .badTarget(text)
    }
}
