import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

struct EnrolCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrol",
        abstract: "Set this machine up with a one-time code from a coordinator ('intake team enrol'): no password typed.",
        discussion: """
            Takes the code and the server (--server), or the intake://enrol link the coordinator's QR code holds. The \\
            server makes a token for this machine only (it works with this machine's device id and no other), \\
            which is saved with the server's address and pin in client.json in the data directory; then the \\
            questionnaires are pulled and 'intake fill' is ready. A coordinator can revoke the machine at any time: \\
            records queued here then stay sealed on it and can still be exported with 'intake queue export'.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The code (ABCD-EFGH-JKLM-NPQR) or the whole intake://enrol link.", valueName: "code-or-link"))
    var code: String

    @Option(help: ArgumentHelp("The server's URL, when a bare code is given.", valueName: "url"))
    var server: String?

    @Option(
        help: ArgumentHelp(
            "For https: accept only a server whose public key has this hash (repeatable; saved with the server).",
            valueName: "sha256/base64"))
    var pin: [String] = []

    @Option(help: ArgumentHelp("For https: trust the certificate authorities in this PEM file (saved with the server).", valueName: "file"))
    var caFile: String?

    @Flag(help: "Allow plain http to a server that is not this machine (the token then crosses the network unencrypted).")
    var insecure = false

    @Option(help: "What the coordinator's device list calls this machine (default: its host name).")
    var name: String?

    func run() async throws {
        let link: EnrolmentLink
        if let parsed = EnrolmentLink(code) {
            link = EnrolmentLink(server: server ?? parsed.server, code: parsed.code, pins: pin.isEmpty ? parsed.pins : pin)
        } else {
            guard let server else {
                throw ValidationError("Give the server with --server URL, or the whole intake://enrol link the coordinator printed.")
            }
            link = EnrolmentLink(server: server, code: code, pins: pin)
        }
        let settings = ClientSettings(
            server: link.server, token: nil, caFile: caFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
            pins: link.pins.isEmpty ? nil : link.pins)
        let url = try settings.checkedURL(insecure: insecure, example: "https://intake.example.org")
        let directory = storeOptions.directory
        let client = IntakeClient(
            baseURL: url, token: nil, deviceId: DeviceId.load(in: directory), tls: settings.tls,
            intakeVersion: IntakeCommand.configuration.version)
        let enrolled: Enrolled
        do {
            enrolled = try await client.enrol(
                code: link.code, name: name ?? ProcessInfo.processInfo.hostName, intakeVersion: IntakeCommand.configuration.version)
        } catch {
            throw ValidationError("This machine was not enrolled: \(error.description). Nothing was saved.")
        }
        let replaced = ClientSettings.load(from: directory)
        var saved = settings
        saved.token = enrolled.token
        saved.username = enrolled.user.username
        try saved.save(in: directory)
        // From here on, Ctrl-C (at the new store's passphrase prompt, say) leaves the sign-in saved.
        Language.cancelling(says: .cancelledSignedIn)
        if let replaced, replaced.token != nil {
            print("(The sign-in saved before, for \(replaced.username ?? "an account") on \(replaced.server), is replaced.)")
        }
        print(
            "This machine is enrolled as device \(enrolled.device.id) for \(enrolled.user.username) of '\(enrolled.user.team ?? "?")' "
                + "on \(link.server); its token is saved for intake fill, flush and lookup.")
        do {
            let report = try await QuestionnairePull(store: try storeOptions.open(), client: client.with(token: enrolled.token)).run()
            QuestionnairePull.lines(report).forEach { print($0) }
            print("Ready: 'intake fill' fills the team's questionnaire.")
        } catch {
            print("The questionnaires could not be pulled now (\(error)); run 'intake questionnaire pull' later.")
        }
    }
}
