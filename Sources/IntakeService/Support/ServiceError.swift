import Foundation
import IntakeCore

/// A request a service cannot carry out, in the service's words: the one error every service
/// throws. Services know no HTTP: the server's edge (`APIError.init(_:)` in IntakeServer) gives
/// each kind its status and code, the console, the façades and the command line say it in their
/// own form.
///
/// Messages never carry answers or patient identities.
public struct ServiceError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// What was asked for does not exist, or is not the asker's to know of (404).
        case notFound
        /// The request itself is malformed (400).
        case invalid
        /// Well formed, but a value in it is not acceptable (422, `invalid_request`).
        case invalidRequest
        /// A questionnaire's files have problems, each listed in ``problems`` (422).
        case invalidQuestionnaire
        /// Well formed, but not something this server can act on, for the reason `code` names (422).
        case unprocessable(code: String)
        /// The asker may not do this, for the reason `code` names (403).
        case forbidden(code: String)
        /// The thing is not in a state that allows it, for the reason `code` names (409).
        case conflict(code: String)
        /// An invitation's passcode was wrong; `remaining` more tries before it locks (403).
        case wrongPasscode(remaining: Int)
        /// The record was deleted: its tombstone says when and by whom (410).
        case deleted(Tombstone)
    }

    public var kind: Kind
    public var description: String
    /// Individual problems, when there are several.
    public var problems: [String]

    public init(_ kind: Kind, _ description: String, problems: [String] = []) {
        self.kind = kind
        self.description = description
        self.problems = problems
    }

    /// Whether the thing asked for is missing or deleted (404 or 410).
    public var isMissing: Bool {
        switch kind {
        case .notFound, .deleted: true
        default: false
        }
    }

    public static func notFound(_ message: String) -> ServiceError { ServiceError(.notFound, message) }
    public static func invalidRequest(_ message: String) -> ServiceError { ServiceError(.invalidRequest, message) }
    public static func forbidden(_ message: String, code: String = "forbidden") -> ServiceError {
        ServiceError(.forbidden(code: code), message)
    }
    public static func conflict(_ code: String, _ message: String) -> ServiceError { ServiceError(.conflict(code: code), message) }
    public static func refused(_ code: String, _ message: String) -> ServiceError { ServiceError(.unprocessable(code: code), message) }
    public static func wrongPasscode(remaining: Int) -> ServiceError {
        ServiceError(
            .wrongPasscode(remaining: remaining),
            "the passcode is wrong; \(remaining) more tr\(remaining == 1 ? "y" : "ies") before the invitation locks")
    }
    /// Record `id` does not exist, or the asker may not know of it.
    public static func noRecord(_ id: UUID) -> ServiceError { .notFound("record \(id.uuidString.lowercased()) was not found") }
    /// Record `tombstone.recordId` was deleted.
    public static func deleted(_ tombstone: Tombstone) -> ServiceError {
        ServiceError(
            .deleted(tombstone),
            "record \(tombstone.recordId.uuidString.lowercased()) was deleted at \(Timestamp.string(from: tombstone.deletedAt)) by \(tombstone.deletedBy); it cannot be read, edited or sent again under this id"
        )
    }
}
