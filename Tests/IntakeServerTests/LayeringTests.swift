import Foundation
import IntakeServerTestSupport
import Testing

/// Controllers speak HTTP and go through the services: none calls the store itself, so every
/// domain rule and audit event a service holds applies to every route.
struct LayeringTests {
    @Test func noControllerCallsTheStore() throws {
        let folder = TestServer.repositoryRoot.appendingPathComponent("Sources/IntakeServer/Controllers")
        var offenders: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("services.store") {
                offenders.append("\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count > 10, "the controllers were read")
    }
}
