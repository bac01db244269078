import Foundation
import Testing

/// A third language, French, as a field worker sees it in a real pseudo-terminal: a questionnaire
/// written in French speaks French whole (no `--language` needed), answers are typed the French
/// way (`oui`, `37,5`, `aujourd'hui`, `féminin`), and a wrong one is explained in French.
@Suite(.serialized)
struct FrenchScreenTests {
    static let questionnaire = IntakeProcess.repositoryRoot.appendingPathComponent("Tests/Questionnaires/visite-fr").path

    @Test func aQuestionnaireWrittenInFrenchSpeaksFrenchWhole() throws {
        let intake = IntakeProcess()
        var environment = TerminalCommandTests.kiosk(intake)
        environment["COLUMNS"] = "40"
        let terminal = try PseudoTerminal(arguments: ["fill", "--questionnaire", Self.questionnaire], environment: environment)
        #expect(terminal.prompt(1), "\(terminal.text)")
        #expect(
            terminal.text.contains("── Informations sur le patient ──") && !terminal.text.contains("Patient information"),
            "\(terminal.text)")
        for (number, typed) in [(2, "Aïcha"), (3, "Diallo"), (4, "1990-05-01"), (5, "féminin"), (6, "")] {
            terminal.type(typed + "\r")
            #expect(terminal.prompt(number), "\(terminal.text)")
        }
        #expect(terminal.text.contains("nombre entier de 1 à 30"), "the hint, in French: \(terminal.text)")
        terminal.type("deux\r")
        #expect(terminal.read { $0.contains("Veuillez saisir un nombre entier") }, "\(terminal.text)")
        for (number, typed) in [(8, "4"), (9, "oui"), (10, "37,5"), (11, "aujourd'hui")] {
            terminal.type(typed + "\r")
            #expect(terminal.prompt(number), "\(terminal.text)")
        }
        terminal.type(":finish\r")
        #expect(terminal.wait() == 0, "\(terminal.text)")
        #expect(terminal.text.contains("est terminée (4 réponses)"), "\(terminal.text)")
        // The record holds what was typed, the French way.
        let queued = try intake.run(["queue", "list"])
        #expect(queued.status == 0 && queued.stdout.contains("1"), "\(queued.stdout)\(queued.stderr)")
    }
}
