import Foundation
import Testing

/// `intake export --server https://…` goes through the client's one transport: the pin and the CA
/// file are checked before a byte of the request is written, and a proxy from the environment
/// (`https_proxy`, as field offices have) carries it.
@Suite(.serialized)
struct ExportTransportTests {
    let intake = IntakeProcess()

    @Test func anHTTPSExportRefusesAWrongPinAndAnUnknownAuthorityBeforeSendingAndWorksThroughAProxyWithTheRightPin() throws {
        let tls = try TLSFixtures()
        let cora = try intake.prepareServerWithCoordinator()
        let pin = try ClientTLSPin.of(certificate: tls.certificate)
        let wrongPin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()

        // A listener with the right certificate that logs whether any request byte arrived.
        let log = tls.path("listener.log")
        let (listener, listenerPort) = try tls.listener(certificate: tls.certificate, log: log)
        defer { listener.terminate() }
        let listened = "https://127.0.0.1:\(listenerPort)"
        let wrong = try intake.run(
            ["export", "--out", tls.path("wrong-pin"), "--server", listened, "--token", cora, "--ca-file", tls.ca, "--pin", wrongPin])
        #expect(
            wrong.status != 0 && wrong.stderr.contains("does not match the pinned one") && wrong.stderr.contains(pin), "\(wrong.stderr)")
        let unknown = try intake.run(["export", "--out", tls.path("unknown-ca"), "--server", listened, "--token", cora])
        #expect(unknown.status != 0 && unknown.stderr.contains("not signed by an authority this machine trusts"), "\(unknown.stderr)")
        let seen = TLSFixtures.log(log, connections: 2)
        #expect(!seen.contains("received"), "no request byte reached the server: \(seen)")
        #expect(seen.contains("handshake"), "the client did connect: \(seen)")
        for refused in ["wrong-pin", "unknown-ca"] {
            #expect(!FileManager.default.fileExists(atPath: tls.path(refused) + "/records.csv"), "no export was written for \(refused)")
        }

        // The real server behind a CONNECT proxy on this machine: the export arrives, the proxy carried it.
        let (server, port) = try intake.startServer(arguments: ["--tls-cert", tls.certificate, "--tls-key", tls.key])
        defer { server.terminate() }
        let url = "https://127.0.0.1:\(port)"
        let filled = try intake.run(
            ["fill", "--server", url, "--token", cora, "--ca-file", tls.ca, "--pin", pin], input: Answers.all + [":finish"])
        #expect(filled.stdout.contains("Sent to the server."), "\(filled.stdout)\(filled.stderr)")
        let proxyLog = tls.path("proxy.log")
        let (proxy, proxyPort) = try Self.proxy(log: proxyLog)
        defer { proxy.terminate() }
        var proxied = intake
        proxied.environment["https_proxy"] = "http://127.0.0.1:\(proxyPort)"
        proxied.environment["no_proxy"] = nil
        proxied.environment["NO_PROXY"] = nil
        let folder = tls.path("through-proxy")
        let export = try proxied.run(["export", "--out", folder, "--server", url, "--token", cora, "--ca-file", tls.ca, "--pin", pin])
        #expect(export.status == 0 && export.stdout.contains("Exported 1 record(s)"), "\(export.stdout)\(export.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/records.csv"))
        let tunnels = (try? String(contentsOfFile: proxyLog, encoding: .utf8)) ?? ""
        #expect(tunnels.contains("CONNECT 127.0.0.1:\(port)"), "the export went through the proxy: \(tunnels)")

        // The proxy is not the server: a wrong pin through it is refused all the same.
        let viaProxyWrongPin = try proxied.run(
            ["export", "--out", tls.path("proxy-wrong-pin"), "--server", url, "--token", cora, "--ca-file", tls.ca, "--pin", wrongPin])
        #expect(
            viaProxyWrongPin.status != 0 && viaProxyWrongPin.stderr.contains("does not match the pinned one"), "\(viaProxyWrongPin.stderr)")
        // A proxy that is not there: said plainly, nothing written.
        var deadProxy = intake
        deadProxy.environment["https_proxy"] = "http://127.0.0.1:1"
        let dead = try deadProxy.run(["export", "--out", tls.path("dead-proxy"), "--server", url, "--token", cora, "--ca-file", tls.ca])
        #expect(dead.status != 0 && dead.stderr.contains("cannot reach"), "\(dead.stderr)")
    }

    /// A CONNECT-only HTTP proxy on 127.0.0.1 that logs each tunnel it opens.
    static func proxy(log: String) throws -> (process: Process, port: Int) {
        let script = """
            socket, sys, threading = __import__("socket"), __import__("sys"), __import__("threading")
            log = sys.argv[1]
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen(16)
            print(server.getsockname()[1], flush=True)
            def pipe(source, target):
                try:
                    while True:
                        data = source.recv(65536)
                        if not data:
                            break
                        target.sendall(data)
                except OSError:
                    pass
                finally:
                    for end in (source, target):
                        try:
                            end.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
            def serve(client):
                head = b""
                while b"\\r\\n\\r\\n" not in head:
                    chunk = client.recv(4096)
                    if not chunk:
                        client.close()
                        return
                    head += chunk
                line = head.split(b"\\r\\n")[0].decode()
                with open(log, "a") as out:
                    out.write(line + "\\n")
                method, target = line.split(" ")[:2]
                if method != "CONNECT":
                    client.sendall(b"HTTP/1.1 405 Method Not Allowed\\r\\nContent-Length: 0\\r\\n\\r\\n")
                    client.close()
                    return
                host, port = target.rsplit(":", 1)
                upstream = socket.create_connection((host, int(port)))
                client.sendall(b"HTTP/1.1 200 Connection established\\r\\n\\r\\n")
                threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
                pipe(upstream, client)
            while True:
                connection, _ = server.accept()
                threading.Thread(target=serve, args=(connection,), daemon=True).start()
            """
        return try TLSFixtures.python(script, arguments: [log], what: "the test proxy")
    }
}
