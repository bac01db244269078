import Foundation

/// Runs `work`; when it has not ended after a second, says `message` on standard error first, so
/// that a wait (a server that is slow or never answers) is never silent. Nothing is said when
/// the work ends sooner.
func sayingWhileWaiting<T>(_ message: String, after seconds: Double = 1, _ work: () async throws -> T) async rethrows -> T {
    let notice = Task {
        try await Task.sleep(for: .seconds(seconds))
        printError(message)
    }
    defer { notice.cancel() }
    return try await work()
}
