import Foundation
import Hummingbird
import IntakeService
import Logging

extension IntakeServerApp {
    /// Runs the server on 127.0.0.1:`port` (0: any free port) while `body` runs with the port it
    /// bound, then stops it. For tests and `intake bench`, which need a real server for a while.
    public static func serving<T: Sendable>(
        _ services: IntakeServices, port: Int = 0, logger: Logger, _ body: @escaping @Sendable (Int) async throws -> T
    ) async throws -> T {
        let bound = BoundPort()
        let app = Application(
            router: router(services).router, server: try httpServer(services.configuration),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { bound.set($0.localAddress?.port ?? port) }, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                do {
                    try await app.runService()
                } catch {
                    bound.fail(error)  // a port already taken says so at once, not after the wait
                    throw error
                }
                return nil
            }
            let dispatcher = services.webhookDispatcher(logger: logger)
            group.addTask {
                await dispatcher.run()
                return nil
            }
            let result = try await body(try await bound.wait())
            group.cancelAll()
            return result
        }
    }
}

/// The port the server bound, once it listens.
final class BoundPort: @unchecked Sendable {
    private let lock = NSLock()
    private var port: Int?
    private var failure: (any Error)?

    func set(_ value: Int) { lock.withLock { port = value } }
    func fail(_ error: any Error) { lock.withLock { failure = error } }

    /// Waits until a clock's deadline, not for a count of sleeps: on a busy machine each sleep
    /// may last much longer than asked, and a count would give up early. Two minutes: a
    /// two-core machine running every test suite at once has taken more than 30 seconds to
    /// start one (a port taken, or any other failure to start, is said at once).
    func wait(timeout: Duration = .seconds(120)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let state: (port: Int?, failure: (any Error)?) = lock.withLock { (self.port, self.failure) }
            if let port = state.port { return port }
            if let failure = state.failure { throw failure }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ConfigurationError("the server did not start listening within \(timeout.components.seconds) seconds")
    }
}
