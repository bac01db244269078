import Foundation
import IntakeFieldwork
import IntakeTerminal

/// Ctrl-C, a closed terminal or `kill` while a form is open: say that nothing is lost and stop.
///
/// Answers are saved as they are given, so there is nothing to flush; the handler only tells the
/// person how to continue. Signals a parent process left blocked are unblocked, so that Ctrl-C
/// works however `intake` was started.
enum Interruption {
    static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            sigaddset(&signals, signal)
            Foundation.signal(signal) { number in
                TerminalModes.restore()
                let message =
                    FormRun.sending.load(ordering: .relaxed)
                    ? "\nStopped sending. The record is kept, encrypted, in the queue on this machine; 'intake flush' sends it later.\n"
                    : "\nInterrupted. Every answer given so far is saved; continue with 'intake fill --resume'.\n"
                _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
                _exit(128 + number)
            }
        }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
