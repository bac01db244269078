import Foundation
import Hummingbird
import IntakeCore

/// Records: idempotent `POST /v1/records`, `POST /v1/records/batch`, and by id `GET`, `PUT`, revisions.
struct RecordController {
    let services: IntakeServices
    static let writers: Set<Role> = [.fieldworker, .coordinator]

    struct Update: Decodable {
        var baseRevision: Int
        var record: PatientResponse
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/records", postOne)
        routes.on(.post, "/v1/records/batch", postBatch)
        routes.on(.get, "/v1/records/{id}") { _, context in
            let (_, team) = try context.requireTeam(Self.writers)
            let stored = try await ownRecord(try Self.id(context), team: team)
            return try JSONCoding.response(
                StoredRecordJSON(
                    record: stored.record, revision: stored.revision, receivedBy: stored.receivedBy, receivedAt: stored.receivedAt,
                    updatedAt: stored.updatedAt))
        }
        routes.on(.put, "/v1/records/{id}", put)
        routes.on(.get, "/v1/records/{id}/revisions") { _, context in
            let (_, team) = try context.requireTeam(Self.writers)
            let id = try Self.id(context)
            _ = try await ownRecord(id, team: team)
            let revisions = try await services.store.revisions(of: id).map {
                StoredRevisionJSON(revision: $0.revision, savedBy: $0.savedBy, savedAt: $0.savedAt, record: $0.record)
            }
            return try JSONCoding.response(["revisions": revisions])
        }
    }

    struct StoredRevisionJSON: Encodable {
        var revision: Int
        var savedBy: String
        var savedAt: Date
        var record: PatientResponse
    }

    private func postOne(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try context.requireTeam(Self.writers)
        let record = try JSONCoding.decode(
            PatientResponse.self, from: try await JSONCoding.body(of: request, limit: services.configuration.maxBodyBytes))
        let result = try await services.records.ingest([record], owner: RecordOwner(teamId: team, username: user.username))[0]
        switch result {
        case .invalid(let code, let message, let issues):
            throw APIError(.unprocessableContent, code: code, message: message, details: IssueJSON.details(issues))
        case .stored(.conflict(let current), _):
            throw APIError(
                .conflict, code: "conflict",
                message: "a record with this id exists with different content; send changes with PUT /v1/records/\(Self.key(record.id))",
                details: .object(["currentRevision": .integer(current)]))
        case .stored(let outcome, let warnings):
            let json = Self.json(.stored(outcome, warnings: warnings), id: record.id, index: nil)
            if case .created = outcome { return try JSONCoding.response(json, status: .created) }
            return try JSONCoding.response(json)
        }
    }

    private func postBatch(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try context.requireTeam(Self.writers)
        let data = try await JSONCoding.body(of: request, limit: services.configuration.maxBodyBytes)
        let items = try BatchBody.items(in: data)
        guard items.count <= services.configuration.maxBatchRecords else {
            throw APIError(
                .contentTooLarge, code: "batch_too_large",
                message: "a batch holds at most \(services.configuration.maxBatchRecords) records; this one has \(items.count); split it")
        }
        var records: [(index: Int, record: PatientResponse)] = []
        var results: [IngestResultJSON?] = Array(repeating: nil, count: items.count)
        for (index, item) in items.enumerated() {
            do {
                records.append((index, try JSONDecoder().decode(PatientResponse.self, from: item)))
            } catch let error as DecodingError {
                results[index] = IngestResultJSON(
                    index: index, outcome: "invalid", code: "malformed_record", message: JSONCoding.describe(error))
            }
        }
        let stored = try await services.records.ingest(records.map(\.record), owner: RecordOwner(teamId: team, username: user.username))
        for ((index, record), result) in zip(records, stored) {
            results[index] = Self.json(result, id: record.id, index: index)
        }
        let all = results.compactMap { $0 }
        var summary: [String: Int] = ["created": 0, "duplicate": 0, "conflict": 0, "invalid": 0]
        for result in all { summary[result.outcome, default: 0] += 1 }
        return try JSONCoding.response(BatchResponse(results: all, summary: summary))
    }

    struct BatchResponse: Encodable {
        var results: [IngestResultJSON]
        var summary: [String: Int]
    }

    private func put(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try context.requireTeam(Self.writers)
        let id = try Self.id(context)
        let body = try JSONCoding.decode(Update.self, from: try await JSONCoding.body(of: request, limit: services.configuration.maxBodyBytes))
        guard body.record.id == id else {
            throw APIError.badRequest("the record's id does not match the id in the path; a record keeps its id through edits")
        }
        _ = try await ownRecord(id, team: team)
        switch try await services.records.check(body.record) {
        case .invalid(let code, let message, let issues):
            throw APIError(.unprocessableContent, code: code, message: message, details: IssueJSON.details(issues))
        case .valid(let item, _):
            switch try await services.store.update(item, baseRevision: body.baseRevision, teamId: team, savedBy: user.username, at: Date()) {
            case .updated(let revision):
                return try JSONCoding.response(IngestResultJSON(id: Self.key(id), outcome: "updated", revision: revision))
            case .stale(let current):
                throw APIError(
                    .conflict, code: "stale_revision",
                    message: "the record changed since revision \(body.baseRevision); it is now at revision \(current). Load it again, apply your changes and save with baseRevision \(current)",
                    details: .object(["currentRevision": .integer(current)]))
            case .notFound:
                throw APIError.notFound("record \(Self.key(id))")
            }
        }
    }

    /// The record if it belongs to `team`; 404 otherwise, so other teams' records stay invisible.
    private func ownRecord(_ id: UUID, team: Int64) async throws -> StoredRecord {
        guard let stored = try await services.store.record(id: id), stored.teamId == team else {
            throw APIError.notFound("record \(Self.key(id))")
        }
        return stored
    }

    static func id(_ context: IntakeRequestContext) throws -> UUID {
        let text = try context.parameters.require("id")
        guard let id = UUID(uuidString: text) else { throw APIError.badRequest("'\(text)' is not a record id (a UUID)") }
        return id
    }

    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }

    static func json(_ result: RecordService.Result, id: UUID, index: Int?) -> IngestResultJSON {
        var json = IngestResultJSON(index: index, id: key(id), outcome: "")
        switch result {
        case .invalid(let code, let message, let issues):
            json.outcome = "invalid"
            json.code = code
            json.message = message
            json.issues = issues.map(IssueJSON.init)
        case .stored(let outcome, let warnings):
            json.warnings = warnings.isEmpty ? nil : warnings.map(IssueJSON.init)
            switch outcome {
            case .created(let revision): (json.outcome, json.revision) = ("created", revision)
            case .duplicate(let revision): (json.outcome, json.revision) = ("duplicate", revision)
            case .conflict(let current):
                (json.outcome, json.currentRevision) = ("conflict", current)
                json.message = "a record with this id exists with different content; send changes with PUT"
            }
        }
        return json
    }
}

/// `{"records": [ … ]}` split into one JSON document per record, so one bad record does not sink the batch.
enum BatchBody {
    static func items(in data: Data) throws -> [Data] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw APIError.badRequest("the body is not valid JSON")
        }
        guard let body = object as? [String: Any], let records = body["records"] as? [Any] else {
            throw APIError.badRequest("expected {\"records\": [ … ]}")
        }
        return try records.map { record in
            guard JSONSerialization.isValidJSONObject(record) else {
                return Data("null".utf8)
            }
            return try JSONSerialization.data(withJSONObject: record)
        }
    }
}
