import Foundation

/// What `GET /v1/exports` sent, saved in a file: the announced count, cursor and versions.
public struct ExportResponse: Sendable {
    public var file: URL
    /// The cursor to give as `since` next time.
    public var cursor: String?
    /// How many records the server said it would send.
    public var records: Int?
    /// The questionnaire versions the export covers, oldest first.
    public var versions: [String]
    public var questionnaireId: String?
    /// The deployment's data groups, each a column of the export.
    public var dataGroups: [String] = []
    /// The case lists a case file covers.
    public var caseLists: [String] = []
}

extension IntakeClient {
    /// Streams an export to `destination` (never through memory), then checks the server sent
    /// what it announced: a record count for JSON Lines.
    ///
    /// - Parameter query: the endpoint's parameters (`format`, `questionnaire`, `since`, `until`, `dataGroups`, `includeIdentifiers`, `dropFreeText`).
    public func downloadExport(query: [String: String], to destination: URL, idleTimeout: TimeInterval) async throws(ClientError)
        -> ExportResponse
    {
        var components = URLComponents()
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let path = "/v1/exports?" + (components.percentEncodedQuery ?? "")
        // Written beside the destination as it arrives (mode 0600), moved into place once whole.
        let part = destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part")
        try? FileManager.default.removeItem(at: part)
        let response: CurlTransport.Answer
        do {
            response = try await exchange("GET", path, body: nil, sink: .file(part), limit: .idle(idleTimeout))
        } catch {
            try? FileManager.default.removeItem(at: part)
            if case .offline(let message) = error { throw ClientError.offline("the export did not arrive: \(message)") }
            throw error
        }
        guard response.status == 200 else {
            let data = (try? Data(contentsOf: part)) ?? Data()
            try? FileManager.default.removeItem(at: part)
            throw ClientError.from(status: response.status, data: data)
        }
        do {
            if !FileManager.default.fileExists(atPath: part.path) {
                FileManager.default.createFile(atPath: part.path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.moveItem(at: part, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: part)
            throw ClientError.unexpected("cannot save the export at \(destination.path): \((error as NSError).localizedDescription)")
        }
        func header(_ name: String) -> String? { response.headers[name.lowercased()] }
        let versions = (header("Intake-Export-Versions") ?? "").split(separator: ",").map(String.init)
        return ExportResponse(
            file: destination, cursor: header("Intake-Export-Cursor"),
            records: header("Intake-Export-Records").flatMap(Int.init), versions: versions,
            questionnaireId: header("Intake-Export-Questionnaire"),
            dataGroups: (header("Intake-Export-Data-Groups") ?? "").split(separator: ",").map(String.init),
            caseLists: (header("Intake-Export-Case-Lists") ?? "").split(separator: ",").map(String.init))
    }
}
