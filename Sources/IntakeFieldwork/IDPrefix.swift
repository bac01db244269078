import Foundation

/// Ids typed by their first characters, as the listings print them.
public enum IDPrefix {
    /// The one id among `ids` that starts with `prefix`; an error naming the `noun` and the
    /// command that lists them when none or several do.
    public static func resolve(_ prefix: String, among ids: [String], noun: String, listing: String) throws -> String {
        let matches = Set(ids.filter { $0.hasPrefix(prefix.lowercased()) })
        guard let only = matches.first, matches.count == 1 else {
            throw IDPrefixError(
                matches.isEmpty
                    ? "No \(noun) you can see has an id starting with '\(prefix)'; list them with '\(listing)'."
                    : "Several \(noun)s start with '\(prefix)'; give more of the id.")
        }
        return only
    }
}

/// An id that matches none or several of what the user can see.
public struct IDPrefixError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
