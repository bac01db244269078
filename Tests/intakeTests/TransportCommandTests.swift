import Foundation
import Testing

/// The command refuses plain http to a server that is not this machine before sending anything,
/// and says how to go on.
struct TransportCommandTests {
    let intake = IntakeProcess()

    @Test func plainHTTPToAnotherMachineIsRefusedBeforeAnythingIsSent() throws {
        for arguments in [
            ["lookup", "--family-name", "Haddad", "--server", "http://intake.example.invalid:8080", "--token", "t"],
            ["patient", "find", "--name", "haddad", "--server", "http://intake.example.invalid", "--token", "t"],
        ] {
            let result = try intake.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(
                result.stderr.contains("refusing plain http to intake.example.invalid") && result.stderr.contains("--insecure"),
                "\(result.stderr)")
            #expect(!result.stderr.contains("cannot reach"), "nothing was sent: no connection was tried")
        }
        let login = try intake.run(
            ["login", "--server", "http://intake.example.invalid", "--username", "ana", "--password-stdin"], input: ["pw"])
        #expect(login.status != 0 && login.stderr.contains("refusing plain http"), "\(login.stderr)")
    }
}
