import Foundation
import Testing

/// A coordinator enrols a new machine with a one-time code, printed as text and as a QR code
/// (read back with zbarimg, as a phone's camera would); the machine enrols with the link the code
/// holds, pulls the questionnaires and sends a record as its field worker without typing a
/// password; the coordinator sees it in the team's devices and revokes it; the machine's next
/// request is refused, saying so, and what it queued stays on it and can still be exported.
struct EnrolCommandTests {
    @Test func aMachineEnrolsWithTheQRCodesLinkFillsAndIsStoppedByARevocation() throws {
        var office = IntakeProcess()
        let cora = try office.prepareServerWithCoordinator()
        #expect(
            try office.run(
                ["admin", "user", "create", "amina", "--role", "fieldworker", "--team", "clinic", "--password-stdin"],
                input: ["field-worker-1"]
            ).status == 0)
        let (server, port) = try office.startServer()
        defer { server.terminate() }
        let online = ["--server", "http://127.0.0.1:\(port)", "--token", cora]

        let issued = try office.run(["team", "enrol", "clinic", "amina", "--hours", "2"] + online)
        #expect(issued.status == 0, "\(issued.stdout)\(issued.stderr)")
        let lines = issued.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let code = try #require(
            lines.first { $0.hasPrefix("Enrolment code for amina of 'clinic': ") }.map { String($0.suffix(19)) }, "\(issued.stdout)")
        let link = try #require(
            lines.first { $0.contains("intake://enrol?") }.map {
                String($0.drop { $0 != "'" }.dropFirst().prefix { $0 != "'" })
            })
        #expect(link == "intake://enrol?server=http://127.0.0.1:\(port)&code=\(code)", "\(issued.stdout)")
        let qr = lines.drop { !$0.isEmpty }.dropFirst().filter { !$0.isEmpty }
        #expect(try Self.decode(Array(qr)) == link, "the QR code holds the link")
        let codes = try office.run(["team", "codes", "clinic"] + online)
        #expect(
            codes.stdout.contains("\(code.prefix(4))-…") && codes.stdout.contains("amina") && codes.stdout.contains("open")
                && !codes.stdout.contains(code))

        // The new machine: a mistyped code is counted, the link enrols it.
        let field = IntakeProcess()
        let mistyped = try field.run(["enrol", String(code.prefix(5)) + "2222-2222-2222", "--server", "http://127.0.0.1:\(port)"])
        #expect(mistyped.status != 0 && mistyped.stderr.contains("not right; check it with your coordinator"), "\(mistyped.stderr)")
        let enrolled = try field.run(["enrol", link, "--name", "tablet-7"])
        #expect(enrolled.status == 0, "\(enrolled.stdout)\(enrolled.stderr)")
        #expect(
            enrolled.stdout.contains("for amina of 'clinic'") && enrolled.stdout.contains("Pulled refugee-health version"),
            "\(enrolled.stdout)")
        #expect(enrolled.stdout.contains("Ready: 'intake fill'"))
        let filled = try field.run(["fill"], input: Answers.all + [":finish"])
        #expect(filled.status == 0 && filled.stdout.contains("Sent to the server."), "\(filled.stdout)\(filled.stderr)")
        // A code enrols one machine.
        let again = try IntakeProcess().run(["enrol", link])
        #expect(again.status != 0 && again.stderr.contains("was used already"), "\(again.stderr)")

        // The coordinator's list, and the revocation.
        let devices = try office.run(["team", "devices", "clinic"] + online)
        let row = try #require(
            devices.stdout.split(separator: "\n").first { $0.contains("tablet-7") }.map(String.init), "\(devices.stdout)")
        #expect(row.contains("amina") && row.contains("0.1.0") && row.contains("active"), "\(row)")
        let number = try #require(row.split(separator: " ").first.map(String.init))
        #expect(!row.contains(" - "), "last seen, last upload and the queue are known: \(row)")
        let revoked = try office.run(["team", "revoke-device", "clinic", number] + online)
        #expect(revoked.status == 0 && revoked.stdout.contains("is revoked"), "\(revoked.stdout)\(revoked.stderr)")

        // The machine's next record waits in its queue; flushing is refused, saying why.
        let offline = try field.run(["fill"], input: Answers.all + [":finish"])
        #expect(offline.stdout.contains("revoked by cora"), "\(offline.stdout)\(offline.stderr)")
        let flush = try field.run(["flush"])
        #expect(flush.status != 0 && (flush.stdout + flush.stderr).contains("revoked by cora"), "\(flush.stdout)\(flush.stderr)")
        // Watching would wait for nothing: a revoked machine needs a person, so it stops at once.
        let watching = try field.run(["flush", "--watch"])
        #expect(
            watching.status != 0 && watching.stderr.contains("Stopped watching") && watching.stderr.contains("revoked by cora"),
            "\(watching.stdout)\(watching.stderr)")
        let backup = field.dataDirectory.appendingPathComponent("backup.intake").path
        let exported = try field.run(["queue", "export", backup, "--passphrase-stdin"], input: ["carried-on-usb"])
        #expect(exported.status == 0 && exported.stdout.contains("1"), "\(exported.stdout)\(exported.stderr)")
    }

    /// Reads back half-block lines as `intake team enrol` prints them (two rows of modules to a
    /// line) into a grey image, and decodes it with zbarimg.
    static func decode(_ lines: [String]) throws -> String {
        let scale = 4
        let rows = lines.flatMap { line -> [[Bool]] in
            let characters = Array(line)
            return [characters.map { $0 == "█" || $0 == "▀" }, characters.map { $0 == "█" || $0 == "▄" }]
        }
        let width = (rows.map(\.count).max() ?? 0) * scale, height = rows.count * scale
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (y, row) in rows.enumerated() {
            for (x, dark) in row.enumerated() where dark {
                for dy in 0..<scale { for dx in 0..<scale { pixels[(y * scale + dy) * width + x * scale + dx] = 0 } }
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("intake-qr-\(UUID().uuidString).pgm")
        try (Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zbarimg", "--raw", "-q", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "zbarimg found no code (install zbar-tools; scripts/test does)")
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }
}

/// Over https, the code carries the pin of the server's key, read by the coordinator's trusted
/// connection (and computed here independently with openssl): the machine saves it and reaches
/// only that server afterwards.
struct EnrolOverTLSTests {
    @Test func theCodeCarriesTheServersPinAndTheMachineKeepsIt() throws {
        let tls = try TLSFixtures()
        var office = IntakeProcess()
        let cora = try office.prepareServerWithCoordinator()
        _ = try office.run(
            ["admin", "user", "create", "amina", "--role", "fieldworker", "--team", "clinic", "--password-stdin"], input: ["field-worker-1"]
        )
        let (server, port) = try office.startServer(arguments: ["--tls-cert", tls.certificate, "--tls-key", tls.key])
        defer { server.terminate() }
        let url = "https://127.0.0.1:\(port)"
        let pin = try ClientTLSPin.of(certificate: tls.certificate)
        let issued = try office.run(["team", "enrol", "clinic", "amina", "--no-qr", "--server", url, "--token", cora, "--ca-file", tls.ca])
        #expect(issued.status == 0 && issued.stdout.contains("--pin \(pin)"), "\(issued.stdout)\(issued.stderr)")
        let link = try #require(
            issued.stdout.split(separator: "\n").first { $0.contains("intake://enrol?") }.map {
                String($0.drop { $0 != "'" }.dropFirst().prefix { $0 != "'" })
            })
        #expect(link.contains("pin=sha256/"), "\(link)")

        let field = IntakeProcess()
        let enrolled = try field.run(["enrol", link, "--ca-file", tls.ca])
        #expect(enrolled.status == 0 && enrolled.stdout.contains("enrolled as device"), "\(enrolled.stdout)\(enrolled.stderr)")
        let saved = try String(contentsOf: field.dataDirectory.appendingPathComponent("client.json"), encoding: .utf8)
        #expect(saved.contains(pin.replacingOccurrences(of: "/", with: "\\/")) || saved.contains(pin), "\(saved)")
        let sent = try field.run(["fill"], input: Answers.all + [":finish"])
        #expect(sent.status == 0 && sent.stdout.contains("Sent to the server."), "\(sent.stdout)\(sent.stderr)")

        // A link whose pin is not the server's key: refused before anything is sent.
        // (The pin is percent-encoded in the link, so it is replaced as a query item, not as text.)
        var components = try #require(URLComponents(string: link))
        components.queryItems = components.queryItems?.map { item in
            item.name == "pin" ? URLQueryItem(name: "pin", value: "sha256/" + String(repeating: "A", count: 43) + "=") : item
        }
        let forged = try #require(components.string)
        #expect(forged != link)
        let refused = try IntakeProcess().run(["enrol", forged, "--ca-file", tls.ca])
        #expect(refused.status != 0 && refused.stderr.contains("does not match the pinned one"), "\(refused.stderr)")
    }
}
