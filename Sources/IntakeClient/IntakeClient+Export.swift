import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
}

extension IntakeClient {
    /// Streams an export to `destination` (never through memory), then checks the server sent
    /// what it announced: a record count for JSON Lines.
    ///
    /// - Parameter query: the endpoint's parameters (`format`, `questionnaire`, `since`, `until`, `dataGroups`, `includeIdentifiers`, `dropFreeText`).
    public func downloadExport(query: [String: String], to destination: URL, idleTimeout: TimeInterval) async throws(ClientError)
        -> ExportResponse
    {
        var components = URLComponents(url: baseURL.appendingPathComponent("v1/exports"), resolvingAgainstBaseURL: false)
        components?.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        guard let url = components?.url else { throw ClientError.unexpected("cannot build the export URL from \(baseURL)") }
        var request = URLRequest(url: url)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = 24 * 3600
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        let result: Result<(URL, HTTPURLResponse), any Error> = await withCheckedContinuation { continuation in
            let task = session.downloadTask(with: request) { file, response, error in
                if let error { return continuation.resume(returning: .failure(error)) }
                guard let file, let http = response as? HTTPURLResponse else {
                    return continuation.resume(returning: .failure(ClientError.unexpected("no HTTP response")))
                }
                // The temporary file is removed when this handler returns: move it first.
                let kept = destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part")
                do {
                    try? FileManager.default.removeItem(at: kept)
                    try FileManager.default.moveItem(at: file, to: kept)
                    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: kept.path)
                    continuation.resume(returning: .success((kept, http)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            task.resume()
        }
        let (file, response): (URL, HTTPURLResponse)
        switch result {
        case .success(let value): (file, response) = value
        case .failure(let error as ClientError): throw error
        case .failure(let error):
            throw ClientError.offline(
                "the export from \(baseURL.absoluteString) did not arrive: \((error as NSError).localizedDescription)")
        }
        guard response.statusCode == 200 else {
            let data = (try? Data(contentsOf: file)) ?? Data()
            try? FileManager.default.removeItem(at: file)
            throw ClientError.from(status: response.statusCode, data: data)
        }
        do {
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.moveItem(at: file, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw ClientError.unexpected("cannot save the export at \(destination.path): \((error as NSError).localizedDescription)")
        }
        let versions = (response.value(forHTTPHeaderField: "Intake-Export-Versions") ?? "").split(separator: ",").map(String.init)
        return ExportResponse(
            file: destination, cursor: response.value(forHTTPHeaderField: "Intake-Export-Cursor"),
            records: response.value(forHTTPHeaderField: "Intake-Export-Records").flatMap(Int.init), versions: versions,
            questionnaireId: response.value(forHTTPHeaderField: "Intake-Export-Questionnaire"),
            dataGroups: (response.value(forHTTPHeaderField: "Intake-Export-Data-Groups") ?? "").split(separator: ",").map(String.init))
    }
}
