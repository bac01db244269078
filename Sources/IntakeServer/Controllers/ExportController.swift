import Foundation
import HTTPTypes
import Hummingbird
import IntakeExport

/// `GET /v1/exports?format=&questionnaire=&since=&includeIdentifiers=&dropFreeText=&shiftDates=&rawCells=`: a research
/// export, streamed as it is read from the store.
///
/// Coordinators export their team's records and may include identifiers; researchers export
/// every team's records (or their own team's, when they belong to one), always de-identified.
struct ExportController {
    let services: IntakeServices
    static let exporters: Set<Role> = [.coordinator, .researcher]
    static let parameters = ["format", "questionnaire", "since", "includeIdentifiers", "dropFreeText", "shiftDates", "rawCells"]

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/exports", query: Self.parameters, export)
    }

    private func export(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try context.require(Self.exporters)
        let parameters = try QueryParameters.read(request, accepted: Self.parameters)
        let format = try Self.format(parameters["format"])
        var options = ExportOptions()
        options.includeIdentifiers = try Self.flag(parameters, "includeIdentifiers")
        options.dropFreeText = try Self.flag(parameters, "dropFreeText")
        options.shiftDates = try Self.flag(parameters, "shiftDates")
        options.rawCells = try Self.flag(parameters, "rawCells")
        if options.includeIdentifiers, user.role != .coordinator {
            throw APIError(
                .forbidden, code: "forbidden",
                message: "only coordinators may export identifiers; leave out includeIdentifiers to get a de-identified export")
        }
        if user.role == .coordinator, user.teamId == nil {
            throw APIError(.forbidden, code: "no_team", message: "your account belongs to no team; ask an admin to add it to one")
        }
        var since: ExportService.Since?
        if let text = parameters["since"] {
            guard let parsed = ExportService.Since(text) else {
                throw APIError.badRequest("'since' is not a cursor or time; \(ExportService.Since.hint)")
            }
            since = parsed
        }
        // A researcher receives only what each patient agreed to share with their access level.
        let consent =
            user.role == .researcher
            ? ConsentFilter(
                scopes: (user.researchAccess ?? .external).scopes, includeUnlinked: services.configuration.unlinkedRecordsReachResearchers)
            : nil
        let prepared = try await services.exports.prepare(
            ExportService.Request(
                questionnaireId: parameters["questionnaire"], teamId: user.teamId, since: since, options: options, consent: consent))
        let pager = services.exports.pager(prepared, formats: [format])
        let formatter = format.formatter(plan: prepared.plan, files: [.wideCSV, .longCSV, .codebookCSV])
        let headers: HTTPFields = [
            .contentType: format.contentType,
            .contentDisposition: "attachment; filename=\"\(format.fileName)\"",
            .cacheControl: "no-store",
            Self.cursorHeader: prepared.cursor,
            Self.countHeader: String(format.hasRecords ? prepared.count : 0),
            Self.versionsHeader: prepared.plan.versions.map(\.version).joined(separator: ","),
            Self.questionnaireHeader: prepared.plan.questionnaireId,
        ]
        let stream = ExportStream(formatter: formatter, pager: pager, hasRecords: format.hasRecords)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await stream.run { bytes in try await writer.write(ByteBuffer(bytes: bytes)) }
                try await writer.finish(nil)
            })
    }

    static let cursorHeader = HTTPField.Name("Intake-Export-Cursor")!
    static let countHeader = HTTPField.Name("Intake-Export-Records")!
    static let versionsHeader = HTTPField.Name("Intake-Export-Versions")!
    static let questionnaireHeader = HTTPField.Name("Intake-Export-Questionnaire")!

    private static func format(_ text: String?) throws -> ExportFormat {
        guard let text else { return .wideCSV }
        guard let format = ExportFormat(rawValue: text) else {
            throw APIError.badRequest(
                "unknown format '\(text)'; use one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return format
    }

    private static func flag(_ parameters: [String: String], _ name: String) throws -> Bool {
        switch parameters[name] {
        case nil, "false": return false
        case "true": return true
        default: throw APIError.badRequest("'\(name)' is true or false (written so); leave it out for false")
        }
    }
}

/// One export's formatter and pager, handed to the response body, which runs it once.
/// (Unchecked: the body closure is the only user, and runs on one task.)
private final class ExportStream: @unchecked Sendable {
    let formatter: any ExportFormatter
    let pager: ExportService.Pager
    /// Documents that describe the export (codebook, data package) read no records.
    let hasRecords: Bool

    init(formatter: any ExportFormatter, pager: ExportService.Pager, hasRecords: Bool) {
        self.formatter = formatter
        self.pager = pager
        self.hasRecords = hasRecords
    }

    func run(write: ([UInt8]) async throws -> Void) async throws {
        _ = try await ExportRun.stream(formatter, nextPage: { hasRecords ? try await pager.next() : nil }, write: write)
    }
}
