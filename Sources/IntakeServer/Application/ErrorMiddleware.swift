import Foundation
import Hummingbird
import Logging

/// Turns every error into `{"error": {…}}` with the right status. Anything unexpected is a 500
/// whose log line names the error type only, never request data.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = IntakeRequestContext
    /// The routes, to answer a known path asked with another method with 405 and `Allow`.
    let routes: RouteTable
    /// Tells a database that is full or down (503) from a failing request.
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
        } catch let error as APIError {
            return try Self.response(error)
        } catch let error as ServiceError {
            return try Self.response(APIError(error))
        } catch let error as TeamError {
            return try Self.response(APIError(error))
        } catch let error as RecordStoreError {
            switch error {
            case .alreadyExists(let what):
                return try Self.response(APIError(.conflict, code: "already_exists", message: "\(what) already exists"))
            case .notFound(let what):
                return try Self.response(APIError.notFound(what))
            }
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
            if let outage = outage(error) ?? StoreOutage.of(fileError: error) {
                context.logger.error("storage outage", metadata: ["outage": "\(outage)", "error.type": "\(type(of: error))"])
                return try Self.response(Self.unavailable(outage))
            }
            context.logger.error("request failed", metadata: ["error.type": "\(type(of: error))"])
            return try Self.response(
                APIError(.internalServerError, code: "internal", message: "the server failed; the error is logged; try again later"))
        }
    }

    /// 503 with `Retry-After`. A request whose work was stored before the outage met it (the audit
    /// event after an action) is safe to send again: a record sent again is a duplicate.
    static func unavailable(_ outage: StoreOutage) -> APIError {
        switch outage {
        case .full:
            APIError(
                .serviceUnavailable, code: "storage_full",
                message: "the server's disk is full: this request was not completed, and nothing stored before is lost; send it again later (a record sent again is answered as a duplicate; the server's operator must free space)",
                headers: [.retryAfter: "60"])
        case .unavailable:
            APIError(
                .serviceUnavailable, code: "storage_unavailable",
                message: "the server's database cannot be reached: this request was not completed, and nothing stored before is lost; send it again later (a record sent again is answered as a duplicate)",
                headers: [.retryAfter: "30"])
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
    /// A team request's refusal as the API answers it.
    init(_ error: TeamError) {
        switch error {
        case .notFound: self.init(.notFound, code: "not_found", message: error.description)
        case .forbidden: self.init(.forbidden, code: "forbidden", message: error.description)
        case .invalid: self.init(.unprocessableContent, code: "invalid_request", message: error.description)
        case .conflict(let code, _): self.init(.conflict, code: code, message: error.description)
        case .refused(let code, _): self.init(.unprocessableContent, code: code, message: error.description)
        case .wrongPasscode(let remaining):
            self.init(.forbidden, code: "wrong_passcode", message: error.description, details: .object(["remaining": .integer(remaining)]))
        }
    }

    /// A service's error as the API answers it.
    init(_ error: ServiceError) {
        switch error.kind {
        case .notFound: self.init(.notFound, code: "not_found", message: error.description)
        case .invalid: self.init(.badRequest, code: "bad_request", message: error.description)
        case .unprocessable(let code): self.init(.unprocessableContent, code: code, message: error.description)
        case .invalidQuestionnaire:
            self.init(
                .unprocessableContent, code: "invalid_questionnaire", message: error.description,
                details: .object(["problems": .array(error.problems.map { .string($0) })]))
        }
    }
}
