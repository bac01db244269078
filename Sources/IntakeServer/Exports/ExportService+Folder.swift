import Foundation
import IntakeCore
import IntakeExport

extension ExportService {
    /// `intake export --database`: every team's records of the questionnaire (the only one
    /// published when nil), straight from the store into `folder`, with the cursor for next time.
    public func writeFolder(
        questionnaireId: String?, since: String?, options: ExportOptions, formats: [ExportFormat], to folder: URL,
        progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> FolderExport.Summary {
        let prepared = try await prepare(Request(questionnaireId: questionnaireId, since: since.flatMap(ExportSince.init), options: options))
        let pager = pager(prepared, formats: formats)
        let total = prepared.count
        return try await FolderExport(plan: prepared.plan, formats: formats, folder: folder).write(
            cursor: String(prepared.cursor), since: since, progress: { progress($0, total) }
        ) {
            try await pager.next()
        }
    }
}
