import Foundation
import HTTPTypes
import Hummingbird
import IntakeService

/// `GET /metrics`: what the server measures, in Prometheus' text form, for admins (a scraper
/// holds an admin's token). Scrapes are not on the audit trail: one every few seconds would
/// bury what the trail is for.
struct MetricsController {
    let services: IntakeServices

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/metrics") { _, _ in
            let text = services.metrics.scrape(backlog: try await services.webhooks.backlog())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }
    }
}

/// Counts every request by method, route pattern and status, and times it to its response (a
/// stream's whole time is in the export figures). Outermost, so it sees the status an error
/// became. The body is left as it is: wrapping it would cost every response its single write.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = IntakeRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        metrics.requestStarted()
        do {
            let response = try await next(request, context)
            metrics.request(method: request.method, route: context.endpointPath, status: response.status, duration: .now - start)
            metrics.requestEnded()
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            metrics.request(method: request.method, route: context.endpointPath, status: status, duration: .now - start)
            metrics.requestEnded()
            throw error
        }
    }
}

extension ServerMetrics {
    /// What became of each record of a request, as the outcome label names it.
    func recordOutcomes(_ results: [RecordService.Result]) {
        var counts: [String: Int] = [:]
        for result in results {
            let name =
                switch result {
                case .invalid: "invalid"
                case .stored(.created, _): "created"
                case .stored(.duplicate, _): "duplicate"
                case .stored(.conflict, _): "conflict"
                case .stored(.taken, _): "taken"
                case .stored(.deleted, _): "deleted"
                }
            counts[name, default: 0] += 1
        }
        for (name, count) in counts { recordOutcome(name, count: count) }
    }
}
