import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One keep-alive HTTP/1.1 connection to 127.0.0.1 on blocking sockets: what a bench's sender
/// needs and no more, so the sender costs the machine little beside the server it measures
/// (as wrk does for single POSTs). URLSession on Linux sent the batch bench's 2.4 MB bodies
/// through libcurl's multi interface and Dispatch: its thread polled `epoll` for every few
/// kilobytes and took a third of the two cores the server ran on.
final class PlainHTTPConnection {
    private let socket: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("cannot make a socket: errno \(errno)") }
        guard connect(socket, to: .loopback(port: port)) else {
            close(socket)
            throw BenchError("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        // Each write goes out at once (no wait for the answer to the last one), and a server
        // that stops answering fails the bench after 300 s rather than hanging it.
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var limit = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(socket) }

    /// Sends one request and reads its whole response (by `Content-Length` or chunks).
    func send(_ method: String, _ path: String, headers: [(String, String)], body: Data) throws -> (status: Int, body: Data) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(Array(head.utf8))
        try body.withUnsafeBytes { try write($0) }
        let headerEnd = try readUntil([13, 10, 13, 10])
        let header = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        let lines = header.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw BenchError("an answer without a status line: \(header.prefix(200))") }
        var length: Int?
        var chunked = false
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0].lowercased() {
            case "content-length": length = Int(parts[1])
            case "transfer-encoding": chunked = parts[1].lowercased().contains("chunked")
            default: break
            }
        }
        var content: [UInt8] = []
        if chunked {
            while true {
                let lineEnd = try readUntil([13, 10])
                let line = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                guard let size = line.split(separator: ";").first.flatMap({ Int($0.trimmingCharacters(in: .whitespaces), radix: 16) }),
                    size >= 0
                else { throw BenchError("a chunk of the answer has no size: \(line.prefix(40))") }
                buffer.removeFirst(lineEnd + 2)
                if size == 0 {
                    // The last chunk: trailers, if any, end with an empty line.
                    while true {
                        let end = try readUntil([13, 10])
                        buffer.removeFirst(end + 2)
                        if end == 0 { break }
                    }
                    break
                }
                try fill(size + 2)
                content += buffer[..<size]
                buffer.removeFirst(size + 2)
            }
        } else {
            let size = length ?? 0
            try fill(size)
            content = Array(buffer[..<size])
            buffer.removeFirst(size)
        }
        return (status, Data(content))
    }

    private func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard written > 0 else { throw BenchError("the server closed the connection while a request was sent (errno \(errno))") }
                offset += written
            }
        }
    }

    /// Reads until the buffer holds `count` bytes.
    private func fill(_ count: Int) throws {
        while buffer.count < count { try receive() }
    }

    /// Reads until `marker` is in the buffer; returns where it begins.
    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var from = 0
        while true {
            if buffer.count >= marker.count {
                for start in from...(buffer.count - marker.count) where buffer[start..<start + marker.count].elementsEqual(marker) {
                    return start
                }
                from = buffer.count - marker.count + 1
            }
            try receive()
        }
    }

    private func receive() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchError("the server closed the connection before its answer ended (errno \(errno))") }
        buffer += chunk[..<count]
    }
}

extension sockaddr_in {
    /// 127.0.0.1:`port`.
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// Connects `socket` to an IPv4 address (the bench's sockets: the HTTP sender, the delaying proxy).
func connect(_ socket: Int32, to address: sockaddr_in) -> Bool {
    var address = address
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}
