import Foundation
import HTTPTypes
import Hummingbird
import IntakeExport
import IntakeService

/// `GET /v1/exports?format=&questionnaire=&since=&until=&dataGroups=&reviewStates=&includeIdentifiers=&dropFreeText=&shiftDates=&rawCells=`:
/// a research export, streamed as it is read from the store.
///
/// Coordinators export their team's records and may include identifiers; researchers export
/// every team's records (or their own team's, when they belong to one), always de-identified,
/// and only what each patient's consent shares with their access level. Besides the record
/// formats, `reports` and `reports-long` give the patients' dated reports, `removed` (with
/// `since`) the records an earlier export held that its receiver must delete, and `cases` and
/// `case-history` the cases of the lists the questionnaire opens or follows.
struct ExportController {
    let services: IntakeServices
    static let parameters = [
        "format", "questionnaire", "since", "until", "dataGroups", "includeIdentifiers", "dropFreeText", "shiftDates", "rawCells",
        "reviewStates",
    ]

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/exports", query: Self.parameters, export)
    }

    private func export(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try context.signedIn()
        let parameters = try QueryParameters.read(request, accepted: Self.parameters)
        let format = try Self.format(parameters["format"])
        var dataGroups: [String] = []
        if let text = parameters["dataGroups"] {
            dataGroups = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard dataGroups.allSatisfy({ !$0.isEmpty }) else {
                throw APIError.badRequest("'dataGroups' is data group names separated by commas, such as arm_a,arm_b")
            }
        }
        var reviewStates: [ReviewState] = []
        if let text = parameters["reviewStates"] {
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let state = ReviewState(rawValue: String(name)) else {
                    throw APIError.badRequest(
                        "'reviewStates' is review states separated by commas, of \(ReviewState.allCases.map(\.rawValue).joined(separator: ", ")), such as approved,edited"
                    )
                }
                reviewStates.append(state)
            }
        }
        var options = ExportOptions()
        options.includeIdentifiers = try Self.flag(parameters, "includeIdentifiers")
        options.dropFreeText = try Self.flag(parameters, "dropFreeText")
        options.shiftDates = try Self.flag(parameters, "shiftDates")
        options.rawCells = try Self.flag(parameters, "rawCells")
        let reach: ExportReach
        switch RecordAccessPolicy.export(
            by: user, includeIdentifiers: options.includeIdentifiers,
            unlinkedRecordsReachResearchers: services.configuration.unlinkedRecordsReachResearchers)
        {
        case .success(let allowed): reach = allowed
        case .failure(.identifiers):
            throw APIError(
                .forbidden, code: "forbidden",
                message: "only coordinators may export identifiers; leave out includeIdentifiers to get a de-identified export")
        case .failure(.noTeam):
            throw APIError(.forbidden, code: "no_team", message: "your account belongs to no team; ask an admin to add it to one")
        case .failure(.role):
            throw APIError(.forbidden, code: "forbidden", message: "only coordinators and researchers export records")
        }
        var since: ExportService.Since?
        if let text = parameters["since"] {
            guard let parsed = ExportService.Since(text) else {
                throw APIError.badRequest("'since' is not a cursor or time; \(ExportService.Since.hint)")
            }
            since = parsed
        }
        var until: ExportService.Since?
        if let text = parameters["until"] {
            guard let parsed = ExportService.Since(text) else {
                throw APIError.badRequest("'until' is the cursor an export's records came with, such as team-42 (or 42 for every team)")
            }
            until = parsed
        }
        let prepared = try await services.exports.prepare(
            ExportService.Request(
                questionnaireId: parameters["questionnaire"], teamId: reach.teamId, since: since, options: options, consent: reach.consent,
                dataGroups: dataGroups, until: until, reviewStates: reviewStates))
        // Who exported what: the filters and options, and what it sends, on the trail before a
        // byte leaves (records of a record format; rows of removed; reports as they stream).
        var audited = ["format": parameters["format"] ?? "csv", "questionnaire": prepared.plan.questionnaireId]
        for name in ["since", "until", "dataGroups", "includeIdentifiers", "dropFreeText", "shiftDates", "reviewStates"] {
            if let value = parameters[name] { audited[name] = value }
        }
        var headers: HTTPFields = [
            .cacheControl: "no-store",
            Self.cursorHeader: prepared.cursor,
            Self.versionsHeader: prepared.plan.versions.map(\.version).joined(separator: ","),
            Self.questionnaireHeader: prepared.plan.questionnaireId,
            Self.dataGroupsHeader: prepared.plan.options.dataGroups.joined(separator: ","),
        ]
        let stream: ExportStream
        switch format {
        case .records(let format):
            headers[.contentType] = format.contentType
            headers[.contentDisposition] = "attachment; filename=\"\(format.fileName)\""
            headers[Self.countHeader] = String(format.hasRecords ? prepared.count : 0)
            // Self.format(_:) has refused the binary formats, which have no formatter.
            guard let formatter = format.formatter(plan: prepared.plan, files: [.wideCSV, .longCSV, .codebookCSV]) else {
                throw APIError.badRequest("format=\(format.rawValue) is written only in an export folder: run 'intake export'")
            }
            stream = ExportStream(
                formatter: formatter, pager: services.exports.pager(prepared, formats: [format]), hasRecords: format.hasRecords)
        case .side(let file):
            headers[.contentType] = file.contentType
            headers[.contentDisposition] = "attachment; filename=\"\(file.fileName)\""
            if file.readsCases {
                let source = try await services.exports.caseSource(prepared)
                headers[Self.caseListsHeader] = source.columns.lists.joined(separator: ",")
                stream = ExportStream(cases: source, file: file)
            } else if file == .removed {
                guard let removed = try await services.exports.removed(prepared) else {
                    // Each parameter is valid on its own; together they ask for nothing: 422, as the contract says.
                    throw APIError(
                        .unprocessableContent, code: "since_required",
                        message:
                            "format=removed lists what an earlier export held that must now be deleted; give 'since' (that export's cursor)"
                    )
                }
                headers[Self.countHeader] = String(removed.count)
                stream = ExportStream(text: RemovedRecord.csv(removed), count: removed.count)
            } else {
                stream = ExportStream(reports: ExportService.ReportPager(prepared), file: file, options: prepared.plan.options)
            }
        }
        audited["records"] = headers[Self.countHeader] ?? "streamed"
        try await services.audit.record(.export, by: user.username, details: audited)
        let records = Int(headers[Self.countHeader] ?? "") ?? 0
        let metrics = services.metrics
        let formatName = parameters["format"] ?? "csv"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let start = ContinuousClock.now
                var bytes = 0
                try await stream.run { chunk in
                    bytes += chunk.count
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
                metrics.exportFinished(format: formatName, records: records, bytes: bytes, duration: .now - start)
            })
    }

    static let cursorHeader = HTTPField.Name("Intake-Export-Cursor")!
    static let countHeader = HTTPField.Name("Intake-Export-Records")!
    static let versionsHeader = HTTPField.Name("Intake-Export-Versions")!
    static let questionnaireHeader = HTTPField.Name("Intake-Export-Questionnaire")!
    static let dataGroupsHeader = HTTPField.Name("Intake-Export-Data-Groups")!
    static let caseListsHeader = HTTPField.Name("Intake-Export-Case-Lists")!

    enum Format {
        case records(ExportFormat)
        case side(ExportSideFile)
    }

    private static func format(_ text: String?) throws -> Format {
        guard let text else { return .records(.wideCSV) }
        if let format = ExportFormat(rawValue: text) {
            // The statistics files are binary and written whole, in an export folder only.
            guard !format.isBinary else {
                throw APIError.badRequest(
                    "format=\(format.rawValue) (\(format.fileName)) is written only in an export folder: run 'intake export', which "
                        + "downloads format=jsonl and writes \(format.fileName) beside it, or use the console's export")
            }
            return .records(format)
        }
        if let file = ExportSideFile(rawValue: text) { return .side(file) }
        throw APIError.badRequest(
            "unknown format '\(text.prefix(40))'; use one of "
                + (ExportFormat.streamable.map(\.rawValue) + ExportSideFile.allCases.map(\.rawValue)).joined(separator: ", "))
    }

    private static func flag(_ parameters: [String: String], _ name: String) throws -> Bool {
        switch parameters[name] {
        case nil, "false": return false
        case "true": return true
        default: throw APIError.badRequest("'\(name)' is true or false (written so); leave it out for false")
        }
    }
}

/// One export's body, handed to the response, which runs it once: records through a formatter,
/// reports a page at a time, or a text made already.
/// (Unchecked: the body closure is the only user, and runs on one task.)
private final class ExportStream: @unchecked Sendable {
    private enum Source {
        case records(any ExportFormatter, ExportService.Pager, hasRecords: Bool)
        case reports(ExportService.ReportPager, ExportSideFile, ExportOptions)
        case text(String, count: Int)
        case cases(ExportCaseSource, ExportSideFile)
    }
    private let source: Source

    /// Documents that describe the export (codebook, data package) read no records.
    init(formatter: any ExportFormatter, pager: ExportService.Pager, hasRecords: Bool) {
        source = .records(formatter, pager, hasRecords: hasRecords)
    }

    init(reports: ExportService.ReportPager, file: ExportSideFile, options: ExportOptions) {
        source = .reports(reports, file, options)
    }

    init(cases: ExportCaseSource, file: ExportSideFile) {
        source = .cases(cases, file)
    }

    /// A text made already, holding `count` rows.
    init(text: String, count: Int) {
        source = .text(text, count: count)
    }

    func run(write: ([UInt8]) async throws -> Void) async throws {
        switch source {
        case .records(let formatter, let pager, let hasRecords):
            _ = try await ExportRun.stream(formatter, nextPage: { hasRecords ? try await pager.next() : nil }, write: write)
        case .reports(let pager, let file, let options):
            _ = try await ReportFiles.stream(file, options: options, nextPage: { try await pager.next() }, write: write)
        case .text(let text, _):
            try await write(Array(text.utf8))
        case .cases(let cases, let file):
            _ = try await cases.write(file, write)
        }
    }
}
