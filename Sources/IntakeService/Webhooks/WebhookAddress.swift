import Foundation

/// Where a server lets webhooks deliver.
///
/// A webhook is a request the server makes on someone's behalf, so where it may go is the
/// deployment's choice: https to any public host by default; plain http, loopback and private
/// networks only when the deployment allows private addresses (a receiver on the same machine or
/// network); and, when ``hosts`` is set, those hosts only.
public struct WebhookAddressPolicy: Sendable {
    /// Whether loopback, private and link-local addresses (and plain http to them) are allowed.
    public var allowPrivate = false
    /// When set, the only host names or addresses webhooks may use.
    public var hosts: [String]?

    public init(allowPrivate: Bool = false, hosts: [String]? = nil) {
        self.allowPrivate = allowPrivate
        self.hosts = hosts
    }

    /// The URL as it will be used, or why it may not be.
    public func check(_ text: String) throws(ServiceError) -> URL {
        guard text.unicodeScalars.count <= 2000 else { throw .invalidRequest("a webhook url is at most 2000 characters") }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty, let url = components.url
        else { throw .invalidRequest("the webhook url '\(text.prefix(100))' is not a URL such as https://example.org/intake-hook") }
        guard scheme == "https" || scheme == "http" else {
            throw .invalidRequest("a webhook url starts with https:// (or http:// for a private address)")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalidRequest("put no user name or password in a webhook url: deliveries are signed with the webhook's secret instead")
        }
        guard components.fragment == nil else { throw .invalidRequest("a webhook url has no #fragment") }
        if let hosts, !hosts.contains(host) {
            throw .refused(
                "webhook_address_refused",
                "this server delivers webhooks only to \(hosts.joined(separator: ", ")) (INTAKE_SERVER_WEBHOOK_HOSTS); ask its admin")
        }
        let isPrivate = Self.isPrivate(host)
        if isPrivate && !allowPrivate {
            throw .refused(
                "webhook_address_refused",
                "\(host) is a loopback or private address; this server delivers only to public hosts unless started with INTAKE_SERVER_WEBHOOK_PRIVATE=allow"
            )
        }
        if scheme == "http" && !isPrivate {
            throw .refused(
                "webhook_needs_https", "a webhook to a public host must use https://, so its deliveries cannot be read on the way")
        }
        return url
    }

    /// Whether `host` names this machine or a private or link-local network (IPv4 or IPv6
    /// literals, and localhost).
    static func isPrivate(_ host: String) -> Bool {
        var host = host
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "0.0.0.0" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        if parts.count == 4, parts.allSatisfy({ $0 != nil }) {
            let (a, b) = (parts[0]!, parts[1]!)
            return a == 127 || a == 10 || a == 0 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) || (a == 169 && b == 254)
                || (a == 100 && (64...127).contains(b))
        }
        if host.contains(":") {
            let lower = host.lowercased()
            return lower == "::1" || lower == "::" || lower.hasPrefix("fc") || lower.hasPrefix("fd") || lower.hasPrefix("fe80")
                || lower.hasPrefix("::ffff:")
        }
        return false
    }
}
