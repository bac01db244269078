import Foundation
import Testing

/// A lost laptop must not give away its drafts: a new store is protected by a passphrase unless
/// the machine is explicitly a shared kiosk.
struct KeyProtectionCommandTests {
    @Test func withoutAPassphraseOrTheKioskOptOutNoKeyIsMadeAndNothingIsLost() throws {
        var intake = IntakeProcess()
        intake.environment = ["INTAKE_KIOSK": nil, "INTAKE_PASSPHRASE": nil]
        let fill = try intake.run(["fill"], input: Answers.all + [":finish"])
        #expect(fill.status != 0)
        #expect(fill.stderr.contains("no passphrase was given"), "\(fill.stderr)")
        #expect(fill.stderr.contains("INTAKE_KIOSK=1"))
        #expect(!FileManager.default.fileExists(atPath: intake.dataDirectory.appendingPathComponent("device.key").path))
        let status = try intake.run(["key", "status"])
        #expect(status.stdout.contains("No key yet"))
    }

    @Test func aPassphraseProtectsANewStoreAndTheKioskOptOutUsesAKeyFile() throws {
        var protected = IntakeProcess()
        protected.environment = ["INTAKE_KIOSK": nil, "INTAKE_PASSPHRASE": "a long passphrase"]
        #expect(try protected.run(["fill"], input: Answers.all + [":finish"]).status == 0)
        #expect(try protected.run(["key", "status"]).stdout.contains("Protected by a passphrase"))
        #expect(!FileManager.default.fileExists(atPath: protected.dataDirectory.appendingPathComponent("device.key").path))
        protected.environment["INTAKE_PASSPHRASE"] = .some(nil)
        let locked = try protected.run(["fill"], input: Answers.all + [":finish"])
        #expect(locked.status != 0 && locked.stderr.contains("protected by a passphrase"))

        let kiosk = IntakeProcess()  // INTAKE_KIOSK=1 by default in tests
        #expect(try kiosk.run(["fill"], input: Answers.all + [":finish"]).status == 0)
        #expect(try kiosk.run(["key", "status"]).stdout.contains("Protected by the device key file"))
    }
}
