import Foundation
import IntakeCore
import NIOHTTP1

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's REST API over URLSession: sign-in, records, batches, lookup.
public final class IntakeClient: Sendable {
    public let baseURL: URL
    let token: String?
    /// Sent as `Intake-Device-Id` (see ``DeviceId``).
    let deviceId: String?
    let session: URLSession
    /// Plain-HTTP servers are spoken to over SwiftNIO; others (https) through URLSession.
    let transport: HTTPTransport?
    /// Server-Sent Events over SwiftNIO, for plain-HTTP servers (nil for https).
    let eventStreams: EventStreamTransport?

    /// - Parameter timeout: seconds to wait for an answer before treating the server as unreachable.
    /// - Parameter tls: how an https server is trusted (the system's authorities by default).
    public init(baseURL: URL, token: String?, timeout: TimeInterval = 15, deviceId: String? = nil, tls: ClientTLS = ClientTLS()) {
        self.baseURL = baseURL
        self.token = token
        self.deviceId = deviceId
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 4
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        self.session = URLSession(configuration: configuration)
        if baseURL.scheme == "http", let host = baseURL.host {
            transport = HTTPTransport(host: host, port: baseURL.port ?? 80, timeout: timeout)
            eventStreams = EventStreamTransport(
                host: host, port: baseURL.port ?? 80, connectTimeout: .milliseconds(Int64(timeout * 1000)), idleTimeout: .seconds(45))
        } else if baseURL.scheme == "https", let host = baseURL.host, let context = try? tls.context() {
            // https over SwiftNIO too: the certificate checked against the CA file or the system's
            // authorities, and the pins, before anything is sent. (A CA file that does not read
            // leaves the transport out: every request then fails with what is wrong with it.)
            let port = baseURL.port ?? 443
            transport = HTTPTransport(
                host: host, port: port, timeout: timeout, tls: TLSSettings(options: tls, context: context, host: host, port: port))
            eventStreams = nil
        } else {
            transport = nil
            eventStreams = nil
        }
        self.tlsOptions = tls
    }

    let tlsOptions: ClientTLS

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Exchanges a username and password for a token.
    public func signIn(username: String, password: String) async throws(ClientError) -> String {
        let body = try encode(["username": username, "password": password])
        let (status, data) = try await send("POST", "/v1/sessions", body: body, authenticated: false)
        guard status == 201, let token = (try? JSONDecoder().decode(SessionJSON.self, from: data))?.token else {
            throw ClientError.from(status: status, data: data)
        }
        return token
    }

    /// Sends one new record.
    public func post(_ record: PatientResponse) async throws(ClientError) -> SendResult {
        let (status, data) = try await send("POST", "/v1/records", body: record.jsonData())
        switch status {
        case 201: return .created
        case 200: return .duplicate
        case 409: return .conflict(message: ClientError.message(in: data))
        case 422: return .invalid(message: ClientError.message(in: data), issues: ClientError.issues(in: data))
        default: throw ClientError.from(status: status, data: data)
        }
    }

    /// Sends new records in one request; a result for each, in order.
    public func postBatch(_ records: [PatientResponse]) async throws(ClientError) -> [SendResult] {
        try await postBatch(json: records.map { RecordCodec.encode($0) })
    }

    /// Sends records already in their JSON form (as the queue keeps them) in one request.
    public func postBatch(json records: [[UInt8]]) async throws(ClientError) -> [SendResult] {
        var writer = JSONWriter(capacity: records.reduce(16) { $0 + $1.count + 1 })
        writer.beginObject()
        writer.key("records")
        writer.beginArray()
        for record in records { writer.raw(record) }
        writer.endArray()
        writer.endObject()
        let (status, data) = try await send("POST", "/v1/records/batch", body: Data(writer.bytes))
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let response = try? JSONDecoder().decode(BatchJSON.self, from: data), response.results.count == records.count else {
            throw ClientError.unexpected("the server's answer to a batch could not be read")
        }
        return response.results.map(\.result)
    }

    /// Saves an edit of a server record, based on the revision it was loaded at.
    public func put(_ record: PatientResponse, baseRevision: Int) async throws(ClientError) -> SendResult {
        try await put(json: RecordCodec.encode(record), id: record.id, baseRevision: baseRevision)
    }

    /// Saves an edit already in its JSON form (as the queue keeps it).
    public func put(json record: [UInt8], id: UUID, baseRevision: Int) async throws(ClientError) -> SendResult {
        var writer = JSONWriter(capacity: record.count + 32)
        writer.beginObject()
        writer.key("baseRevision")
        writer.integer(baseRevision)
        writer.key("record")
        writer.raw(record)
        writer.endObject()
        let path = "/v1/records/\(id.uuidString.lowercased())"
        let (status, data) = try await send("PUT", path, body: Data(writer.bytes))
        switch status {
        case 200: return .updated(revision: (try? JSONDecoder().decode(ResultJSON.self, from: data))?.revision ?? baseRevision + 1)
        case 409:
            return .stale(currentRevision: ClientError.currentRevision(in: data) ?? baseRevision, message: ClientError.message(in: data))
        case 410:
            // Deleted on the server: the edit cannot land; it is set aside, not lost.
            return .conflict(message: ClientError.message(in: data))
        case 422: return .invalid(message: ClientError.message(in: data), issues: ClientError.issues(in: data))
        default: throw ClientError.from(status: status, data: data)
        }
    }

    /// A record of your team and its current revision.
    public func record(id: UUID) async throws(ClientError) -> (record: PatientResponse, revision: Int) {
        let (status, data) = try await send("GET", "/v1/records/\(id.uuidString.lowercased())", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        do {
            return try StoredRecordReader.read(data)
        } catch {
            throw ClientError.unexpected("the server's record could not be read: \(error)")
        }
    }

    /// Patients of your team matching any of the criteria, best first.
    public func lookup(_ criteria: LookupCriteria, limit: Int = 20) async throws(ClientError) -> [RemoteMatch] {
        var components = URLComponents()
        components.queryItems = criteria.queryItems + [URLQueryItem(name: "limit", value: String(limit))]
        let (status, data) = try await send("GET", "/v1/records?" + (components.percentEncodedQuery ?? ""), body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        do {
            return try JSONDecoder().decode(LookupJSON.self, from: data).results
        } catch {
            throw ClientError.unexpected("the server's lookup answer could not be read")
        }
    }

    private func encode(_ value: some Encodable) throws(ClientError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw ClientError.unexpected("the request could not be encoded")
        }
    }

    func send(_ method: String, _ path: String, body: Data?, authenticated: Bool = true) async throws(ClientError) -> (Int, Data) {
        if let transport {
            var headers = [("Content-Type", "application/json")]
            if authenticated, let token { headers.append(("Authorization", "Bearer \(token)")) }
            if let deviceId { headers.append(("Intake-Device-Id", deviceId)) }
            do {
                let answer = try await transport.send(method: HTTPMethod(rawValue: method), path: path, headers: headers, body: body)
                return (answer.status, answer.body)
            } catch let failure as TLSFailure {
                throw ClientError.insecure("refusing \(baseURL.absoluteString): \(failure)")
            } catch {
                throw ClientError.offline("cannot reach \(baseURL.absoluteString): \(Self.describe(transportError: error))")
            }
        }
        if baseURL.scheme == "https" {
            // The TLS settings did not load: say why, and send nothing (never fall back to a
            // transport that would ignore the CA file and the pins).
            try tlsOptions.validate()
            throw ClientError.insecure("cannot set up TLS to \(baseURL.absoluteString); check --ca-file and --pin")
        }
        guard let url = URL(string: path, relativeTo: baseURL) else { throw ClientError.unexpected("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if authenticated, let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let deviceId { request.setValue(deviceId, forHTTPHeaderField: "Intake-Device-Id") }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw ClientError.unexpected("no HTTP response") }
            return (http.statusCode, data)
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError.offline("cannot reach \(baseURL.absoluteString): \(Self.describe(error))")
        }
    }

    static func describe(transportError error: any Error) -> String {
        let text = String(describing: error).lowercased()
        switch error as? HTTPTransport.TransportError {
        case .timedOut?: return "no answer in time"
        case .closed?: return "the connection closed before the server answered"
        case nil: break
        }
        if text.contains("refused") { return "connection refused" }
        if text.contains("timeout") || text.contains("timed out") { return "no answer in time" }
        if text.contains("resolve") || text.contains("unknown host") { return "unknown host" }
        return "network error (\(type(of: error)))"
    }

    private static func describe(_ error: any Error) -> String {
        let code = (error as NSError).code
        switch code {
        case NSURLErrorTimedOut: return "no answer in time"
        case NSURLErrorCannotConnectToHost: return "connection refused"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "unknown host"
        case NSURLErrorNotConnectedToInternet, NSURLErrorNetworkConnectionLost: return "no network"
        default: return "network error \(code)"
        }
    }
}

/// What the server did with a record.
public enum SendResult: Sendable, Equatable {
    case created
    /// Already on the server with this content.
    case duplicate
    /// The id exists with other content.
    case conflict(message: String)
    /// The server's validation refused it.
    case invalid(message: String, issues: [String])
    case updated(revision: Int)
    /// The record changed on the server since it was loaded.
    case stale(currentRevision: Int, message: String)

    /// The server has the record: it may leave the queue.
    public var isAcknowledged: Bool {
        switch self {
        case .created, .duplicate, .updated: true
        default: false
        }
    }
}

/// Identifying information to look a patient up by.
public struct LookupCriteria: Sendable {
    public var familyName: String?
    public var givenName: String?
    public var dateOfBirth: LocalDate?
    public var externalId: String?

    public init(familyName: String? = nil, givenName: String? = nil, dateOfBirth: LocalDate? = nil, externalId: String? = nil) {
        self.familyName = familyName
        self.givenName = givenName
        self.dateOfBirth = dateOfBirth
        self.externalId = externalId
    }

    public var isEmpty: Bool { familyName == nil && givenName == nil && dateOfBirth == nil && externalId == nil }

    var queryItems: [URLQueryItem] {
        [
            familyName.map { URLQueryItem(name: "familyName", value: $0) }, givenName.map { URLQueryItem(name: "givenName", value: $0) },
            dateOfBirth.map { URLQueryItem(name: "dateOfBirth", value: $0.description) },
            externalId.map { URLQueryItem(name: "externalId", value: $0) },
        ].compactMap { $0 }
    }
}

/// A match from the server's lookup.
public struct RemoteMatch: Sendable, Decodable {
    public var id: String
    public var revision: Int
    public var status: String
    public var patient: PatientIdentification
    public var score: Int
}

extension IntakeClient {
    /// A questionnaire version published on the server, parsed with `IntakeCore`.
    public func questionnaire(_ reference: QuestionnaireReference) async throws(ClientError) -> Questionnaire {
        let (status, data) = try await send("GET", "/v1/questionnaires/\(reference.id)/versions/\(reference.version)", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        struct Detail: Decodable {
            var files: [String: String]
            var lists: [String: String]
        }
        guard let detail = try? JSONDecoder().decode(Detail.self, from: data) else {
            throw ClientError.unexpected("the server's questionnaire could not be read")
        }
        func file(_ entry: (key: String, value: String)) -> (String, QuestionnaireFiles.File) {
            (entry.key, QuestionnaireFiles.File(path: entry.key, bytes: Array(entry.value.utf8)))
        }
        let files = QuestionnaireFiles(
            directory: reference.id, files: Dictionary(uniqueKeysWithValues: detail.files.map(file)),
            lists: Dictionary(uniqueKeysWithValues: detail.lists.map(file)))
        do {
            return try QuestionnaireLoader.load(files)
        } catch {
            throw ClientError.unexpected("the server's copy of \(reference) does not load: \(error.diagnostics.count) problem(s)")
        }
    }
}
