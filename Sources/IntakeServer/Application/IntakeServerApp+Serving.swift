import Foundation
import Hummingbird
import IntakeService
import Logging
import ServiceLifecycle

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
        let dispatcher = services.webhookDispatcher(logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await dispatcher.run() }
            defer { group.cancelAll() }  // the dispatcher, once the server has stopped
            return try await running(app, logger: logger, onFailure: { bound.fail($0) }) {
                try await body(try await bound.wait())
            }
        }
    }

    /// Runs `service` (a Hummingbird application) while `body` runs, then shuts it down
    /// gracefully and waits until it has stopped; `body`'s error, if any, is rethrown after that.
    ///
    /// The server is never stopped by cancelling its task: a connection accepted while the task
    /// is cancelled is never handed over, and swift-nio then traps ("Deinited NIOAsyncWriter
    /// without calling finish()", apple/swift-nio#3481). A graceful shutdown stops accepting,
    /// lets requests in flight finish (long polls answer at once) and closes idle connections.
    /// Should the stop take longer than `maximumShutdown`, the service is cancelled after all;
    /// the `CancellationError` that then ends it is thrown as ``ServerStopTimedOut``.
    public static func running<T: Sendable>(
        _ service: some Service, logger: Logger, maximumShutdown: Duration = .seconds(20),
        onFailure: @escaping @Sendable (any Error) -> Void = { _ in }, while body: () async throws -> T
    ) async throws -> T {
        var configuration = ServiceGroupConfiguration(services: [service], logger: logger)
        configuration.maximumGracefulShutdownDuration = maximumShutdown
        let serviceGroup = ServiceGroup(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await serviceGroup.run()
                } catch {
                    onFailure(error)  // a port already taken says so at once, not after the wait
                    throw error
                }
            }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            await serviceGroup.triggerGracefulShutdown()
            var stopFailure: (any Error)?
            do {
                try await group.waitForAll()
            } catch {
                stopFailure = error
            }
            let value = try outcome.get()  // the body's error first: it says what the test saw
            if stopFailure is CancellationError { throw ServerStopTimedOut(limit: maximumShutdown) }
            if let stopFailure { throw stopFailure }
            return value
        }
    }
}

/// A server asked to stop that had not stopped in time, and was cancelled.
public struct ServerStopTimedOut: Error, CustomStringConvertible {
    public var limit: Duration
    public var description: String { "the server did not stop within \(limit) of being asked to, and was cancelled" }
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
