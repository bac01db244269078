import Foundation
import IntakeClient
import IntakeCore
import IntakeExport

/// The server a remote export reads from, through the HTTP client: where the command layer
/// joins IntakeExport (which knows no HTTP) to IntakeClient (which knows no export formats).
struct ClientExportServer: ExportServer {
    let client: IntakeClient

    func downloadExport(query: [String: String], into file: URL, idleTimeout: TimeInterval) async throws -> ExportDownload {
        let response = try await client.downloadExport(query: query, to: file, idleTimeout: idleTimeout)
        var download = ExportDownload(
            file: response.file, cursor: response.cursor, records: response.records, versions: response.versions,
            questionnaireId: response.questionnaireId, dataGroups: response.dataGroups)
        download.caseLists = response.caseLists
        return download
    }

    func questionnaire(_ reference: QuestionnaireReference) async throws -> Questionnaire {
        try await client.questionnaire(reference)
    }

    func attachment(record: UUID, sha256: String) async throws -> Data? {
        try await client.exportedAttachment(record: record, sha256: sha256)
    }
}
