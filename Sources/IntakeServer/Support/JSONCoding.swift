import Foundation
import Hummingbird
import IntakeCore

/// Reading request bodies and writing JSON responses.
enum JSONCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        return encoder
    }()

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A JSON body already written, such as canonical record bytes.
    static func response(json: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
    }

    /// One record from a request body, read by ``RecordCodec``; 400 says where it went wrong.
    static func record(from data: Data) throws -> PatientResponse {
        do {
            return try RecordCodec.decode(data)
        } catch {
            throw APIError.badRequest("the record could not be read " + error.description)
        }
    }

    /// The request body, at most `limit` bytes (413 above it).
    static func body(of request: Request, limit: Int) async throws -> Data {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw tooLarge(limit)
        }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Data(buffer: buffer)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge(limit)
        }
    }

    static func tooLarge(_ limit: Int) -> APIError {
        APIError(
            .contentTooLarge, code: "body_too_large",
            message: "the request body is larger than \(limit) bytes; send fewer records per request")
    }

    /// Decodes a body, turning decoding failures into 400s that name the field.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw APIError.badRequest(describe(error))
        }
    }

    /// `field 'records[2].patient.dateOfBirth': expected a date written as YYYY-MM-DD.`
    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "the body" : "field '\(text)'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) has the wrong type; expected \(describe(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null; expected \(describe(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not valid JSON" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "the body could not be read"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: type is any Collection.Type ? "an array" : "an object"
        }
    }
}
