import CCurl
import Foundation
import Synchronization

/// Every request the client makes, over libcurl: http and https, the certificate checked against
/// the CA file (or the system's authorities) and the saved pins before a byte of the request is
/// written, proxies from the environment (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`),
/// timeouts, kept-alive connections, and answers collected, written to a file or streamed.
///
/// A transfer runs `curl_easy_perform` on a thread of its own while the caller awaits (never on
/// Dispatch's shared threads, which Swift concurrency's tasks need: a blocked transfer must not
/// hold one); easy handles are kept between requests so their connections are reused.
final class CurlTransport: Sendable {
    /// `scheme://host:port`, without a trailing slash.
    let origin: String
    let host: String
    let isSecure: Bool
    /// How long a connection (and the TLS handshake) may take.
    let connectTimeout: TimeInterval
    /// How long a whole exchange may take once asked (a large batch on a slow link, a long poll).
    let deadline: TimeInterval
    let tls: ClientTLS
    private let idle = Mutex<[Handle]>([])
    private static let maxIdle = 8

    /// libcurl's global state, set up once before the first handle. With NOSIGNAL, libcurl does
    /// not guard against SIGPIPE itself: a peer that closes mid-write must not end the process.
    private static let ready: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    init?(baseURL: URL, timeout: TimeInterval, tls: ClientTLS) {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = baseURL.host, !host.isEmpty
        else {
            return nil
        }
        let port = baseURL.port ?? (scheme == "https" ? 443 : 80)
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        origin = "\(scheme)://\(bracketed):\(port)"
        self.host = host
        isSecure = scheme == "https"
        connectTimeout = timeout
        deadline = timeout
        self.tls = tls
    }

    deinit {
        for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.pointer) }
    }

    struct Answer: Sendable {
        var status: Int
        /// Response headers, names in lower case.
        var headers: [String: String]
        var body: Data
    }

    /// Where an answer's body goes.
    enum Sink: Sendable {
        case memory
        /// Written to this file as it arrives (created with mode 0600).
        case file(URL)
        /// Handed over chunk by chunk when the status is 200 (kept in memory otherwise); the
        /// closure answers false to stop the transfer.
        case stream(@Sendable (UnsafeRawBufferPointer) -> Bool)
    }

    /// How long a transfer may go on: a deadline for the whole exchange, or only a limit on
    /// silence (a download or an event stream may take as long as it needs while bytes arrive).
    enum Limit: Sendable {
        case deadline
        case idle(TimeInterval)
    }

    /// Sends one request and collects the answer.
    func send(method: String, path: String, headers: [(String, String)], body: Data?) async throws(ClientError) -> Answer {
        try await transfer(method: method, path: path, headers: headers, body: body, sink: .memory, limit: .deadline)
    }

    /// Sends one request; the answer goes to `sink`. Cancelling the task that awaits it stops the transfer.
    func transfer(method: String, path: String, headers: [(String, String)], body: Data?, sink: Sink, limit: Limit)
        async throws(ClientError) -> Answer
    {
        try tls.validate()
        let request = Request(method: method, url: origin + path, headers: headers, body: body, sink: sink, limit: limit)
        let cancel = CancelFlag()
        let result: Result<Answer, ClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: self.perform(request, cancel: cancel)) }.start()
            }
        } onCancel: {
            cancel.set()
        }
        return try result.get()
    }

    struct Request: Sendable {
        var method: String
        var url: String
        var headers: [(String, String)]
        var body: Data?
        var sink: Sink
        var limit: Limit
    }

    private func perform(_ request: Request, cancel: CancelFlag) -> Result<Answer, ClientError> {
        guard Self.ready else { return .failure(.unexpected("libcurl could not be initialised")) }
        let handle: Handle
        if let kept = idle.withLock({ $0.popLast() }) {
            curl_easy_reset(kept.pointer)
            handle = kept
        } else if let pointer = curl_easy_init() {
            handle = Handle(pointer: pointer)
        } else {
            return .failure(.unexpected("libcurl could not make a handle"))
        }
        let state = TransferState(handle: handle.pointer, sink: request.sink, cancel: cancel)
        if case .idle(let seconds) = request.limit { state.silence = seconds }
        var list: UnsafeMutablePointer<curl_slist>?
        // No "Expect: 100-continue" round trip before a large body.
        for (name, value) in request.headers + [("Expect", "")] { list = curl_slist_append(list, "\(name): \(value)") }
        defer { curl_slist_free_all(list) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            let pointer = handle.pointer
            // A setting that does not take (a pin, the CA file) must not leave the request unprotected.
            let configured = configure(pointer, url: request.url, limit: request.limit)
            guard configured == CURLE_OK else { return configured }
            intake_curl_set_pointer(pointer, CURLOPT_ERRORBUFFER, errors.baseAddress)
            intake_curl_set_list(pointer, CURLOPT_HTTPHEADER, list)
            let opaque = Unmanaged.passUnretained(state).toOpaque()
            intake_curl_set_write_function(pointer, CURLOPT_WRITEFUNCTION, curlWriteBody)
            intake_curl_set_pointer(pointer, CURLOPT_WRITEDATA, opaque)
            intake_curl_set_write_function(pointer, CURLOPT_HEADERFUNCTION, curlWriteHeader)
            intake_curl_set_pointer(pointer, CURLOPT_HEADERDATA, opaque)
            intake_curl_set_progress_function(pointer, curlProgress)
            intake_curl_set_pointer(pointer, CURLOPT_XFERINFODATA, opaque)
            intake_curl_set_long(pointer, CURLOPT_NOPROGRESS, 0)
            switch request.method {
            case "GET": intake_curl_set_long(pointer, CURLOPT_HTTPGET, 1)
            case "POST": break
            default: intake_curl_set_string(pointer, CURLOPT_CUSTOMREQUEST, request.method)
            }
            let body = request.body ?? (request.method == "GET" ? nil : Data())
            guard let body else { return curl_easy_perform(pointer) }
            guard !body.isEmpty else {
                // An empty body: libcurl copies the empty string, so no pointer outlives its scope.
                intake_curl_set_string(pointer, CURLOPT_COPYPOSTFIELDS, "")
                return curl_easy_perform(pointer)
            }
            return body.withUnsafeBytes { bytes in
                intake_curl_set_offset(pointer, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                intake_curl_set_pointer(pointer, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                return curl_easy_perform(pointer)
            }
        }
        var status = 0
        if code == CURLE_OK {
            var value = 0
            intake_curl_get_long(handle.pointer, CURLINFO_RESPONSE_CODE, &value)
            status = value
        }
        let message = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let verifyResult: Int = {
            var value = 0
            intake_curl_get_long(handle.pointer, CURLINFO_SSL_VERIFYRESULT, &value)
            return value
        }()
        state.finish()
        // The handle pointed at this transfer's error buffer, header list, body and state, all
        // gone now: it forgets them before it is kept (or cleaned up), keeping its connections.
        curl_easy_reset(handle.pointer)
        // A handle that failed mid-way may hold a broken connection: start the next one afresh.
        if code == CURLE_OK,
            idle.withLock({ idle in
                guard idle.count < Self.maxIdle else { return false }
                idle.append(handle)
                return true
            })
        {
        } else {
            curl_easy_cleanup(handle.pointer)
        }
        if let fileError = state.fileError {
            return .failure(.unexpected("cannot write the answer to \(fileError)"))
        }
        guard code == CURLE_OK else {
            // Stopped by the progress callback for silence: as a deadline would have been.
            let code = state.silent ? CURLE_OPERATION_TIMEDOUT : code
            return .failure(failure(code, message: message, verifyResult: verifyResult, cancelled: cancel.isSet))
        }
        return .success(Answer(status: status, headers: state.headers, body: state.body))
    }

    /// What every request shares: where, how long, which protocols, and for https how the server is trusted.
    /// The first setting that does not take, if any; nothing is sent then.
    private func configure(_ pointer: UnsafeMutableRawPointer, url: String, limit: Limit) -> CURLcode {
        let set = intake_curl_set_string(pointer, CURLOPT_URL, url)
        guard set == CURLE_OK else { return set }
        intake_curl_set_long(pointer, CURLOPT_NOSIGNAL, 1)
        intake_curl_set_string(pointer, CURLOPT_PROTOCOLS_STR, "http,https")
        intake_curl_set_long(pointer, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        intake_curl_set_long(pointer, CURLOPT_TCP_NODELAY, 1)
        intake_curl_set_long(pointer, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000))
        switch limit {
        case .deadline:
            intake_curl_set_long(pointer, CURLOPT_TIMEOUT_MS, Int(deadline * 1000))
        case .idle(let seconds):
            // Less than a byte a second for that long: the link is taken as dead.
            intake_curl_set_long(pointer, CURLOPT_LOW_SPEED_LIMIT, 1)
            intake_curl_set_long(pointer, CURLOPT_LOW_SPEED_TIME, max(1, Int(seconds.rounded(.up))))
        }
        guard isSecure else {
            // Plain http goes only to this machine (TransportPolicy): never through a proxy from the
            // environment, which would carry the token and records in the clear off the machine.
            if TransportPolicy.isLoopback(host.lowercased()) { return intake_curl_set_string(pointer, CURLOPT_NOPROXY, "*") }
            return CURLE_OK
        }
        for (option, value) in [
            (CURLOPT_SSL_VERIFYPEER, 1), (CURLOPT_SSL_VERIFYHOST, 2), (CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)),
        ] {
            let set = intake_curl_set_long(pointer, option, value)
            guard set == CURLE_OK else { return set }
        }
        if let caFile = tls.caFile {
            let set = intake_curl_set_string(pointer, CURLOPT_CAINFO, caFile)
            guard set == CURLE_OK else { return set }
        }
        if !tls.pins.isEmpty {
            // libcurl checks the pin during the handshake, before it writes the request.
            let pins = tls.pins.map { "sha256//" + $0.dropFirst("sha256/".count) }.joined(separator: ";")
            let set = intake_curl_set_string(pointer, CURLOPT_PINNEDPUBLICKEY, pins)
            guard set == CURLE_OK else { return set }
        }
        return CURLE_OK
    }

    private func failure(_ code: CURLcode, message: String, verifyResult: Int, cancelled: Bool) -> ClientError {
        if cancelled { return .offline("stopped") }
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CACERT_BADFILE:
            let failure = diagnose(code, message: message, verifyResult: verifyResult)
            if case .caFile = failure { return .insecure(failure.description) }
            return .insecure("refusing \(origin): \(failure)")
        case CURLE_SSL_CONNECT_ERROR:
            return .insecure("refusing \(origin): \(TLSFailure.handshake(message.isEmpty ? "no detail" : message))")
        case CURLE_NOT_BUILT_IN, CURLE_UNKNOWN_OPTION, CURLE_OUT_OF_MEMORY:
            return .insecure(
                "refusing \(origin): this libcurl cannot apply the TLS settings (\(String(cString: curl_easy_strerror(code)))); nothing was sent"
            )
        default:
            return .offline("cannot reach \(origin): \(Self.describe(code, message: message))")
        }
    }

    /// A few words on why a transfer failed, for a person.
    static func describe(_ code: CURLcode, message: String) -> String {
        switch code {
        case CURLE_COULDNT_CONNECT: "connection refused"
        case CURLE_OPERATION_TIMEDOUT: "no answer in time"
        case CURLE_COULDNT_RESOLVE_HOST: "unknown host"
        case CURLE_COULDNT_RESOLVE_PROXY: "the proxy's name does not resolve (check https_proxy and http_proxy)"
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
            "the connection closed before the server answered"
        case CURLE_UNSUPPORTED_PROTOCOL: "the address is not http or https"
        default: "network error (\(message.isEmpty ? String(cString: curl_easy_strerror(code)) : message))"
        }
    }

    /// Why the server's certificate was refused, told precisely: a second handshake that trusts
    /// anything (and sends nothing) reads the certificate to name its expiry or its actual pin.
    private func diagnose(_ code: CURLcode, message: String, verifyResult: Int) -> TLSFailure {
        if code == CURLE_SSL_CACERT_BADFILE { return .caFile(tls.caFile ?? "") }
        if message.contains("subject name") || message.contains("does not match target host") { return .wrongHost(host) }
        let certificate = peerCertificate()
        if code == CURLE_SSL_PINNEDPUBKEYNOTMATCH {
            return .pinMismatch(found: certificate.map { ClientTLS.pin(of: $0.subjectPublicKeyInfo) } ?? "unknown")
        }
        // OpenSSL's verify results: 10 expired, 9 not yet valid.
        let now = Date()
        if let certificate {
            if verifyResult == 10 || certificate.notAfter < now { return .expired(certificate.notAfter) }
            if verifyResult == 9 || certificate.notBefore > now { return .notYetValid(certificate.notBefore) }
        }
        return .untrusted
    }

    /// The server's own certificate, read through a handshake that verifies nothing and ends
    /// before any request is written.
    private func peerCertificate() -> PeerCertificate? {
        guard let pointer = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(pointer) }
        intake_curl_set_string(pointer, CURLOPT_URL, origin + "/")
        intake_curl_set_long(pointer, CURLOPT_NOSIGNAL, 1)
        intake_curl_set_long(pointer, CURLOPT_CONNECT_ONLY, 1)
        intake_curl_set_long(pointer, CURLOPT_CONNECTTIMEOUT_MS, Int(min(connectTimeout, 5) * 1000))
        intake_curl_set_long(pointer, CURLOPT_SSL_VERIFYPEER, 0)
        intake_curl_set_long(pointer, CURLOPT_SSL_VERIFYHOST, 0)
        intake_curl_set_long(pointer, CURLOPT_CERTINFO, 1)
        guard curl_easy_perform(pointer) == CURLE_OK else { return nil }
        var info: UnsafeMutablePointer<curl_certinfo>?
        guard intake_curl_get_certificates(pointer, &info) == CURLE_OK, let info, info.pointee.num_of_certs > 0,
            let first = info.pointee.certinfo?[0]
        else { return nil }
        var entry: UnsafeMutablePointer<curl_slist>? = first
        while let current = entry {
            if let data = current.pointee.data {
                let line = String(cString: data)
                if line.hasPrefix("Cert:") { return PeerCertificate(pem: String(line.dropFirst(5))) }
            }
            entry = current.pointee.next
        }
        return nil
    }
}

/// An easy handle kept between requests (used by one transfer at a time).
private struct Handle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// Set when the awaiting task is cancelled; the transfer stops at its next callback.
final class CancelFlag: Sendable {
    private let flag = Atomic(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// What one transfer's callbacks fill in, on the transfer's own thread.
private final class TransferState {
    let handle: UnsafeMutableRawPointer
    let sink: CurlTransport.Sink
    let cancel: CancelFlag
    var body = Data()
    var headers: [String: String] = [:]
    var file: FileHandle?
    var fileError: String?
    var status: Int?
    /// For an idle limit: how long no byte may move either way (a server that took the request
    /// and never answers); libcurl's low-speed check, an average, lets such a wait run four
    /// times as long.
    var silence: TimeInterval?
    private var moved: (up: curl_off_t, down: curl_off_t) = (0, 0)
    private var lastMove = ContinuousClock.now
    /// Whether the transfer was stopped for silence.
    private(set) var silent = false

    /// Whether the transfer goes on, told how many bytes went up and came down so far.
    func progress(up: curl_off_t, down: curl_off_t) -> Bool {
        if cancel.isSet { return false }
        guard let silence else { return true }
        let now = ContinuousClock.now
        if (up, down) != moved {
            moved = (up, down)
            lastMove = now
            return true
        }
        if now - lastMove > .seconds(silence) {
            silent = true
            return false
        }
        return true
    }

    init(handle: UnsafeMutableRawPointer, sink: CurlTransport.Sink, cancel: CancelFlag) {
        self.handle = handle
        self.sink = sink
        self.cancel = cancel
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if cancel.isSet { return false }
        switch sink {
        case .memory:
            body.append(contentsOf: bytes)
        case .file(let url):
            if file == nil {
                _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
                guard let opened = try? FileHandle(forWritingTo: url) else {
                    fileError = url.path
                    return false
                }
                file = opened
            }
            do {
                try file?.write(contentsOf: Data(bytes))
            } catch {
                fileError = url.path
                return false
            }
        case .stream(let deliver):
            if status == nil {
                var value = 0
                intake_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &value)
                status = value
            }
            guard status == 200 else {
                body.append(contentsOf: bytes)
                return true
            }
            return deliver(bytes)
        }
        return true
    }

    /// A header line; a status line starts the headers afresh (a proxy's CONNECT answer, a 100).
    func header(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    func finish() {
        try? file?.close()
        file = nil
    }
}

private let curlWriteBody: curl_write_callback = { data, size, count, user in
    guard let user else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    return state.receive(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let curlWriteHeader: curl_write_callback = { data, size, count, user in
    guard let user else { return 0 }
    let length = size * count
    Unmanaged<TransferState>.fromOpaque(user).takeUnretainedValue().header(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

private let curlProgress: curl_xferinfo_callback = { user, _, down, _, up in
    guard let user else { return 0 }
    return Unmanaged<TransferState>.fromOpaque(user).takeUnretainedValue().progress(up: up, down: down) ? 0 : 1
}
