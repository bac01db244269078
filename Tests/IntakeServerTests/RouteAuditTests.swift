import Testing

@testable import IntakeServer

/// Every change a route makes is on the audit trail: its row of ``RoutePolicy`` says who records it.
struct RouteAuditTests {
    @Test func everyChangeARouteMakesIsOnTheAuditTrail() {
        for rule in RoutePolicy.rules where rule.roles != nil && rule.method != "GET" {
            #expect(rule.audit != .unrecorded, "\(rule.key) changes something: the router or the action must audit it")
        }
        #expect(
            RoutePolicy.rules.filter { $0.audit == .unrecorded && $0.roles != nil }.map(\.key).sorted() == [
                // Prometheus scrapes: figures only, every few seconds.
                "GET /metrics", "GET /v1/me", "GET /v1/notifications", "GET /v1/notifications/counts", "GET /v1/notifications/stream",
            ])
    }
}
