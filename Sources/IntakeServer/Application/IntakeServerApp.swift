import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import IntakeService
import Logging
import NIOCore

/// Everything the routes need, shared by the API and `intake admin`.
public struct IntakeServices: Sendable {
    public let configuration: ServerConfiguration
    public let store: any RecordStore
    public let accounts: AccountService
    public let questionnaires: QuestionnaireService
    public let records: RecordService
    /// Who may do what with one record: every route that acts on one asks it.
    public let access: RecordAccessService
    public let exports: ExportService
    public let teams: TeamService
    public let referrals: ReferralService
    /// Records' review states, locks and threads.
    public let reviews: ReviewService
    public let webhooks: WebhookService
    public let patients: PatientService
    public let audit: AuditLog
    /// Enrolment codes, devices and their tokens.
    public let devices: DeviceService
    /// Cases: what records open and change, who follows them.
    public let cases: CaseService
    /// What the server measures (`GET /metrics`).
    public let metrics: ServerMetrics

    public init(configuration: ServerConfiguration, store: any RecordStore) {
        self.configuration = configuration
        self.store = store
        let audit = AuditLog(store: store, clock: configuration.clock)
        self.audit = audit
        self.accounts = AccountService(
            store: store, bcryptCost: configuration.bcryptCost, sessionLifetime: configuration.sessionLifetime,
            policy: configuration.signIn,
            clock: configuration.clock, audit: audit, teamCreation: configuration.teamCreation)
        self.questionnaires = QuestionnaireService(store: store)
        let notifications = NotificationHub()
        self.records = RecordService(
            store: store, questionnaires: questionnaires, notifications: notifications,
            attachments: configuration.attachmentsFolder.flatMap { try? AttachmentStore(folder: $0) })
        self.access = RecordAccessService(store: store, clock: configuration.clock)
        self.exports = ExportService(store: store, questionnaires: questionnaires)
        let accounts = self.accounts
        self.teams = TeamService(
            store: store, clock: configuration.clock, hub: notifications, audit: audit, membershipChanged: { accounts.forgetCachedUsers() })
        self.referrals = ReferralService(store: store, clock: configuration.clock, hub: teams.hub, access: access)
        self.reviews = ReviewService(store: store, access: access, hub: teams.hub, clock: configuration.clock)
        self.webhooks = WebhookService(store: store, settings: configuration.webhooks, hub: teams.hub, clock: configuration.clock)
        self.patients = PatientService(store: store, clock: configuration.clock)
        self.devices = DeviceService(store: store, clock: configuration.clock)
        self.cases = CaseService(store: store, questionnaires: questionnaires, hub: teams.hub)
        self.metrics = ServerMetrics()
        store.observeIngest(metrics.groupCommit)
    }

    /// Throws when the store cannot be read (`/health`).
    public func checkHealth() async throws { try await store.checkHealth() }

    /// What delivers notifications to webhooks while the server runs.
    public func webhookDispatcher(logger: Logger) -> WebhookDispatcher {
        WebhookDispatcher(store: store, hub: teams.hub, settings: configuration.webhooks, clock: configuration.clock, logger: logger)
    }
}

/// Routes another module adds to the server (the web console): on the same router, behind the
/// same middleware (request log, limits, rate limit), outside the API's route table and
/// contract. Such a module decides access through the same services and policy as the API.
public protocol ServerModule: Sendable {
    func register(on router: Router<IntakeRequestContext>, services: IntakeServices)
    /// Paths that need no token, where a stale Authorization header is ignored (a sign-in).
    var publicPaths: Set<String> { get }
}

extension ServerModule {
    public var publicPaths: Set<String> { [] }
}

public enum IntakeServerApp {
    /// The router with every route and middleware, and the list of routes it registered (the
    /// API's; not the `modules`').
    public static func router(
        _ services: IntakeServices, modules: [any ServerModule] = []
    ) -> (router: Router<IntakeRequestContext>, routes: [String]) {
        let router = Router(context: IntakeRequestContext.self)
        let table = RouteTable()
        router.add(middleware: MetricsMiddleware(metrics: services.metrics))
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: ErrorMiddleware(routes: table, outage: { services.outage(of: $0) }))
        router.add(middleware: RequestLimitsMiddleware())
        router.add(
            middleware: TokenAuthenticator(
                accounts: services.accounts, devices: services.devices,
                publicPaths: modules.reduce(TokenAuthenticator.apiPublicPaths) { $0.union($1.publicPaths) }))
        if let limit = services.configuration.rateLimit {
            router.add(middleware: RateLimitMiddleware(limiter: RateLimiter(limit: limit, clock: services.configuration.clock)))
        }
        let registrar = RouteRegistrar(router: router, table: table, audit: services.audit)
        HealthController(services: services).register(registrar)
        MetricsController(services: services).register(registrar)
        SessionController(services: services).register(registrar)
        QuestionnaireController(services: services).register(registrar)
        RecordController(services: services).register(registrar)
        AttachmentController(services: services).register(registrar)
        ChangeController(services: services).register(registrar)
        LookupController(services: services).register(registrar)
        AdminController(services: services).register(registrar)
        ExportController(services: services).register(registrar)
        TeamController(services: services).register(registrar)
        NotificationController(services: services).register(registrar)
        ReferralController(services: services).register(registrar)
        ReviewController(services: services).register(registrar)
        WebhookController(services: services).register(registrar)
        PatientController(services: services).register(registrar)
        DataGroupController(services: services).register(registrar)
        ReportController(services: services).register(registrar)
        AuditController(services: services).register(registrar)
        DeviceController(services: services).register(registrar)
        CaseController(services: services).register(registrar)
        for module in modules { module.register(on: router, services: services) }
        return (router, registrar.routes)
    }

    public static func application(
        _ services: IntakeServices, modules: [any ServerModule] = [], logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let port = services.configuration.port
        return Application(
            router: router(services, modules: modules).router, server: try httpServer(services.configuration),
            configuration: .init(address: .hostname(services.configuration.host, port: port), serverName: "intake"),
            onServerRunning: { await onRunning($0.localAddress?.port ?? port) }, logger: logger)
    }

    /// HTTP/1.1 with the configuration's idle timeout (a connection that sends nothing for that
    /// long, such as a keep-alive left open, is closed) and header timeout, and JSON answers to
    /// requests the HTTP parser cannot read (``GuardedHTTP1Channel``).
    static func httpServer(_ configuration: ServerConfiguration) throws -> HTTPServerBuilder {
        func amount(_ duration: Duration) -> TimeAmount {
            .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        }
        let idle = amount(configuration.idleTimeout), header = amount(configuration.headerTimeout)
        let http = HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, idleTimeout: idle, headerTimeout: header) }
        guard let tls = configuration.tls else { return http }
        return try .tls(http, tlsConfiguration: try tls.load())
    }

    /// Serves until the process is stopped (SIGINT or SIGTERM end it gracefully): what
    /// `intake serve` runs, with the host, port and log level of the services' configuration.
    /// `onRunning` is told the port once the server listens. A port another program holds is
    /// ``ServerStartError``, one sentence.
    public static func run(
        _ services: IntakeServices, modules: [any ServerModule] = [], onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        var logger = Logger(label: "intake.server")
        logger.logLevel = Logger.Level(rawValue: services.configuration.logLevel) ?? .info
        // Read notifications past their retention go at start and then every day.
        let purge = Task { [logger] in
            while !Task.isCancelled {
                do {
                    let purged = try await services.teams.purgeRead(olderThan: services.configuration.notificationRetention)
                    if purged > 0 { logger.info("purged read notifications", metadata: ["count": "\(purged)"]) }
                } catch {
                    logger.warning("could not purge read notifications", metadata: ["error.type": "\(type(of: error))"])
                }
                try? await Task.sleep(for: .seconds(86_400))
            }
        }
        defer { purge.cancel() }
        let dispatcher = services.webhookDispatcher(logger: logger)
        let delivery = Task { await dispatcher.run() }
        defer { delivery.cancel() }
        // Cases follow the records stored, here or through another server.
        let cases = Task { await services.cases.run(wake: services.records.changes) }
        defer { cases.cancel() }
        // Overdue cases are told of at start and every ten minutes (each once: event keys).
        let overdue = Task { [logger] in
            while !Task.isCancelled {
                do {
                    try await services.cases.notifyOverdue(at: services.configuration.clock())
                } catch {
                    logger.warning("could not tell of overdue cases", metadata: ["error.type": "\(type(of: error))"])
                }
                try? await Task.sleep(for: .seconds(600))
            }
        }
        defer { overdue.cancel() }
        do {
            try await application(services, modules: modules, logger: logger, onRunning: onRunning).runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES {
            let configuration = services.configuration
            throw ServerStartError(
                error.errnoCode == EADDRINUSE
                    ? "port \(configuration.port) of \(configuration.host) is in use by another program; stop it, or choose another port with --port (or INTAKE_SERVER_PORT)"
                    : "this account may not listen on port \(configuration.port) of \(configuration.host); choose a port above 1023 with --port (or INTAKE_SERVER_PORT)"
            )
        }
    }

    /// The OpenAPI contract served at `/openapi.yaml`, with the server's batch limit
    /// as `BatchRequest.records.maxItems` (the file says the default, 500), so a client reading
    /// the document knows this server's limit.
    public static func openAPIDocument(maxBatchRecords: Int = 500) throws -> String {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw ConfigurationError("openapi.yaml is missing from the server's resources; rebuild Intake")
        }
        let document = try String(contentsOf: url, encoding: .utf8)
        let batchItems = "records: { type: array, maxItems: 500, "
        guard document.contains(batchItems) else {
            throw ConfigurationError(
                "openapi.yaml no longer states the batch limit as 'maxItems: 500' on BatchRequest.records; update IntakeServerApp.openAPIDocument"
            )
        }
        return document.replacingOccurrences(of: batchItems, with: "records: { type: array, maxItems: \(maxBatchRecords), ")
    }
}

/// Why the server could not start listening, as one sentence.
public struct ServerStartError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
