import Foundation
import IntakeCore
import Testing

/// `intake serve --tls-cert --tls-key` and the client's `--ca-file` and `--pin`: the right
/// server is reached; a wrong pin, an expired certificate or an unknown authority fail with a
/// message that says which, and send nothing.
@Suite(.serialized)
struct TLSCommandTests {
    let intake = IntakeProcess()

    @Test func theRightServerIsReachedAndAWrongPinAnExpiredCertificateOrAnUnknownAuthorityAreRefusedBeforeSending() throws {
        let tls = try TLSFixtures()
        let cora = try intake.prepareServerWithCoordinator()
        // A key that is not the certificate's, a missing file: the server says so and does not start.
        let mismatched = try intake.run(["serve", "--port", "0", "--tls-cert", tls.certificate, "--tls-key", tls.otherKey])
        #expect(mismatched.status != 0 && mismatched.stderr.contains("does not belong to the certificate"), "\(mismatched.stderr)")
        let missing = try intake.run(["serve", "--port", "0", "--tls-cert", tls.path("nope.pem"), "--tls-key", tls.key])
        #expect(missing.status != 0 && missing.stderr.contains("cannot read the TLS certificate"), "\(missing.stderr)")
        let stale = try intake.run(["serve", "--port", "0", "--tls-cert", tls.expired, "--tls-key", tls.key])
        #expect(stale.status != 0 && stale.stderr.contains("has expired"), "\(stale.stderr)")

        let (server, port) = try intake.startServer(arguments: ["--tls-cert", tls.certificate, "--tls-key", tls.key])
        defer { server.terminate() }
        let url = "https://127.0.0.1:\(port)"
        let pin = try ClientTLSPin.of(certificate: tls.certificate)
        let record = UUID().uuidString
        // Reached: the server answers (the record does not exist).
        for extra in [["--ca-file", tls.ca], ["--ca-file", tls.ca, "--pin", pin]] {
            let reached = try intake.run(["history", record, "--server", url, "--token", cora] + extra)
            #expect(reached.status != 0 && reached.stderr.contains("not found"), "\(extra): \(reached.stderr)")
        }
        // A record sent over TLS with the pin is stored.
        let filled = try intake.run(
            ["fill", "--server", url, "--token", cora, "--ca-file", tls.ca, "--pin", pin], input: Answers.all + [":finish"])
        #expect(filled.stdout.contains("Sent to the server."), "\(filled.stdout)\(filled.stderr)")
        #expect(try intake.serverRevisionsById().count == 1)

        // A wrong pin: refused, saying so, and the record stays queued here.
        let wrongPin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let refused = try intake.run(
            ["fill", "--server", url, "--token", cora, "--ca-file", tls.ca, "--pin", wrongPin], input: Answers.all + [":finish"])
        #expect(
            refused.stdout.contains("Saved offline") && refused.stdout.contains("does not match the pinned one"),
            "kept here, saying why: \(refused.stdout)")
        let flush = try intake.run(["flush", "--server", url, "--token", cora, "--ca-file", tls.ca, "--pin", wrongPin])
        #expect(
            flush.status != 0 && (flush.stdout + flush.stderr).contains("does not match the pinned one")
                && (flush.stdout + flush.stderr).contains(pin), "\(flush.stdout)\(flush.stderr)")
        #expect(try intake.serverRevisionsById().count == 1, "nothing was sent")
        // No --ca-file: the test authority is not one this machine trusts.
        let untrusted = try intake.run(["history", record, "--server", url, "--token", cora])
        #expect(untrusted.status != 0 && untrusted.stderr.contains("not signed by an authority this machine trusts"), "\(untrusted.stderr)")
        let otherAuthority = try intake.run(["history", record, "--server", url, "--token", cora, "--ca-file", tls.otherCA])
        #expect(otherAuthority.stderr.contains("not signed by an authority this machine trusts"), "\(otherAuthority.stderr)")
        let badPin = try intake.run(["history", record, "--server", url, "--token", cora, "--pin", "sha256/short"])
        #expect(badPin.status != 0 && badPin.stderr.contains("is not a pin"), "\(badPin.stderr)")
        let badCA = try intake.run(["history", record, "--server", url, "--token", cora, "--ca-file", tls.key])
        #expect(badCA.status != 0 && badCA.stderr.contains("cannot read the CA file"), "\(badCA.stderr)")
        // Plain http to this TLS port: no answer a client could mistake for the server's.
        #expect(try intake.run(["history", record, "--server", "http://127.0.0.1:\(port)", "--token", cora]).status != 0)
    }

    @Test func anExpiredCertificateIsNamedAndNothingIsSent() throws {
        let tls = try TLSFixtures()
        let log = tls.path("listener.log")
        let (listener, port) = try tls.listener(certificate: tls.expired, log: log)
        defer { listener.terminate() }
        let result = try intake.run([
            "history", UUID().uuidString, "--server", "https://127.0.0.1:\(port)", "--token", "secret-token", "--ca-file", tls.ca,
        ])
        #expect(
            result.status != 0 && result.stderr.contains("certificate expired on") && result.stderr.contains("nothing was sent"),
            "\(result.stderr)")
        let seen = TLSFixtures.log(log, connections: 1)
        #expect(!seen.contains("received"), "the server got no request: \(seen)")
        #expect(seen.contains("handshake") || seen.contains("no handshake"), "the client did connect: \(seen)")
    }
}

/// The pin of a certificate file, computed here with openssl (independently of the client's code).
enum ClientTLSPin {
    static func of(certificate: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "openssl x509 -in \"$1\" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64", "sh",
            certificate,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        return "sha256/"
            + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
    }
}
