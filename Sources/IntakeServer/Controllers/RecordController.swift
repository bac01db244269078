import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeService

/// Records: idempotent `POST /v1/records`, `POST /v1/records/batch`, and by id `GET`, `PUT`, revisions.
struct RecordController {
    let services: IntakeServices
    static let writers: Set<Role> = [.fieldworker, .coordinator]

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/records", postOne)
        routes.on(.post, "/v1/records/batch", postBatch)
        routes.on(.get, "/v1/records/{id}", query: ["asOf"]) { request, context in
            let (user, team) = try context.member()
            let parameters = try QueryParameters.read(request, accepted: ["asOf"])
            var stored = try await visibleRecord(try Self.id(context), user: user, team: team, toEdit: false)
            var details: [String: String] = [:]
            if let text = parameters["asOf"] {
                guard let asOf = Timestamp.date(from: text) else {
                    throw APIError.badRequest("'asOf' is a time such as 2026-11-24T08:00:00Z: the record is given as it was then")
                }
                // The revision current at that time: the last saved at or before it.
                guard let revision = try await services.records.revisions(of: stored.record.id).last(where: { $0.savedAt <= asOf }) else {
                    throw APIError.notFound(
                        "record \(Self.key(stored.record.id)) as of \(text) (it was first received at \(Timestamp.string(from: stored.receivedAt)))"
                    )
                }
                stored.record = revision.record
                stored.revision = revision.revision
                stored.updatedAt = revision.savedAt
                details["asOf"] = Timestamp.string(from: asOf)
            }
            try await services.audit.record(
                .recordRead, by: user.username, subject: stored.record.id.uuidString.lowercased(), details: details)
            var writer = JSONWriter()
            StoredRecordJSON.write(stored, into: &writer)
            return JSONCoding.response(json: writer.bytes)
        }
        routes.on(.put, "/v1/records/{id}", put)
        registerDeletion(routes)
        registerGrants(routes)
        registerTransfers(routes)
        routes.on(.get, "/v1/records/{id}/revisions") { _, context in
            let (user, team) = try context.member()
            let id = try Self.id(context)
            _ = try await visibleRecord(id, user: user, team: team, toEdit: false)
            try await services.audit.record(
                .recordRead, by: user.username, subject: id.uuidString.lowercased(), details: ["revisions": "all"])
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("revisions")
            writer.beginArray()
            for revision in try await services.records.revisions(of: id) { StoredRecordJSON.write(revision, into: &writer) }
            writer.endArray()
            writer.endObject()
            return JSONCoding.response(json: writer.bytes)
        }
    }

    private func postOne(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try context.member()
        let record = try JSONCoding.record(
            from: try await JSONCoding.body(
                of: request, limit: services.configuration.maxBodyBytes, timeout: services.configuration.bodyTimeout))
        let owner = RecordOwner(teamId: team, username: user.username, deviceId: try Self.device(request))
        let result = try await services.records.ingest([record], owner: owner)[0]
        services.metrics.recordOutcomes([result])
        if let device = context.device { try await services.devices.noteUpload(device) }
        switch result {
        case .invalid(let code, let message, let issues):
            throw APIError(.unprocessableContent, code: code, message: message, details: IssueJSON.details(issues))
        case .stored(.taken, _):
            throw APIError(.conflict, code: "id_taken", message: Self.takenMessage)
        case .stored(.deleted(let tombstone), _):
            throw APIError(
                .conflict, code: "deleted", message: Self.deletedMessage(tombstone),
                details: .object([
                    "deletedAt": .string(Timestamp.string(from: tombstone.deletedAt)), "deletedBy": .string(tombstone.deletedBy),
                ]))
        case .stored(.conflict(let current), _):
            throw APIError(
                .conflict, code: "conflict",
                message: "a record with this id exists with different content; send changes with PUT /v1/records/\(Self.key(record.id))",
                details: .object(["currentRevision": .integer(current)]))
        case .stored(let outcome, let warnings):
            let json = Self.json(.stored(outcome, warnings: warnings), id: record.id, index: nil)
            if case .created = outcome { return JSONCoding.response(json: json.json, status: .created) }
            return JSONCoding.response(json: json.json)
        }
    }

    private func postBatch(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try context.member()
        let device = try Self.device(request)
        let data = try await JSONCoding.body(
            of: request, limit: services.configuration.maxBodyBytes, timeout: services.configuration.bodyTimeout)
        let items = try BatchBody.items(in: data, limit: services.configuration.maxBatchRecords)
        var records: [(index: Int, record: PatientResponse)] = []
        var results: [IngestResultJSON?] = Array(repeating: nil, count: items.count)
        for (index, item) in items.enumerated() {
            switch item {
            case .success(let record): records.append((index, record))
            case .failure(let error):
                results[index] = IngestResultJSON(
                    index: index, outcome: "invalid", code: "malformed_record", message: "records[\(index)] " + error.description)
            }
        }
        let stored = try await services.records.ingest(
            records.map(\.record), owner: RecordOwner(teamId: team, username: user.username, deviceId: device))
        services.metrics.recordOutcomes(stored)
        if records.count < items.count { services.metrics.recordOutcome("invalid", count: items.count - records.count) }
        if let enrolled = context.device { try await services.devices.noteUpload(enrolled) }
        for ((index, record), result) in zip(records, stored) {
            results[index] = Self.json(result, id: record.id, index: index)
        }
        let all = results.compactMap { $0 }
        var summary: [String: Int] = ["created": 0, "duplicate": 0, "conflict": 0, "invalid": 0]
        for result in all { summary[result.outcome, default: 0] += 1 }
        var writer = JSONWriter(capacity: 64 + all.count * 96)
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for result in all { result.write(into: &writer) }
        writer.endArray()
        writer.key("summary")
        writer.beginObject()
        for (outcome, count) in summary.sorted(by: { $0.key < $1.key }) {
            writer.key(outcome)
            writer.integer(count)
        }
        writer.endObject()
        writer.endObject()
        return JSONCoding.response(json: writer.bytes)
    }

    private func put(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try context.member()
        let id = try Self.id(context)
        let device = try Self.device(request)
        let body = try RecordUpdate(
            json: try await JSONCoding.body(
                of: request, limit: services.configuration.maxBodyBytes, timeout: services.configuration.bodyTimeout))
        guard body.record.id == id else {
            throw APIError(
                .unprocessableContent, code: "id_mismatch",
                message: "the record's id does not match the id in the path; a record keeps its id through edits")
        }
        let stored = try await visibleRecord(id, user: user, team: team, toEdit: true)
        // Files come from the uploads of the editor's team (a referee's own); a referee edits the
        // record where it belongs: in the referring team.
        switch try await services.records.edit(
            body.record, of: stored, baseRevision: body.baseRevision, savedBy: user.username, uploadsTeam: team, deviceId: device)
        {
        case .invalid(let code, let message, let issues):
            throw APIError(.unprocessableContent, code: code, message: message, details: IssueJSON.details(issues))
        case .saved(.updated(let revision)):
            return JSONCoding.response(json: IngestResultJSON(id: Self.key(id), outcome: "updated", revision: revision).json)
        case .unchanged(let revision):
            return JSONCoding.response(json: IngestResultJSON(id: Self.key(id), outcome: "unchanged", revision: revision).json)
        case .saved(.stale(let current)):
            throw APIError(
                .conflict, code: "stale_revision",
                message:
                    "the record changed since revision \(body.baseRevision); it is now at revision \(current). Load it again, apply your changes and save with baseRevision \(current)",
                details: .object(["currentRevision": .integer(current)]))
        case .saved(.notFound):
            throw APIError.notFound("record \(Self.key(id))")
        case .saved(.deleted(let tombstone)):
            throw ServiceError.deleted(tombstone)
        case .saved(.locked):
            throw Self.lockedError
        }
    }

    static let lockedError = APIError(
        .conflict, code: "record_locked",
        message: "a reviewer approved and locked this record; it cannot be edited until a coordinator reopens it (intake review reopen)")

    static let deviceHeader = HTTPField.Name("Intake-Device-Id")!

    /// The device a client says it saves from: 1 to 64 letters, digits, `.`, `_`, `:` or `-`
    /// (the `intake` command sends a random id it keeps in its data directory).
    static func device(_ request: Request) throws -> String? {
        guard let value = request.headers[deviceHeader] else { return nil }
        guard DeviceService.isDeviceId(value) else {
            throw APIError.badRequest("the Intake-Device-Id header is 1 to 64 letters, digits, '.', '_', ':' or '-'")
        }
        return value
    }

    /// The record, when ``RecordAccessPolicy`` lets `user` read it (or edit it, `toEdit`); 404,
    /// 410 or 403 otherwise, so other teams' records stay invisible.
    private func visibleRecord(_ id: UUID, user: User, team: Int64, toEdit: Bool) async throws -> StoredRecord {
        try await services.access.record(id, for: toEdit ? .edit : .read, by: user)
    }

    static func id(_ context: IntakeRequestContext) throws -> UUID {
        let text = try context.parameters.require("id")
        guard let id = UUID(uuidString: text) else { throw APIError.badRequest("'\(text)' is not a record id (a UUID)") }
        return id
    }

    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }

    /// For an id of another team's record: the same whatever that record holds, and no revision.
    static let takenMessage = "this id is already used by a record you may not see; give the record a new random id (UUID)"

    static func deletedMessage(_ tombstone: Tombstone) -> String {
        "record \(key(tombstone.recordId)) was deleted at \(Timestamp.string(from: tombstone.deletedAt)) by \(tombstone.deletedBy) and cannot be sent again under its id; if it should exist, save it as a new record (a new id)"
    }

    static func json(_ result: RecordService.Result, id: UUID, index: Int?) -> IngestResultJSON {
        var json = IngestResultJSON(index: index, id: key(id), outcome: "")
        switch result {
        case .invalid(let code, let message, let issues):
            json.outcome = "invalid"
            json.code = code
            json.message = message
            json.issues = IssueJSON.listed(issues)
            if issues.count > IssueJSON.maxListed { json.issueCount = issues.count }
        case .stored(let outcome, let warnings):
            json.warnings = warnings.isEmpty ? nil : IssueJSON.listed(warnings)
            switch outcome {
            case .created(let revision): (json.outcome, json.revision) = ("created", revision)
            case .duplicate(let revision): (json.outcome, json.revision) = ("duplicate", revision)
            case .conflict(let current):
                (json.outcome, json.currentRevision) = ("conflict", current)
                json.message = "a record with this id exists with different content; send changes with PUT"
            case .taken:
                (json.outcome, json.code) = ("conflict", "id_taken")
                json.message = Self.takenMessage
            case .deleted(let tombstone):
                (json.outcome, json.code) = ("conflict", "deleted")
                json.message = Self.deletedMessage(tombstone)
            }
        }
        return json
    }
}

/// `{"records": [ … ]}`: each record read on its own, so one bad record does not sink the batch.
enum BatchBody {
    static func items(in data: Data, limit: Int) throws -> [Result<PatientResponse, JSONReadError>] {
        let items: [Result<PatientResponse, JSONReadError>]
        do {
            items = try JSONReader.document(data) { reader throws(JSONReadError) in
                var items: [Result<PatientResponse, JSONReadError>] = []
                var sawRecords = false
                try reader.object { key, reader throws(JSONReadError) in
                    guard key == "records", !sawRecords else {
                        throw reader.error(
                            key == "records" ? "the key 'records' appears twice" : "unknown key '\(key)'; a batch is {\"records\": [ … ]}")
                    }
                    sawRecords = true
                    try reader.array { _, reader throws(JSONReadError) in
                        let span = try reader.skipValue()
                        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(reader.bytes)[span])
                        items.append(Result { () throws(JSONReadError) in try RecordCodec.decode(bytes) })
                    }
                }
                guard sawRecords else { throw reader.error("expected {\"records\": [ … ]}", at: 0) }
                return items
            }
        } catch {
            throw APIError.badRequest("the batch could not be read " + error.description)
        }
        guard items.count <= limit else {
            throw APIError(
                .contentTooLarge, code: "batch_too_large",
                message: "a batch holds at most \(limit) records; this one has \(items.count); split it")
        }
        return items
    }
}

/// The body of `PUT /v1/records/{id}`: `{"baseRevision": 3, "record": { … }}`.
struct RecordUpdate {
    var baseRevision: Int
    var record: PatientResponse

    init(json data: Data) throws {
        do {
            (baseRevision, record) = try JSONReader.document(data) { reader throws(JSONReadError) in
                var base: Int?
                var record: PatientResponse?
                try reader.object { key, reader throws(JSONReadError) in
                    switch key {
                    case "baseRevision" where base == nil: base = try reader.integer()
                    case "record" where record == nil: record = try RecordCodec.read(&reader)
                    case "baseRevision", "record": throw reader.error("the key '\(key)' appears twice")
                    default: throw reader.error("unknown key '\(key)'; an edit is {\"baseRevision\": n, \"record\": { … }}")
                    }
                }
                guard let base else { throw reader.error("field 'baseRevision' is missing", at: 0) }
                guard let record else { throw reader.error("field 'record' is missing", at: 0) }
                return (base, record)
            }
        } catch {
            throw APIError.badRequest("the body could not be read " + error.description)
        }
    }
}
