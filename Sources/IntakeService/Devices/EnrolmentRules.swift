import Foundation

/// The rules of using an enrolment code; the stores apply them in one transaction.
public enum EnrolmentRules {
    public enum Decision: Equatable {
        case refuse(EnrolmentOutcome)
        case wrongSecret(failures: Int, locked: Bool, EnrolmentOutcome)
        case enrol
    }

    public static func redeem(_ enrolment: Enrolment, secretMatches: Bool, lockAfter: Int, at time: Date) -> Decision {
        let state = enrolment.state(at: time)
        guard state == .open else { return .refuse(.refused(state)) }
        guard secretMatches else {
            let failures = enrolment.failedAttempts + 1
            let locked = failures >= lockAfter
            return .wrongSecret(
                failures: failures, locked: locked, locked ? .refused(.locked) : .wrongSecret(remaining: lockAfter - failures))
        }
        return .enrol
    }
}
