import Foundation
import Hummingbird
import IntakeCore
import IntakeService

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

    /// The request body, at most `limit` bytes (413 above it), sent within `timeout` (408 after
    /// it): a client that trickles a body would otherwise hold a connection and a task for ever.
    static func body(of request: Request, limit: Int, timeout: Duration) async throws -> Data {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw tooLarge(limit)
        }
        do {
            let body = request.body
            let buffer = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask { try await body.collect(upTo: limit) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let buffer else {
                throw APIError(
                    .requestTimeout, code: "body_timeout",
                    message:
                        "the request body did not arrive within \(timeout.components.seconds) seconds; send it whole, or check the network",
                    headers: [.connection: "close"])
            }
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

    /// Decodes a body, turning failures into 400s that name the field: strict JSON first
    /// (``JSONReader/check(_:)``: no trailing commas, UTF-8 only, no key twice, no NUL), then
    /// only the fields `T` knows, `null` only where it means something.
    static func decode<T: RequestBody>(_ type: T.Type, from data: Data) throws -> T {
        do {
            try JSONReader.check(data)
        } catch {
            throw APIError.badRequest("the body is not valid JSON " + error.description)
        }
        try checkFields(of: T.self, in: data)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw APIError.badRequest(describe(error))
        }
    }

    /// Whether the body (strict JSON already) holds `key` at its top level.
    static func hasField(_ key: String, in data: Data) -> Bool {
        (try? JSONReader.document(data) { reader throws(JSONReadError) -> Bool in
            var found = false
            try reader.object { name, reader throws(JSONReadError) in
                if name == key { found = true }
                try reader.skipValue()
            }
            return found
        }) ?? false
    }

    /// Decodes a body whose `key` holds an array of `Item` objects, checking each item as strictly
    /// as a top-level body (only `Item`'s fields, `null` only where it means something).
    static func decode<T: RequestBody, Item: RequestBody>(_ type: T.Type, from data: Data, items key: String, of item: Item.Type) throws
        -> T
    {
        let decoded = try decode(type, from: data)
        try check(data) { reader, problem throws(JSONReadError) in
            try reader.object { name, reader throws(JSONReadError) in
                guard name == key, reader.peek() == UInt8(ascii: "[") else {
                    try reader.skipValue()
                    return
                }
                try reader.array { index, reader throws(JSONReadError) in
                    guard problem == nil, reader.peek() == UInt8(ascii: "{") else {
                        try reader.skipValue()
                        return
                    }
                    try fields(of: Item.self, &reader, &problem, at: "\(key)[\(index)]: ")
                }
            }
        }
        return decoded
    }

    private static func checkFields<T: RequestBody>(of type: T.Type, in data: Data) throws {
        try check(data) { reader, problem throws(JSONReadError) in
            guard reader.peek() == UInt8(ascii: "{") else {
                problem = "the body must be a JSON object"
                try reader.skipValue()
                return
            }
            try fields(of: T.self, &reader, &problem, at: "")
        }
    }

    /// Reads the (strict) body with `body`, which notes the first problem it finds; a 400 saying it.
    private static func check(_ data: Data, _ body: (inout JSONReader, inout String?) throws(JSONReadError) -> Void) throws {
        var problem: String?
        do {
            try JSONReader.document(data) { reader throws(JSONReadError) in try body(&reader, &problem) }
        } catch {
            throw APIError.badRequest("the body is not valid JSON " + error.description)
        }
        if let problem { throw APIError.badRequest(problem) }
    }

    /// Reads one object, noting the first field `T` does not take, or a `null` where it means nothing.
    private static func fields<T: RequestBody>(of type: T.Type, _ reader: inout JSONReader, _ problem: inout String?, at place: String)
        throws(JSONReadError)
    {
        try reader.object { name, reader throws(JSONReadError) in
            if problem == nil, !T.fields.contains(name) {
                problem =
                    "\(place)field '\(String(name.prefix(64)))' is not one this request takes; send only \(T.fields.sorted().joined(separator: ", "))"
            }
            if reader.null() {
                if problem == nil, T.fields.contains(name), !T.nullable.contains(name) {
                    problem = "\(place)field '\(String(name.prefix(64)))' is null; leave it out or give a value"
                }
            } else {
                try reader.skipValue()
            }
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
