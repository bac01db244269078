import Foundation
import Hummingbird
import IntakeService

extension IntakeServices {
    /// What `error` says of the storage rather than of the request: the database down or full,
    /// or a full disk under a file (an attachment); nil for anything else. Every door (the API,
    /// the console, ODK, REDCap, FHIR) asks here, and answers an outage with the status and
    /// `Retry-After` of ``APIError/unavailable(_:)``, in its own words.
    public func outage(of error: any Error) -> StoreOutage? {
        store.outage(error) ?? StoreOutage.of(fileError: error)
    }
}

extension APIError {
    /// 503 with `Retry-After`. A request whose work was stored before the outage met it (the audit
    /// event after an action) is safe to send again: a record sent again is a duplicate.
    public static func unavailable(_ outage: StoreOutage) -> APIError {
        switch outage {
        case .full:
            APIError(
                .serviceUnavailable, code: "storage_full",
                message:
                    "the server's disk is full: this request was not completed, and nothing stored before is lost; send it again later (a record sent again is answered as a duplicate; the server's operator must free space)",
                headers: [.retryAfter: "60"])
        case .unavailable:
            APIError(
                .serviceUnavailable, code: "storage_unavailable",
                message:
                    "the server's database cannot be reached: this request was not completed, and nothing stored before is lost; send it again later (a record sent again is answered as a duplicate)",
                headers: [.retryAfter: "30"])
        }
    }
}
