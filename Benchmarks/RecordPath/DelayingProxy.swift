import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 that holds every chunk of bytes for `delay` before passing it on, in
/// each direction: a database one round trip of twice `delay` away, as across a data centre's
/// network (this kernel has no netem to add the delay itself).
///
/// Bytes are never held back by the ones before them beyond their own delay: a reader thread per
/// direction stamps each chunk as it arrives and a writer thread sends it when its time comes, so
/// pipelined queries overlap as they would on a real link. The proxy counts what it does — the
/// CPU its threads spend and how late past its time each chunk left — so a figure measured
/// through it can say the proxy was not the limit.
final class DelayingProxy: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let target: sockaddr_in
    private let delay: Duration
    private let lock = NSLock()
    private var sockets: [Int32] = []
    private var stopped = false
    private var chunks = 0
    private var bytes = 0
    private var lateness = Duration.zero
    private var threadCPU = 0.0
    private var running = 0
    private let ended = NSCondition()
    private let started = ContinuousClock.now

    /// A proxy to `url`'s host and port; ``url(for:)`` gives the same URL through the proxy.
    init(to url: String, delay: Duration) throws {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw BenchError("cannot read the host of \(url)")
        }
        let port = components.port ?? 5432
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw BenchError("the delaying proxy reaches IPv4 addresses only, not \(host)")
        }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        local.sin_port = 0
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            close(listener)
            throw BenchError("the delaying proxy cannot listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: local.sin_port))
        self.target = address
        self.delay = delay
        threadStarted()
        let thread = Thread { [self] in
            acceptLoop()
            close(self.listener)
            threadEnded()
        }
        thread.start()
    }

    /// `url` with its host and port replaced by the proxy's.
    func url(for url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.host = "127.0.0.1"
        components.port = port
        return components.string ?? url
    }

    /// What the proxy did: chunks, the mean lateness past each one's time, and its threads' CPU
    /// as a share of one core over its life.
    var summary: String {
        lock.withLock {
            let elapsed = seconds(ContinuousClock.now - started)
            let late = chunks == 0 ? 0 : seconds(lateness) * 1000 / Double(chunks)
            return String(
                format: "delaying proxy: %d chunks (%.1f MB), each sent on average %.3f ms after its time, its threads %.0f%% of one core",
                chunks, Double(bytes) / 1_048_576, late, elapsed > 0 ? threadCPU / elapsed * 100 : 0)
        }
    }

    /// Stops listening, ends every connection and waits (a few seconds at most) for their threads
    /// to count what they did.
    func stop() {
        // The accept thread closes the listener as it leaves: closed here, its number could be
        // given to another socket before that thread's next accept().
        shutdown(listener, Int32(SHUT_RDWR))
        // Under the lock: a connection's sockets are forgotten under it before they are closed.
        lock.withLock {
            stopped = true
            for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
        let deadline = Date().addingTimeInterval(5)
        ended.withLock {
            while running > 0 && ended.wait(until: deadline) {}
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                // A connection given up before it was taken is no reason to stop taking others.
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard connect(server, to: target) else {
                close(client)
                close(server)
                continue
            }
            var one: Int32 = 1
            for socket in [client, server] {
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            let keep = lock.withLock {
                if stopped { return false }
                sockets += [client, server]
                return true
            }
            guard keep else {
                close(client)
                close(server)
                continue
            }
            let closing = Closing(client: client, server: server) { [self] in
                lock.withLock { sockets.removeAll { $0 == client || $0 == server } }
            }
            pump(from: client, to: server, closing: closing)
            pump(from: server, to: client, closing: closing)
        }
    }

    /// Closes a connection's two sockets once its four threads (a reader and a writer each way)
    /// have ended: none of them then touches either number again.
    private final class Closing: @unchecked Sendable {
        let client: Int32, server: Int32
        private var ended = 0
        private let lock = NSLock()
        private let forget: @Sendable () -> Void
        init(client: Int32, server: Int32, forget: @escaping @Sendable () -> Void) {
            self.client = client
            self.server = server
            self.forget = forget
        }
        func end() {
            let last = lock.withLock {
                ended += 1
                return ended == 4
            }
            if last {
                // Forgotten first: stop() never shuts down a number the system has given again.
                forget()
                close(client)
                close(server)
            }
        }
    }

    /// One direction: a reader that stamps chunks and a writer that sends each at its time.
    private func pump(from source: Int32, to destination: Int32, closing: Closing) {
        let queue = ChunkQueue()
        let reader = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                queue.put(Array(buffer[0..<count]), at: ContinuousClock.now + delay)
            }
            queue.finish()
            closing.end()
            threadEnded()
        }
        let writer = Thread { [self] in
            var sent = 0, late = Duration.zero, total = 0
            while let (chunk, due) = queue.take() {
                let now = ContinuousClock.now
                if now < due { Thread.sleep(forTimeInterval: seconds(due - now)) }
                let lateBy = ContinuousClock.now - due
                var offset = 0
                while offset < chunk.count {
                    // MSG_NOSIGNAL: a peer gone (stop() shuts sockets down) is an error here, not SIGPIPE.
                    let written = chunk.withUnsafeBytes {
                        send(destination, $0.baseAddress! + offset, chunk.count - offset, Int32(MSG_NOSIGNAL))
                    }
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { break }
                    offset += written
                }
                if offset < chunk.count { break }
                late += lateBy
                sent += 1
                total += chunk.count
            }
            shutdown(destination, Int32(SHUT_WR))
            shutdown(source, Int32(SHUT_RD))
            lock.withLock {
                chunks += sent
                bytes += total
                lateness += late
            }
            closing.end()
            threadEnded()
        }
        threadStarted()
        threadStarted()
        reader.start()
        writer.start()
    }

    private func threadStarted() { ended.withLock { running += 1 } }

    private func threadEnded() {
        addThreadCPU()
        ended.withLock {
            running -= 1
            ended.broadcast()
        }
    }

    private func addThreadCPU() {
        var usage = rusage()
        // RUSAGE_THREAD (1): this thread's own use; the header's GNU-only name is not imported.
        getrusage(__rusage_who_t(1), &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        lock.withLock { threadCPU += cpu }
    }
}

/// Chunks waiting for their time, in the order they came.
private final class ChunkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var chunks: [([UInt8], ContinuousClock.Instant)] = []
    private var head = 0
    private var finished = false

    func put(_ chunk: [UInt8], at due: ContinuousClock.Instant) {
        condition.withLock {
            chunks.append((chunk, due))
            condition.signal()
        }
    }

    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    /// The next chunk, waiting for one; nil once the reader has finished and all are taken.
    func take() -> ([UInt8], ContinuousClock.Instant)? {
        condition.withLock {
            while head == chunks.count && !finished { condition.wait() }
            guard head < chunks.count else { return nil }
            let next = chunks[head]
            head += 1
            if head > 1024 {
                chunks.removeFirst(head)
                head = 0
            }
            return next
        }
    }
}
