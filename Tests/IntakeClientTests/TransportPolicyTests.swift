import Foundation
import IntakeClient
import Testing

/// Plain http goes only to this machine unless the user says the network is trusted; https goes anywhere.
struct TransportPolicyTests {
    @Test(arguments: [
        "http://127.0.0.1:8080", "http://127.8.9.10", "http://localhost:8080", "http://[::1]:8080", "https://intake.example.org",
    ])
    func loopbackAndHTTPSAreAllowed(_ address: String) throws {
        try TransportPolicy.check(URL(string: address)!, insecure: false)
    }

    @Test(arguments: [
        "http://intake.example.org", "http://10.0.0.5:8080", "http://127.0.0.1.example.org", "http://[fe80::1]:8080", "http://0.0.0.0",
    ])
    func plainHTTPElsewhereIsRefusedUnlessInsecure(_ address: String) throws {
        #expect(throws: ClientError.self) { try TransportPolicy.check(URL(string: address)!, insecure: false) }
        do {
            try TransportPolicy.check(URL(string: address)!, insecure: false)
        } catch {
            #expect(error.description.contains("refusing plain http") && error.description.contains("--insecure"))
        }
        try TransportPolicy.check(URL(string: address)!, insecure: true)
    }
}
