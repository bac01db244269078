import Foundation

/// Why a request to the server did not give an answer the client can use.
public enum ClientError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The server could not be reached or did not answer in time.
    case offline(String)
    /// The server failed (5xx) or was overloaded (429).
    case server(status: Int, message: String)
    /// The token is missing, wrong or expired (401).
    case notAllowed(status: Int, message: String)
    /// The username or password is wrong, or the account is locked (401 at sign-in).
    case signInRefused(String)
    /// The token is fine, but this is not the signed-in account's to do, or a passcode is wrong (403).
    case forbidden(code: String, message: String)
    /// The request was refused as malformed or too large (4xx other than the above).
    case refused(status: Int, message: String)
    case notFound(String)
    case unexpected(String)
    /// Not sent: the connection would not protect it (plain http over a network).
    case insecure(String)

    /// Worth retrying later: the record stays queued.
    public var isTransient: Bool {
        switch self {
        case .offline, .server: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .offline(let message): message
        case .server(let status, let message): "the server failed (HTTP \(status)): \(message)"
        case .notAllowed(_, let message):
            "the server refused the token (missing, wrong or expired): \(message); sign in again with 'intake login'"
        case .signInRefused(let message): message
        case .forbidden(_, let message): "the server refused: \(message)"
        case .refused(let status, let message): "the server refused the request (HTTP \(status)): \(message)"
        case .notFound(let message): message
        case .unexpected(let message): message
        case .insecure(let message): message
        }
    }

    static func from(status: Int, data: Data) -> ClientError {
        let message = message(in: data)
        let code = (try? JSONDecoder().decode(ErrorJSON.self, from: data))?.error.code ?? ""
        switch status {
        // The server's own words: a sign-in refused, or this machine's enrolment stopped.
        case 401
        where ["bad_credentials", "account_locked", "too_many_attempts", "device_revoked", "device_mismatch", "account_unavailable"]
            .contains(code):
            return .signInRefused(message)
        case 401: return .notAllowed(status: status, message: message)
        case 403: return .forbidden(code: code, message: message)
        case 404: return .notFound(message)
        case 429, 500...599: return .server(status: status, message: message)
        default: return .refused(status: status, message: message)
        }
    }

    /// The error's code (`stale_revision`, `record_locked`, …), empty when it has none.
    static func code(in data: Data) -> String {
        (try? JSONDecoder().decode(ErrorJSON.self, from: data))?.error.code ?? ""
    }

    static func message(in data: Data) -> String {
        (try? JSONDecoder().decode(ErrorJSON.self, from: data))?.error.message ?? "no explanation given"
    }

    static func issues(in data: Data) -> [String] { remoteIssues(in: data).map(\.description) }

    static func remoteIssues(in data: Data) -> [RemoteIssue] {
        (try? JSONDecoder().decode(ErrorJSON.self, from: data))?.error.details?.issues ?? []
    }

    static func currentRevision(in data: Data) -> Int? {
        (try? JSONDecoder().decode(ErrorJSON.self, from: data))?.error.details?.currentRevision
    }
}
