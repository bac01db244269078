import Foundation
import Hummingbird
import IntakeCore
import IntakeService
import Logging

/// Turns every error into `{"error": {…}}` with the right status. Anything unexpected is a 500
/// whose log line names the error type only, never request data.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = IntakeRequestContext
    /// The routes, to answer a known path asked with another method with 405 and `Allow`.
    let routes: RouteTable
    /// Tells a database that is full or down, or a full disk (503), from a failing request.
    let outage: @Sendable (any Error) -> StoreOutage?

    struct Body: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
            var details: JSONValue? = nil
        }

        var error: Detail
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error where APIError.answer(for: error) != nil {
            return try Self.response(APIError.answer(for: error)!)
        } catch let error as any HTTPResponseError where error.status == .notFound && !routes.methods(for: request.uri.path).isEmpty {
            let allowed = routes.methods(for: request.uri.path)
            return try Self.response(
                APIError(
                    .methodNotAllowed, code: "method_not_allowed",
                    message: "\(request.uri.path) takes \(allowed.joined(separator: ", ")), not \(request.method)",
                    headers: [.allow: allowed.joined(separator: ", ")]))
        } catch let error as any HTTPResponseError {
            let code = error.status == .notFound ? "not_found" : error.status == .contentTooLarge ? "body_too_large" : "http_error"
            let message =
                error.status == .notFound
                ? "no such route: \(request.method) \(request.uri.path); see GET /openapi.yaml"
                : error.status.reasonPhrase
            return try Self.response(APIError(error.status, code: code, message: message))
        } catch {
            if let outage = outage(error) {
                context.logger.error("storage outage", metadata: ["outage": "\(outage)", "error.type": "\(type(of: error))"])
                return try Self.response(APIError.unavailable(outage))
            }
            context.logger.error("request failed", metadata: ["error.type": "\(type(of: error))"])
            return try Self.response(
                APIError(.internalServerError, code: "internal", message: "the server failed; the error is logged; try again later"))
        }
    }

    static func response(_ error: APIError) throws -> Response {
        var response = try JSONCoding.response(
            Body(error: .init(code: error.code, message: error.message, details: error.details)), status: error.status)
        response.headers.append(contentsOf: error.headers)
        return response
    }
}

/// Logs each request's method, path (without its query, which can hold names), status and time.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = IntakeRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.info(
            "\(request.method) \(request.uri.path) \(response.status.code)",
            metadata: ["ms": "\(elapsed.components.attoseconds / 1_000_000_000_000_000 + elapsed.components.seconds * 1000)"])
        return response
    }
}

extension APIError {
    /// A service's error as the API answers it: the one place a ``ServiceError``'s kind gets its
    /// status and code.
    init(_ error: ServiceError) {
        switch error.kind {
        case .notFound: self.init(.notFound, code: "not_found", message: error.description)
        case .invalid: self.init(.badRequest, code: "bad_request", message: error.description)
        case .invalidRequest: self.init(.unprocessableContent, code: "invalid_request", message: error.description)
        case .unprocessable(let code): self.init(.unprocessableContent, code: code, message: error.description)
        case .forbidden(let code): self.init(.forbidden, code: code, message: error.description)
        case .conflict(let code): self.init(.conflict, code: code, message: error.description)
        case .wrongPasscode(let remaining):
            self.init(.forbidden, code: "wrong_passcode", message: error.description, details: .object(["remaining": .integer(remaining)]))
        case .deleted(let tombstone):
            self.init(
                .gone, code: "deleted", message: error.description,
                details: .object([
                    "deletedAt": .string(Timestamp.string(from: tombstone.deletedAt)), "deletedBy": .string(tombstone.deletedBy),
                ]))
        case .invalidQuestionnaire:
            self.init(
                .unprocessableContent, code: "invalid_questionnaire", message: error.description,
                details: .object(["problems": .array(error.problems.map { .string($0) })]))
        }
    }
}
