import Hummingbird
import IntakeService

/// Refuses, before any route reads it, a request line too long to be a real request (414) and
/// any NUL character in the path or query (400): databases and C libraries cut text at NUL, so
/// the value would not be the one sent.
struct RequestLimitsMiddleware: RouterMiddleware {
    typealias Context = IntakeRequestContext
    /// The longest path and query taken, in bytes.
    static let maxTargetBytes = 8 * 1024

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let target = request.uri.description
        guard target.utf8.count <= Self.maxTargetBytes else {
            throw APIError(
                .uriTooLong, code: "uri_too_long",
                message: "the path and query are longer than \(Self.maxTargetBytes) bytes; search with shorter values")
        }
        // Percent-encoded (%00) anywhere in the target, or raw.
        if target.utf8.contains(0) || target.range(of: "%00") != nil {
            throw APIError(
                .badRequest, code: "nul_character",
                message: "the path or query holds a NUL character (%00), which Intake does not accept; remove it")
        }
        return try await next(request, context)
    }
}
