import Foundation
import Synchronization

/// Ports for the servers these tests start, below the kernel's ephemeral range.
///
/// A test that stops its server and starts it again on the same port (to be offline a while)
/// must not find that port taken meanwhile. A port handed out by the kernel for `bind(0)` or an
/// outgoing connection comes from `ip_local_port_range` (32768–60999 by default), so any other
/// test's server or client could take it in the gap; a port below that range is taken only by
/// something that asks for it by number. Each test process walks its own stretch of the range,
/// and every port is checked free before it is given.
enum TestPorts {
    private static let next = Mutex(20_000 + Int(getpid() % 1_000) * 10)

    /// A free port below the ephemeral range, never given twice by this process.
    static func reserve() -> Int {
        for _ in 0..<2_000 {
            let port = next.withLock { value in
                defer { value = value >= 32_000 ? 20_000 : value + 1 }
                return value
            }
            if isFree(port) { return port }
        }
        return 0
    }

    private static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0
    }

    /// The address of `port` (0: one the kernel picks) on 127.0.0.1.
    static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
