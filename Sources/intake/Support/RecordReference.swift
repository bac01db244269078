import ArgumentParser
import Foundation
import IntakeClient

/// A record named on the command line by its whole id or by its first characters, as listings
/// show it (`d78265ce`): the server says which of the team's records that is.
enum RecordReference {
    static func resolve(_ text: String, with client: IntakeClient) async throws -> UUID {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let whole = UUID(uuidString: text) { return whole }
        guard (4...36).contains(text.count), text.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") }) else {
            throw ValidationError("'\(text.prefix(40))' is not a record id; give the id, or its first characters as listings show them (such as d78265ce).")
        }
        let matches = try await client.recordIds(startingWith: text)
        switch matches.count {
        case 1: return matches[0]
        case 0: throw ValidationError("No record of your team has an id starting with '\(text)'; check it with 'intake lookup' or 'intake referrals list'.")
        default:
            let shown = matches.prefix(3).map { $0.uuidString.lowercased().prefix(12) }.joined(separator: ", ")
            throw ValidationError("Several records have an id starting with '\(text)' (\(shown)…); give more characters of it.")
        }
    }
}
