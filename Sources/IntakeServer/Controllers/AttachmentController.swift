import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeService
import NIOCore

/// Files that answer photo, audio, document and signature questions.
///
/// - `GET /v1/uploads/{sha256}` and `PUT /v1/uploads/{sha256}`: a device uploads a file before
///   the record that names it, in chunks (`Content-Range: bytes 0-1048575/2400000`) it can resume
///   after a cut (the status says how many bytes arrived); the server checks the bytes against
///   the name and by their type when the last chunk arrives.
/// - `GET /v1/records/{id}/attachments/{sha256}`: a file of a record, to those who may read it.
/// - `GET /v1/exports/attachments/{id}/{sha256}`: a file of a record, to those who may export
///   it: a coordinator of its team; a researcher whose access level the patient's consent reaches,
///   and never a file of a question marked identifying.
struct AttachmentController {
    let services: IntakeServices

    /// The most one chunk may carry.
    static let maxChunk = 4 << 20

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/uploads/{sha256}") { _, context in
            let (_, team) = try context.member()
            let (store, sha256) = try self.store(context)
            return try JSONCoding.response(UploadJSON(sha256: sha256, store.uploadState(team: team, sha256: sha256)))
        }
        routes.on(.put, "/v1/uploads/{sha256}", upload)
        routes.on(.get, "/v1/records/{id}/attachments/{sha256}") { _, context in
            let (user, _) = try context.member()
            let (_, sha256) = try self.store(context)
            let id = try RecordController.id(context)
            let stored = try await services.access.record(id, for: .read, by: user)
            guard let bytes = services.records.file(sha256, of: stored) else {
                throw APIError.notFound("file \(sha256.prefix(12))… of record \(RecordController.key(id))")
            }
            try await services.audit.record(
                .recordRead, by: user.username, subject: RecordController.key(id), details: ["attachment": String(sha256.prefix(16))])
            return Self.file(bytes)
        }
        routes.on(.get, "/v1/exports/attachments/{id}/{sha256}") { _, context in
            let user = try context.signedIn()
            let (_, sha256) = try self.store(context)
            let id = try RecordController.id(context)
            guard let bytes = try await exportable(id, sha256: sha256, by: user) else {
                throw APIError.notFound("file \(sha256.prefix(12))… of record \(RecordController.key(id)) in your exports")
            }
            try await services.audit.record(
                .export, by: user.username, details: ["record": RecordController.key(id), "attachment": String(sha256.prefix(16))])
            return Self.file(bytes)
        }
    }

    /// The attachments folder and the `{sha256}` of the route, or why not.
    private func store(_ context: IntakeRequestContext) throws -> (AttachmentStore, String) {
        let sha256 = try context.parameters.require("sha256")
        guard AttachmentRef.isDigest(sha256) else {
            throw APIError.badRequest("'\(sha256.prefix(80))' is not a file's SHA-256 (64 lower-case hex digits)")
        }
        guard let store = services.records.attachments else {
            throw APIError(
                .serviceUnavailable, code: "no_attachments",
                message:
                    "this server keeps no files: its operator sets INTAKE_SERVER_ATTACHMENTS to a folder (shared by every server of the deployment)"
            )
        }
        return (store, sha256)
    }

    private func upload(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (_, team) = try context.member()
        let (store, sha256) = try self.store(context)
        let limit = min(Self.maxChunk, services.configuration.maxBodyBytes)
        let bytes = try await JSONCoding.body(of: request, limit: limit, timeout: services.configuration.bodyTimeout)
        let (offset, total) = try Self.range(request.headers[.contentRange], count: bytes.count)
        guard total <= AttachmentKind.largest else {
            throw APIError(
                .contentTooLarge, code: "file_too_large",
                message:
                    "the file is \(AttachmentKind.describe(total)); a file is at most \(AttachmentKind.describe(AttachmentKind.largest))")
        }
        do {
            let state = try store.append(team: team, sha256: sha256, offset: offset, total: total, bytes: bytes)
            if case .complete = state { return try JSONCoding.response(UploadJSON(sha256: sha256, state), status: .created) }
            return try JSONCoding.response(UploadJSON(sha256: sha256, state), status: .accepted)
        } catch let error as AttachmentStore.UploadError {
            switch error {
            case .wrongOffset(let received):
                throw APIError(
                    .conflict, code: "wrong_offset",
                    message:
                        "this chunk starts at byte \(offset), but \(received) bytes of the file have arrived: send from byte \(received)",
                    details: .object(["received": .integer(received)]))
            case .tooLarge:
                throw APIError(
                    .contentTooLarge, code: "file_too_large",
                    message: "the chunk goes past the file's size \(total), or the file is over the limit")
            case .digestMismatch:
                throw APIError(
                    .unprocessableContent, code: "digest_mismatch",
                    message:
                        "the bytes received do not hash to \(sha256.prefix(12))…; the upload is dropped: send the file again from byte 0")
            case .unknownType:
                throw APIError(
                    .unprocessableContent, code: "unknown_file_type",
                    message:
                        "the file is not one Intake takes (\(AttachmentType.allCases.map(\.name).joined(separator: ", "))), by its contents"
                )
            }
        }
    }

    /// `Content-Range: bytes 0-1023/4096` as (offset, total); without one the body is the whole
    /// file. A range that cannot be used, or an empty body, is 422 `invalid_upload`.
    static func range(_ header: String?, count: Int) throws -> (offset: Int, total: Int) {
        func refuse(_ message: String) -> APIError { APIError(.unprocessableContent, code: "invalid_upload", message: message) }
        guard count > 0 else { throw refuse("the body is empty: send the file's bytes (or the next chunk of them)") }
        guard let header else { return (0, count) }
        let hint = "Content-Range is 'bytes first-last/total', such as 'bytes 0-1048575/2400000', and covers the body exactly"
        guard header.hasPrefix("bytes ") else { throw refuse(hint) }
        let parts = header.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let total = Int(parts[1]), total > 0 else { throw refuse(hint) }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first, last < total,
            last - first + 1 == count
        else { throw refuse(hint) }
        return (first, total)
    }

    /// The file, if `user` may have it in an export: the record's team's coordinator; a
    /// researcher the patient's consent reaches, for a question not marked identifying.
    private func exportable(_ id: UUID, sha256: String, by user: User) async throws -> Data? {
        guard
            case .success(let reach) = RecordAccessPolicy.export(
                by: user, includeIdentifiers: false, unlinkedRecordsReachResearchers: services.configuration.unlinkedRecordsReachResearchers
            )
        else { throw APIError(.forbidden, code: "forbidden", message: "only coordinators and researchers export records") }
        guard let stored = try await services.records.store.record(id: id) else { return nil }
        var scope: SharingScope?
        if let patientId = stored.record.patientId { scope = try await services.records.store.patient(id: patientId)?.sharingScope }
        // A question marked identifying in any version is identifying (as exports leave it out);
        // a version that cannot be read counts as identifying everything.
        var identifying: Set<String>
        if let questionnaire = try await services.questionnaires.questionnaire(stored.record.questionnaire) {
            var keys = Set<String>()
            for published in try await services.questionnaires.published() where published.id == questionnaire.id {
                let version = try await services.questionnaires.questionnaire(
                    QuestionnaireReference(id: published.id, version: published.version))
                keys.formUnion(version?.allQuestions.filter(\.isIdentifying).map(\.key) ?? [])
            }
            identifying = Self.identifyingFiles(stored.record, questionnaire, identifyingKeys: keys)
        } else {
            identifying = Set(stored.record.attachments.map(\.sha256))
        }
        guard
            RecordAccessPolicy.exportsFile(
                reach, recordTeam: stored.teamId, linked: stored.record.patientId != nil, scope: scope,
                identifying: identifying.contains(sha256))
        else { return nil }
        return services.records.file(sha256, of: stored)
    }

    /// The files a record's identifying questions hold (in repeats too).
    static func identifyingFiles(_ record: PatientResponse, _ questionnaire: Questionnaire, identifyingKeys: Set<String>) -> Set<String> {
        var found = Set<String>()
        func visit(_ answer: Answer, _ question: Question) {
            switch answer {
            case .attachment(let ref) where question.isIdentifying || identifyingKeys.contains(question.key): found.insert(ref.sha256)
            case .instances(let list):
                for instance in list {
                    for (index, inner) in instance {
                        if let member = questionnaire.question(at: QuestionPosition(section: question.position.section, index: index)) {
                            visit(inner, member)
                        }
                    }
                }
            default: break
            }
        }
        for (position, answer) in record.allAnswers {
            if let question = questionnaire.question(at: position) { visit(answer, question) }
        }
        return found
    }

    static func file(_ bytes: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = AttachmentType.sniff(bytes)?.mediaType ?? "application/octet-stream"
        headers[.contentLength] = String(bytes.count)
        headers[.cacheControl] = "private, no-store"
        headers[.contentDisposition] = "attachment"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Where an upload stands.
struct UploadJSON: Encodable {
    var sha256: String
    /// `complete` or `partial`.
    var state: String
    var received: Int
    var size: Int?
    var mediaType: String?

    init(sha256: String, _ state: AttachmentStore.State) {
        self.sha256 = sha256
        switch state {
        case .complete(let size, let mediaType):
            (self.state, received, self.size, self.mediaType) = ("complete", size, size, mediaType)
        case .partial(let received):
            (self.state, self.received) = ("partial", received)
        }
    }
}
