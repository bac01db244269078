import ArgumentParser
import Foundation
import IntakeForm
import IntakeStore
import IntakeTerminal

/// Every line a command prints goes through here (it stands in for the standard library's
/// `print` in this module): text from the server or a file — names, reasons, messages — is shown
/// with its control characters escaped, so none can move the cursor, recolour or rewrite the
/// screen of whoever reads it, and a closed pipe ends the command quietly (``Console``).
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { String(describing: $0) }.joined(separator: separator)
    Console.out(TerminalText.shown(text, bidi: Language.bidi, rightToLeft: Language.say.isRightToLeft) + terminator)
}

/// Prints data to keep as it is (a record's JSON): control characters escaped, nothing laid out,
/// so what is copied or saved from it reads back the same.
func printData(_ text: String) {
    Console.out(TerminalText.escaped(text, lines: true) + "\n")
}

/// The language commands speak (`INTAKE_LANGUAGE` or the locale; see ``FormLanguage/preferred(environment:)``),
/// and how right-to-left lines reach this terminal.
enum Language {
    /// Set once, before a command's work starts (`intake fill --language ar` chooses its own).
    nonisolated(unsafe) private(set) static var say = FormLanguage.preferred(environment: ProcessInfo.processInfo.environment)
    static let bidi = BidiMode.from(environment: ProcessInfo.processInfo.environment)
    static let errorBidi = BidiMode.from(environment: ProcessInfo.processInfo.environment, terminal: isatty(STDERR_FILENO) == 1)

    /// Speaks `language` from now on: messages, passphrase prompts, what Ctrl-C says.
    static func use(_ language: FormLanguage) {
        say = language
        SecretPrompt.setCancelledMessage(shown(say(.cancelled)))
    }

    /// What Ctrl-C at a secret prompt says from now on, when something was already changed.
    static func cancelling(says text: FormText) {
        SecretPrompt.setCancelledMessage(shown(say(text)))
    }

    /// `text` laid out for this terminal in the language's direction.
    static func shown(_ text: String) -> String {
        BidiText.render(text, mode: errorBidi, rightToLeft: say.isRightToLeft, width: TerminalSize.columns(STDERR_FILENO))
    }

    /// The passphrase prompts in this language, laid out for the terminal they are asked on.
    static var passphraseWording: PassphraseWording {
        let say = say
        let bidi = errorBidi
        return PassphraseWording(
            unlock: shown(say(.passphrasePrompt)),
            wrong: { left in BidiText.render(say(.wrongPassphrase(triesLeft: left)), mode: bidi, rightToLeft: say.isRightToLeft) },
            choose: shown(say(.choosePassphrase)), new: shown(say(.newPassphrase)), again: shown(say(.typeItAgain)),
            tooShort: shown(say(.passphraseTooShort)), differ: shown(say(.passphrasesDiffer)))
    }
}

/// Whether the command line holds an option `command` does not take: its own checks then stay
/// silent, so the parser's "Unknown option" (with its suggestion) is what the person reads.
enum UnknownOption {
    static func typed(for command: any ParsableCommand.Type) -> Bool {
        let help = command.helpMessage(columns: 1000)
        let known = Set(help.matches(of: /--[a-z0-9][a-z0-9-]*/).map { String($0.output) })
        return CommandLine.arguments.dropFirst().contains { argument in
            guard argument.hasPrefix("--"), argument != "--" else { return false }
            return !known.contains(String(argument.split(separator: "=", maxSplits: 1)[0]))
        }
    }
}
