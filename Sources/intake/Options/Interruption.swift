import Foundation
import IntakeFieldwork
import IntakeTerminal

/// Ctrl-C, a closed terminal or `kill` while a form is open: say that nothing is lost and stop.
///
/// Answers are saved as they are given, so there is nothing to flush; the handler only tells the
/// person how to continue. Signals a parent process left blocked are unblocked, so that Ctrl-C
/// works however `intake` was started.
enum Interruption {
    /// What to say, in the person's language, laid out for the terminal: while the form is open,
    /// and while a finished record is being sent.
    nonisolated(unsafe) static var interrupted: [CChar] = []
    nonisolated(unsafe) static var stoppedSending: [CChar] = []

    static func install() {
        interrupted = Array(("\n" + Language.shown(Language.say(.interrupted)) + "\n").utf8CString)
        stoppedSending = Array(("\n" + Language.shown(Language.say(.interruptedSending)) + "\n").utf8CString)
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            sigaddset(&signals, signal)
            Foundation.signal(signal) { number in
                TerminalModes.restore()
                let message = FormRun.sending.load(ordering: .relaxed) ? Interruption.stoppedSending : Interruption.interrupted
                _ = message.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, strlen($0.baseAddress!)) }
                _exit(128 + number)
            }
        }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
