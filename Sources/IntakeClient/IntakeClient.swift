import Foundation
import IntakeCore

/// The server's REST API: sign-in, records, batches, lookup, and the rest in extensions, every
/// request over one libcurl transport (``CurlTransport``).
public final class IntakeClient: Sendable {
    public let baseURL: URL
    let token: String?
    /// Sent as `Intake-Device-Id` (see ``DeviceId``).
    let deviceId: String?
    /// Every request goes through it; nil when the address is not http(s) with a host.
    let transport: CurlTransport?
    public let timeout: TimeInterval
    let tls: ClientTLS
    /// Told the server with each request (`Intake-Version`, `Intake-Queue-Size`): what a
    /// coordinator's device list shows.
    let intakeVersion: String?
    let queueSize: Int?

    /// - Parameter timeout: the whole wait for one exchange (connecting, sending, the answer)
    ///   before treating the server as unreachable: a server that accepts the connection and
    ///   never answers holds no one longer. A batch, which may be large on a slow link, may go on
    ///   as long as bytes move, and ends after this long without any.
    /// - Parameter tls: how an https server is trusted (the system's authorities by default).
    public init(
        baseURL: URL, token: String?, timeout: TimeInterval = 15, deviceId: String? = nil, tls: ClientTLS = ClientTLS(),
        intakeVersion: String? = nil,
        queueSize: Int? = nil
    ) {
        self.baseURL = baseURL
        self.token = token
        self.deviceId = deviceId
        self.timeout = timeout
        self.tls = tls
        self.intakeVersion = intakeVersion
        self.queueSize = queueSize
        transport = CurlTransport(baseURL: baseURL, timeout: timeout, tls: tls)
    }

    /// This client, telling the server that `count` records wait in this machine's queue.
    public func reporting(queueSize count: Int) -> IntakeClient {
        IntakeClient(
            baseURL: baseURL, token: token, timeout: timeout, deviceId: deviceId, tls: tls, intakeVersion: intakeVersion, queueSize: count)
    }

    /// This client with another token (the one an enrolment gave).
    public func with(token: String) -> IntakeClient {
        IntakeClient(
            baseURL: baseURL, token: token, timeout: timeout, deviceId: deviceId, tls: tls, intakeVersion: intakeVersion,
            queueSize: queueSize)
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

    /// Signs out: the server revokes the token this client uses (a token it no longer knows is
    /// signed out already).
    public func signOut() async throws(ClientError) {
        let (status, data) = try await send("DELETE", "/v1/sessions/current", body: nil)
        guard status == 204 || status == 401 else { throw ClientError.from(status: status, data: data) }
    }

    /// Sends one new record.
    public func post(_ record: PatientResponse) async throws(ClientError) -> SendResult {
        let (status, data) = try await send("POST", "/v1/records", body: record.jsonData())
        switch status {
        case 201: return .created
        case 200: return .duplicate
        case 409: return .conflict(message: ClientError.message(in: data))
        case 422:
            return .invalid(
                message: ClientError.message(in: data), issues: ClientError.remoteIssues(in: data), code: ClientError.code(in: data))
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
        let answer = try await exchange("POST", "/v1/records/batch", body: Data(writer.bytes), limit: .idle(timeout))
        let (status, data) = (answer.status, answer.body)
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
        case 200:
            let result = try? JSONDecoder().decode(ResultJSON.self, from: data)
            // An edit that changed nothing: the server has this content already, at its revision.
            if result?.outcome == "unchanged" { return .duplicate }
            return .updated(revision: result?.revision ?? baseRevision + 1)
        case 409 where ClientError.code(in: data) == "record_locked":
            // Approved and locked by its reviewer: the edit waits, set aside, until they reopen it.
            return .conflict(message: ClientError.message(in: data))
        case 409:
            return .stale(currentRevision: ClientError.currentRevision(in: data) ?? baseRevision, message: ClientError.message(in: data))
        case 410:
            // Deleted on the server: the edit cannot land; it is set aside, not lost.
            return .conflict(message: ClientError.message(in: data))
        case 422:
            return .invalid(
                message: ClientError.message(in: data), issues: ClientError.remoteIssues(in: data), code: ClientError.code(in: data))
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

    func encode(_ value: some Encodable) throws(ClientError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw ClientError.unexpected("the request could not be encoded")
        }
    }

    func send(_ method: String, _ path: String, body: Data?, authenticated: Bool = true) async throws(ClientError) -> (Int, Data) {
        let answer = try await exchange(method, path, body: body, authenticated: authenticated)
        return (answer.status, answer.body)
    }

    /// The headers every request carries: the body's type, the token, the device.
    func headers(authenticated: Bool = true, json: Bool = true) -> [(String, String)] {
        var headers: [(String, String)] = json ? [("Content-Type", "application/json")] : []
        if authenticated, let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let deviceId { headers.append(("Intake-Device-Id", deviceId)) }
        if let intakeVersion { headers.append(("Intake-Version", intakeVersion)) }
        if let queueSize { headers.append(("Intake-Queue-Size", String(queueSize))) }
        return headers
    }

    func exchange(
        _ method: String, _ path: String, body: Data?, authenticated: Bool = true, json: Bool = true, extraHeaders: [(String, String)] = [],
        sink: CurlTransport.Sink = .memory, limit: CurlTransport.Limit = .deadline
    ) async throws(ClientError) -> CurlTransport.Answer {
        guard let transport else {
            throw ClientError.unexpected("\(baseURL.absoluteString) is not an http:// or https:// address with a host")
        }
        return try await transport.transfer(
            method: method, path: path, headers: headers(authenticated: authenticated, json: json) + extraHeaders, body: body, sink: sink,
            limit: limit)
    }
}

/// What the server did with a record.
public enum SendResult: Sendable, Equatable {
    case created
    /// Already on the server with this content.
    case duplicate
    /// The id exists with other content.
    case conflict(message: String)
    /// The server's validation refused it: its words, the problems it found, and its code
    /// (`invalid_record`, `unknown_collector`, …) for the client to say it in its own words.
    case invalid(message: String, issues: [RemoteIssue], code: String)
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
        let detail = try await questionnaireFiles(reference)
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

    /// A version's files as the server keeps them: section, translation and manifest files, and
    /// the shared lists it uses, by name.
    public func questionnaireFiles(_ reference: QuestionnaireReference) async throws(ClientError) -> (
        files: [String: String], lists: [String: String]
    ) {
        let (status, data) = try await send(
            "GET", "/v1/questionnaires/\(Self.segment(reference.id))/versions/\(Self.segment(reference.version))", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        struct Detail: Decodable {
            var files: [String: String]
            var lists: [String: String]
        }
        guard let detail = try? JSONDecoder().decode(Detail.self, from: data) else {
            throw ClientError.unexpected("the server's questionnaire could not be read")
        }
        return (detail.files, detail.lists)
    }
}

extension IntakeClient {
    /// The user name of the account the token belongs to (`GET /v1/me`).
    public func me() async throws(ClientError) -> String {
        let (status, data) = try await send("GET", "/v1/me", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        struct Me: Decodable { var username: String }
        guard let me = try? JSONDecoder().decode(Me.self, from: data) else {
            throw ClientError.unexpected("the server's answer about the account could not be read")
        }
        return me.username
    }
}
