import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one delivery and says how it went: a 2xx is delivered; anything else (another status, a
/// redirect, which is never followed, no answer in time, no connection) is a failure described
/// without the answer's body.
public struct WebhookPoster: Sendable {
    private let session: URLSession

    public init(timeout: Duration) {
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    /// nil when the receiver answered 2xx; otherwise why the delivery failed.
    public func post(_ body: Data, to url: URL, headers: [String: String]) async -> String? {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            session.dataTask(with: request) { _, response, error in
                if let error {
                    continuation.resume(returning: Self.describe(error))
                } else if let status = (response as? HTTPURLResponse)?.statusCode {
                    switch status {
                    case 200..<300: continuation.resume(returning: nil)
                    case 300..<400: continuation.resume(returning: "HTTP \(status): redirects are not followed; register the final URL")
                    default: continuation.resume(returning: "HTTP \(status)")
                    }
                } else {
                    continuation.resume(returning: "no HTTP answer")
                }
            }.resume()
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "could not deliver (\(type(of: error)))" }
        switch error.code {
        case .timedOut: return "no answer in time"
        case .cannotConnectToHost: return "could not connect (nothing listens there?)"
        case .cannotFindHost, .dnsLookupFailed: return "could not find the host"
        case .networkConnectionLost: return "the connection was lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            return "the TLS connection failed (certificate?)"
        default: return "could not deliver (URL error \(error.code.rawValue))"
        }
    }
}

/// Keeps a delivery where it was registered: a redirect ends it as a failure.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
