import Foundation
import IntakeCore
import IntakeExport

extension ExportService {
    /// `intake export --database`: every team's records of the questionnaire (the only one
    /// published when nil), straight from the store into `folder`, with the cursor for next time.
    public func writeFolder(
        questionnaireId: String?, since: String?, options: ExportOptions, formats: [ExportFormat],
        sideFiles: [ExportSideFile] = ExportSideFile.allCases, dataGroups: [String] = [], reviewStates: [ReviewState] = [],
        reach: ExportReach = ExportReach(teamId: nil, consent: nil), to folder: URL, progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> FolderExport.Summary {
        let prepared = try await prepare(
            Request(
                questionnaireId: questionnaireId, teamId: reach.teamId, since: since.flatMap(ExportSince.init), options: options,
                consent: reach.consent, dataGroups: dataGroups, reviewStates: reviewStates))
        let pager = pager(prepared, formats: formats)
        let reports = ReportPager(prepared)
        let cases = sideFiles.contains(where: \.readsCases) ? try await caseSource(prepared) : nil
        let side = ExportSideSources(removed: try await removed(prepared), nextReports: { try await reports.next() }, cases: cases)
        let total = prepared.count
        return try await FolderExport(plan: prepared.plan, formats: formats, sideFiles: sideFiles, folder: folder).write(
            cursor: String(prepared.cursor), since: since, side: side, progress: { progress($0, total) }
        ) {
            try await pager.next()
        }
    }
}
