import Foundation

/// Where the client may send a token and records: https anywhere, plain http only to this
/// machine (loopback), unless told otherwise. A token or a record sent in the clear over a
/// network can be read by anyone on the way.
public enum TransportPolicy {
    /// Throws, before anything is sent, when `url` is plain http to a host that is not loopback
    /// and `insecure` was not given.
    public static func check(_ url: URL, insecure: Bool) throws(ClientError) {
        guard url.scheme?.lowercased() == "http", !insecure else { return }
        let host = (url.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard !isLoopback(host) else { return }
        throw ClientError.insecure(
            "refusing plain http to \(host.isEmpty ? "that server" : host): it is not this machine, and a token and patient records "
                + "would cross the network unencrypted. Use https://, or pass --insecure if this network is trusted")
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
