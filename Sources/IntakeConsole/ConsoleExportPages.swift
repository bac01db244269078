import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService
import Mustache

/// Exports made from the console, as the API would give them.
/// Each page asks its row of `RoutePolicy` (in `handle`) and reads through the services the API uses.
extension ConsoleRoutes {
    func registerExportPages(on router: Router<IntakeRequestContext>) {
        router.get("/console/exports") { request, context in
            try await handle(request, context) { session, _ in try await exportsPage(session) }
        }
        router.post("/console/exports") { request, context in
            try await handle(request, context, form: true) { session, form in try await export(session, form!) }
        }
    }

    // MARK: Exports

    static let consoleFormats: [ExportFormat] = ExportFormat.allCases.filter { $0 != .attachments }

    func exportsPage(_ session: ConsoleSession) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let ids = Array(Set(try await services.questionnaires.published().filter { $0.status.state != .draft }.map(\.id))).sorted()
        guard !ids.isEmpty else {
            return .page(
                render("error", session, title: language["exports"], ["message": language["noQuestionnaire"], "back": "/console"]))
        }
        return .page(
            render(
                "exports", session, title: language["exports"],
                [
                    "questionnaires": ids.map { ["value": $0, "label": $0] },
                    "formats": Self.consoleFormats.map {
                        [
                            "value": $0.rawValue, "label": language.word("format", $0.rawValue),
                            "checked": $0 == .wideCSV || $0 == .codebookCSV,
                        ]
                    },
                    "states": ReviewState.allCases.map { ["value": $0.rawValue, "label": stateLabel($0, language)] },
                    "mayIdentify":
                        (try? RecordAccessPolicy.export(
                            by: user, includeIdentifiers: true,
                            unlinkedRecordsReachResearchers: services.configuration.unlinkedRecordsReachResearchers
                        ).get()) != nil,
                ]))
    }

    /// The export the API would give the user (``RecordAccessPolicy/export(by:includeIdentifiers:unlinkedRecordsReachResearchers:)``
    /// decides the team and what consent lets through), in the chosen formats, as one tar archive.
    /// On the audit trail before a byte leaves, as the API's.
    func export(_ session: ConsoleSession, _ form: ConsoleForm) async throws -> ConsoleAnswer {
        let user = session.user!
        var options = ExportOptions()
        options.includeIdentifiers = form.flag("includeIdentifiers")
        options.dropFreeText = form.flag("dropFreeText")
        options.shiftDates = form.flag("shiftDates") && !options.includeIdentifiers
        let reach: ExportReach
        switch RecordAccessPolicy.export(
            by: user, includeIdentifiers: options.includeIdentifiers,
            unlinkedRecordsReachResearchers: services.configuration.unlinkedRecordsReachResearchers)
        {
        case .success(let allowed): reach = allowed
        case .failure(.identifiers): throw APIError(.forbidden, code: "forbidden", message: "only coordinators may export identifiers")
        case .failure(.noTeam):
            throw APIError(.forbidden, code: "no_team", message: "your account belongs to no team; ask an admin to add it to one")
        case .failure(.role): throw APIError(.forbidden, code: "forbidden", message: "only coordinators and researchers export records")
        }
        var formats = form.all("format").compactMap(ExportFormat.init(rawValue:)).filter { Self.consoleFormats.contains($0) }
        if formats.isEmpty { formats = [.wideCSV, .codebookCSV] }
        var states: [ReviewState] = []
        for name in form.all("reviewState") {
            guard let state = ReviewState(rawValue: name) else { throw APIError.badRequest("'\(name.prefix(40))' is not a review state") }
            states.append(state)
        }
        let questionnaire = form["questionnaire"].flatMap { $0.isEmpty ? nil : $0 }
        var details = [
            "format": formats.map(\.rawValue).joined(separator: ","), "questionnaire": questionnaire ?? "", "via": "console",
        ]
        if options.includeIdentifiers { details["includeIdentifiers"] = "true" }
        if options.dropFreeText { details["dropFreeText"] = "true" }
        if options.shiftDates { details["shiftDates"] = "true" }
        if !states.isEmpty { details["reviewStates"] = states.map(\.rawValue).joined(separator: ",") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-console-export-\(UUID().uuidString)")
        do {
            let summary = try await services.exports.writeFolder(
                questionnaireId: questionnaire, since: nil, options: options, formats: formats, sideFiles: [.reports, .reportsLong],
                reviewStates: states, reach: reach, to: folder)
            // On the trail before a byte leaves (the archive is sent only once this is stored).
            details["questionnaire"] = summary.questionnaire
            details["records"] = String(summary.records)
            _ = try await services.audit.record(.export, by: user.username, details: details)
            // Streamed from the folder, which goes once the last byte is sent (or the download stops).
            let archive = try TarArchive(folder: folder, root: "intake-export-\(summary.questionnaire)")
            return .archive(name: "intake-export-\(summary.questionnaire).tar", archive, removing: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }
}
