import Foundation
import HTTPTypes
import IntakeService
import Metrics
import Prometheus
import Synchronization

/// What a running server measures, shown in Prometheus' text form at `GET /metrics`.
///
/// The figures are swift-metrics objects made by a factory of this server's own registry
/// (swift-prometheus), not the process-wide metrics system: two servers in one process (the
/// tests) keep their figures apart. Labels name routes by their pattern (`/v1/records/{id}`),
/// never a path, an id, a user or an answer. Each metric is described in docs/operations.md.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    /// Group commits: their sizes, how long requests waited for one, how long each took.
    public let groupCommit: GroupCommitMetrics

    private let requests = Mutex<[RequestKey: RequestMetrics]>([:])
    private let inFlight: Metrics.Meter
    private let outcomes = Mutex<[String: Metrics.Counter]>([:])
    private let exports = Mutex<[String: ExportMetrics]>([:])
    private let webhookBacklog: Metrics.Meter
    private let webhooks: Metrics.Meter

    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        let fast: [Duration] = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        factory.durationHistogramBuckets = [
            "intake_http_request_duration_seconds": fast, "intake_group_commit_wait_seconds": fast,
            "intake_group_commit_duration_seconds": fast,
            "intake_export_duration_seconds": [
                .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(15), .seconds(60), .seconds(300), .seconds(1200),
            ],
        ]
        let sizes: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
        factory.valueHistogramBuckets = ["intake_group_commit_records": sizes, "intake_group_commit_requests": sizes]
        self.registry = registry
        self.factory = factory
        groupCommit = GroupCommitMetrics(factory: factory)
        inFlight = Metrics.Meter(label: "intake_http_requests_in_flight", factory: factory)
        webhookBacklog = Metrics.Meter(label: "intake_webhook_backlog_events", factory: factory)
        webhooks = Metrics.Meter(label: "intake_webhooks", factory: factory)
    }

    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private struct RequestMetrics: Sendable {
        var count: Metrics.Counter
        var duration: Metrics.Timer
    }

    /// A request answered: its method, route pattern (nil: no route matched), status and time.
    func request(method: HTTPRequest.Method, route: String?, status: HTTPResponse.Status, duration: Duration) {
        // A request no route took (the router names it "NotFound") is "unmatched": never its path.
        let key = RequestKey(
            method: method.rawValue, route: route.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "unmatched", status: status.code)
        let metrics = requests.withLock { known in
            if let metrics = known[key] { return metrics }
            let labels = [("method", key.method), ("route", key.route), ("status", String(key.status))]
            let made = RequestMetrics(
                count: Metrics.Counter(label: "intake_http_requests_total", dimensions: labels, factory: factory),
                duration: Metrics.Timer(label: "intake_http_request_duration_seconds", dimensions: labels, factory: factory))
            known[key] = made
            return made
        }
        metrics.count.increment()
        metrics.duration.record(duration: duration)
    }

    func requestStarted() { inFlight.increment() }
    func requestEnded() { inFlight.decrement() }

    /// What became of each record sent (created, duplicate, conflict, invalid, …).
    func recordOutcome(_ outcome: String, count: Int = 1) {
        let counter = outcomes.withLock { known in
            if let counter = known[outcome] { return counter }
            let made = Metrics.Counter(label: "intake_records_received_total", dimensions: [("outcome", outcome)], factory: factory)
            known[outcome] = made
            return made
        }
        counter.increment(by: count)
    }

    private struct ExportMetrics: Sendable {
        var records: Metrics.Counter
        var bytes: Metrics.Counter
        var duration: Metrics.Timer
    }

    /// An export streamed to its end: its format, records, bytes and time.
    func exportFinished(format: String, records: Int, bytes: Int, duration: Duration) {
        let metrics = exports.withLock { known in
            if let metrics = known[format] { return metrics }
            let labels = [("format", format)]
            let made = ExportMetrics(
                records: Metrics.Counter(label: "intake_export_records_total", dimensions: labels, factory: factory),
                bytes: Metrics.Counter(label: "intake_export_bytes_total", dimensions: labels, factory: factory),
                duration: Metrics.Timer(label: "intake_export_duration_seconds", dimensions: labels, factory: factory))
            known[format] = made
            return made
        }
        metrics.records.increment(by: records)
        metrics.bytes.increment(by: bytes)
        metrics.duration.record(duration: duration)
    }

    /// The text a scrape gets, with what is read at scrape time (the webhook backlog).
    public func scrape(backlog: WebhookBacklog) -> [UInt8] {
        webhooks.set(Double(backlog.webhooks))
        webhookBacklog.set(Double(backlog.events))
        return registry.emitToBuffer()
    }
}
