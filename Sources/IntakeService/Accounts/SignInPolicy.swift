import Foundation

/// How the server slows down and stops password guessing.
///
/// After ``freeFailures`` failed sign-ins in a row, an account must wait before the next try:
/// ``baseDelay``, doubling with each further failure, at most ``maxDelay``; a try made sooner is
/// answered 429 with `Retry-After` and not checked. After ``lockAfter`` failures the account is
/// locked until an admin unlocks it (`intake admin user unlock NAME`). A client address gets the
/// same delays after ``addressFreeFailures`` failures, whichever accounts it tried. Unknown user
/// names are counted the same way (in memory), so the answers do not tell which names exist.
public struct SignInPolicy: Sendable {
    public var freeFailures = 3
    public var lockAfter = 10
    public var baseDelay: TimeInterval = 1
    public var maxDelay: TimeInterval = 15 * 60
    public var addressFreeFailures = 20

    public init() {}

    /// How long to wait after the last of `failures` failed sign-ins, `free` of them allowed without delay.
    func delay(after failures: Int, free: Int) -> TimeInterval {
        guard failures >= free else { return 0 }
        return min(maxDelay, baseDelay * pow(2, Double(min(failures - free, 30))))
    }
}
