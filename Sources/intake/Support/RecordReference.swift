import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore

/// A record named on the command line by its whole id or by its first characters, as listings
/// show it (`d78265ce`): the server says which of the team's records that is.
enum RecordReference {
    static func resolve(_ text: String, with client: IntakeClient) async throws -> UUID {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let whole = UUID(uuidString: text) { return whole }
        guard ShortId.isPrefix(text) else {
            throw ValidationError(
                "'\(text.prefix(40))' is not a record id; give the id, or its first characters as listings show them (such as d78265ce).")
        }
        let matches = try await client.recordIds(startingWith: text)
        switch matches.count {
        case 1: return matches[0]
        case 0:
            throw ValidationError(
                "No record of your team has an id starting with '\(text)'; check it with 'intake lookup' or 'intake referrals list'.")
        default:
            let shown = matches.prefix(3).map { $0.uuidString.lowercased().prefix(12) }.joined(separator: ", ")
            throw ValidationError("Several records have an id starting with '\(text)' (\(shown)…); give more characters of it.")
        }
    }
}

/// A registry patient named on the command line by their whole id or by its first characters,
/// as listings show it (`6f9619ff`): the server says which of the team's patients that is. With
/// no server in reach, a short id stays as it is (the offline paths resolve it in this machine's
/// copy).
enum PatientReference {
    static func resolve(_ text: String, with client: IntakeClient) async throws -> String {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let whole = UUID(uuidString: text) { return whole.uuidString.lowercased() }
        guard ShortId.isPrefix(text) else {
            throw ValidationError(
                "'\(text.prefix(40))' is not a patient id; give the id, or its first characters as listings show them (such as 6f9619ff).")
        }
        let matches: [String]
        do throws(ClientError) {
            matches = try await client.patientIds(startingWith: text)
        } catch {
            if error.isTransient { return text }
            throw error
        }
        switch matches.count {
        case 1: return matches[0]
        case 0:
            throw ValidationError(
                "No patient of your team's registry has an id starting with '\(text)'; check it with 'intake patient find'.")
        default:
            let shown = matches.prefix(3).map { $0.prefix(12) }.joined(separator: ", ")
            throw ValidationError("Several patients have an id starting with '\(text)' (\(shown)…); give more characters of it.")
        }
    }
}
