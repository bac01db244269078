import Foundation
import Testing

/// Certificates for TLS tests, made with the openssl command in a temporary folder: a CA, a
/// server certificate it signed for 127.0.0.1, one it signed that has expired, and an unrelated
/// CA (that this machine does not trust).
struct TLSFixtures {
    let folder: URL
    var ca: String { path("ca.pem") }
    var otherCA: String { path("other-ca.pem") }
    var certificate: String { path("server.pem") }
    var key: String { path("server.key") }
    var expired: String { path("expired.pem") }
    var otherKey: String { path("other.key") }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(
            to: folder.appendingPathComponent("ext.cnf"), atomically: true, encoding: .utf8)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(["req", "-x509"] + curve + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=Intake Test CA"])
        try openssl(
            ["req", "-x509"] + curve + ["-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "30", "-subj", "/CN=Somebody Else"])
        try openssl(["req"] + curve + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"])
        try openssl(["req"] + curve + ["-keyout", "other.key", "-out", "other.csr", "-subj", "/CN=other"])
        for (name, days) in [("server.pem", "30"), ("expired.pem", "-1")] {
            try openssl([
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", name, "-days", days,
                "-extfile", "ext.cnf",
            ])
        }
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.first ?? "") failed (is openssl installed?): \(text)"])
        }
    }

    /// The listener's log once it holds a line for each of `connections` (it writes one as each
    /// ends), or as it is after `seconds`.
    static func log(_ log: String, connections: Int, seconds: Double = 60) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        while text.split(separator: "\n").count < connections, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
        return text
    }

    /// A TLS server that answers nothing and writes to `log` whether any request bytes arrived
    /// after a handshake: it shows that a refused server was sent nothing.
    func listener(certificate: String, log: String) throws -> (process: Process, port: Int) {
        let script = """
            socket, ssl, sys = __import__("socket"), __import__("ssl"), __import__("sys")
            cert, key, log = sys.argv[1], sys.argv[2], sys.argv[3]
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen(8)
            print(server.getsockname()[1], flush=True)
            while True:
                connection, _ = server.accept()
                connection.settimeout(5)
                try:
                    secure = context.wrap_socket(connection, server_side=True)
                    data = secure.recv(65536)
                    with open(log, "a") as out:
                        out.write("received %d bytes\\n" % len(data) if data else "handshake, then nothing\\n")
                except Exception as error:
                    with open(log, "a") as out:
                        out.write("no handshake: %s\\n" % type(error).__name__)
                finally:
                    connection.close()
            """
        return try Self.python(script, arguments: [certificate, key, log], what: "the python TLS listener")
    }

    /// Starts a python script that prints the port it listens on as its first line.
    static func python(_ script: String, arguments: [String], what: String) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = output.fileHandleForReading.availableData
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what) did not start"])
        }
        return (process, port)
    }
}
