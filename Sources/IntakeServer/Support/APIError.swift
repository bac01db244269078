import Foundation
import Hummingbird
import IntakeService

/// An error the API answers with `{"error": {"code", "message", "details"?}}` and a status.
///
/// Messages never carry answers or patient identities.
public struct APIError: Error, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var details: JSONValue?
    /// Headers the answer carries beside the body (`Allow`, `Retry-After`).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, message: String, details: JSONValue? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    static let unauthenticated = APIError(
        .unauthorized, code: "unauthenticated",
        message: "send a valid token as 'Authorization: Bearer <token>'; get one from POST /v1/sessions")

    public static func badRequest(_ message: String) -> APIError {
        APIError(.badRequest, code: "bad_request", message: message)
    }

    public static func notFound(_ what: String) -> APIError {
        APIError(.notFound, code: "not_found", message: "\(what) was not found")
    }
}

/// A JSON value, for error details and other free-form parts of responses.
public enum JSONValue: Sendable, Hashable, Codable {
    case string(String), number(Double), integer(Int), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

extension APIError {
    /// What the API answers for `error`, when it is one of the errors services throw (a
    /// refusal, a conflict, a missing thing); nil for anything else (a failure of the server or
    /// its store). For modules beside the API (the console) that answer in their own form.
    public static func answer(for error: any Error) -> APIError? {
        switch error {
        case let error as APIError: return error
        case let error as ServiceError: return APIError(error)
        case RecordStoreError.alreadyExists(let what): return APIError(.conflict, code: "already_exists", message: "\(what) already exists")
        case RecordStoreError.notFound(let what): return APIError.notFound(what)
        default: return nil
        }
    }
}
