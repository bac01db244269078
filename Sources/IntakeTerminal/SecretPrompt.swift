import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a secret (a passphrase, a password, a passcode) on the terminal without echo.
///
/// Unlike libc's `getpass`, which turns signals off while it reads, Ctrl-C works: the terminal is
/// put back as it was and the process ends with status 130, having changed nothing. Ctrl-D (the
/// end of input) answers nil, as does the lack of any terminal.
public enum SecretPrompt {
    /// What Ctrl-C at a secret prompt says before the process ends (in the person's language).
    public static func setCancelledMessage(_ text: String) {
        SignalRestore.cancelled = Array(("\n" + text + "\n").utf8)
    }

    /// Shows `prompt` and reads one line without echoing it.
    public static func read(_ prompt: String) -> String? {
        guard let terminal = TerminalDevice.open() else { return nil }
        defer { terminal.close() }
        var saved = termios()
        guard tcgetattr(terminal.input, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        // Ctrl-C, Ctrl-\ and a closed terminal end the process: put the terminal back first.
        SignalRestore.arm(fd: terminal.input, attributes: saved)
        defer { SignalRestore.disarm() }
        // Echo off before the prompt shows, and what was typed ahead kept: a person who types as
        // soon as the prompt appears loses nothing.
        guard tcsetattr(terminal.input, TCSADRAIN, &quiet) == 0 else { return nil }
        defer {
            var back = saved
            tcsetattr(terminal.input, TCSADRAIN, &back)
            terminal.write("\n")
        }
        terminal.write(prompt)
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(terminal.input, &byte, 1)
            if count < 0, errno == EINTR { continue }
            // Ctrl-D: the end of input, whatever was typed before it.
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            bytes.append(byte)
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The terminal a prompt talks to: `/dev/tty` (so a prompt works while standard input is a pipe),
/// else standard input and standard error when they are a terminal.
struct TerminalDevice {
    let input: Int32
    let output: Int32
    let owned: Bool

    static func open() -> TerminalDevice? {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC)
        if fd >= 0 { return TerminalDevice(input: fd, output: fd, owned: true) }
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        return TerminalDevice(input: STDIN_FILENO, output: STDERR_FILENO, owned: false)
    }

    func write(_ text: String) { Console.write(text, to: output) }

    func close() {
        if owned { _ = Glibc.close(input) }
    }
}

/// Puts the terminal's settings back when a signal ends the process while a prompt changed them.
enum SignalRestore {
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var attributes = termios()
    nonisolated(unsafe) static var previous: [Int32: sigaction] = [:]
    static let signals = [SIGINT, SIGQUIT, SIGTERM, SIGHUP]
    nonisolated(unsafe) static var cancelled: [UInt8] = Array("\nCancelled; nothing was changed.\n".utf8)

    static func arm(fd: Int32, attributes: termios) {
        Self.fd = fd
        Self.attributes = attributes
        _ = cancelled.count
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if SignalRestore.fd >= 0 { tcsetattr(SignalRestore.fd, TCSANOW, &SignalRestore.attributes) }
                _ = SignalRestore.cancelled.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
                _exit(128 + number)
            }
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous[signal] = old
        }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in signals { sigaddset(&unblock, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    static func disarm() {
        for (signal, old) in previous {
            var old = old
            sigaction(signal, &old, nil)
        }
        previous = [:]
        fd = -1
    }
}
