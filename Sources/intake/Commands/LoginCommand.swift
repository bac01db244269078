import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a server and save its address and your token for fill, flush and lookup.",
        discussion: "The token is saved in client.json in the data directory, readable by you only.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The server's URL, e.g. http://127.0.0.1:8080.", valueName: "url"))
    var server: String

    @Option(help: "Your username on the server.")
    var username: String

    @Flag(help: "Read the password from the first line of standard input instead of asking.")
    var passwordStdin = false

    @Flag(help: "Allow plain http to a server that is not this machine (the password and token then cross the network unencrypted).")
    var insecure = false

    @Option(help: ArgumentHelp("For https: trust the certificate authorities in this PEM file (saved with the server).", valueName: "file"))
    var caFile: String?

    @Option(
        help: ArgumentHelp(
            "For https: accept only a server whose public key has this hash (repeatable; saved with the server).",
            valueName: "sha256/base64"))
    var pin: [String] = []

    func run() async throws {
        let settings = ClientSettings(
            server: server, token: nil, caFile: caFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
            pins: pin.isEmpty ? nil : pin)
        let url = try settings.checkedURL(insecure: insecure, example: "http://127.0.0.1:8080")
        let password = try PasswordInput.read(fromStdin: passwordStdin, confirm: false)
        let token: String
        do {
            token = try await IntakeClient(baseURL: url, token: nil, tls: settings.tls).signIn(username: username, password: password)
        } catch .signInRefused(let message) {
            throw ValidationError("Could not sign in as \(username): \(message). Nothing was saved; try again.")
        } catch {
            throw ValidationError("Could not sign in: \(error.description).")
        }
        var saved = settings
        saved.token = token
        saved.username = username
        try saved.save(in: storeOptions.directory)
        // From here on, Ctrl-C (at the new store's passphrase prompt, say) leaves the sign-in saved.
        Language.cancelling(says: .cancelledSignedIn)
        print("Signed in to \(server) as \(username); the token is saved for intake fill, flush and lookup.")
        // What waits for this account: said at once, as an app's badges would.
        let signedIn = IntakeClient(baseURL: url, token: token, timeout: 15, tls: settings.tls)
        if let waiting = try? await StatusCommand.inbox(signedIn), !waiting.isEmpty {
            waiting.forEach { print($0) }
        }
        // The questionnaires the server publishes, for filling offline too. The store's table
        // of questionnaires is readable without unlocking it.
        do {
            let report = try await QuestionnairePull(store: try storeOptions.open(), client: signedIn).run()
            QuestionnairePull.lines(report).forEach { print($0) }
        } catch {
            print("The questionnaires could not be pulled now (\(error)); run 'intake questionnaire pull' later.")
        }
    }
}
