/// What a patient agreed to share, from nothing to every qualified researcher: the one list of
/// consent scopes, which the server, the exports, the roster and the command line all read.
public enum SharingScope: String, Sendable, Hashable, Codable, CaseIterable {
    /// Never reaches a researcher.
    case noSharing = "no_sharing"
    /// The sponsor's own study team and its partners (researchers with `study` access).
    case sponsorsAndPartners = "sponsors_and_partners"
    /// Any qualified researcher (`study` or `external` access).
    case allQualifiedResearchers = "all_qualified_researchers"

    /// The scopes as a message names them: "no_sharing, sponsors_and_partners or all_qualified_researchers".
    public static var spelled: String { spell(allCases.map(\.rawValue)) }
}

/// How consent was given.
public enum ConsentMethod: String, Sendable, Hashable, Codable, CaseIterable {
    case verbal, written, electronic

    /// The methods as a message names them: "verbal, written or electronic".
    public static var spelled: String { spell(allCases.map(\.rawValue)) }
}

/// Names as a message lists the choices: "a, b or c".
package func spell(_ names: [String]) -> String {
    names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
}
