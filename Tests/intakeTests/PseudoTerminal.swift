import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `intake` binary run in a real pseudo-terminal, as in a terminal window: its own session
/// with the terminal as its controlling terminal, so `/dev/tty`, raw mode and Ctrl-C (the line
/// discipline sending SIGINT) work as they do for a person.
final class PseudoTerminal {
    let master: Int32
    let pid: pid_t
    private(set) var output = ""
    private var status: Int32?

    /// The marker the line editor writes each time it starts reading a line (bracketed paste on).
    static let promptMarker = "\u{1B}[?2004h"

    init(arguments: [String], environment: [String: String], columns: Int = 100) throws {
        master = LibC.posix_openpt(O_RDWR | O_NOCTTY)
        var name = [CChar](repeating: 0, count: 128)
        guard master >= 0, LibC.grantpt(master) == 0, LibC.unlockpt(master) == 0, LibC.ptsname_r(master, &name, name.count) == 0 else {
            throw POSIXError(.ENXIO)
        }
        let slave = String(cString: name)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (glibc runs it first): the terminal becomes the controlling one.
        posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        posix_spawn_file_actions_addclose(&actions, master)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let setsid: Int16 = 0x80  // POSIX_SPAWN_SETSID
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | setsid)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGPIPE, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let argv = ([IntakeProcess.binary.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, IntakeProcess.binary.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        pid = child
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = wait(seconds: 5)
        }
        close(master)
    }

    /// Sends keys as typed: text, `\r` for Enter, `\u{1B}[D` for the left arrow, `\u{03}` for Ctrl-C.
    func type(_ keys: String) {
        var bytes = Array(keys.utf8)
        _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads what the program wrote until `done` holds for all of it, or `seconds` pass; whether it held.
    @discardableResult
    func read(seconds: Double = 20, until done: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !done(output) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(min(left, 0.2) * 1000)) > 0 else {
                if reap() != nil, !drain() { return done(output) }
                continue
            }
            if !drain() { return done(output) }
        }
        return true
    }

    /// Waits for the `count`-th prompt of the line editor.
    @discardableResult
    func prompt(_ count: Int, seconds: Double = 20) -> Bool {
        read(seconds: seconds) { $0.components(separatedBy: Self.promptMarker).count - 1 >= count }
    }

    var prompts: Int { output.components(separatedBy: Self.promptMarker).count - 1 }

    /// Reads what is there; false at the end (the program closed the terminal).
    private func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        output += String(decoding: buffer.prefix(count), as: UTF8.self)
        return true
    }

    private func reap() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let signal = raw & 0x7F
        status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        return status
    }

    /// The exit status (128 + the signal for a killed process), or nil if it is still running after `seconds`.
    func wait(seconds: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let status = reap() {
                // What it wrote last, before the terminal closed.
                var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                while poll(&descriptor, 1, 100) > 0, drain() {}
                return status
            }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 50) > 0 { _ = drain() }
        }
        return reap()
    }

    /// The screen's text without escape sequences and carriage returns.
    var text: String {
        output.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z~]", with: "", options: .regularExpression).replacingOccurrences(
            of: "\r", with: "")
    }
}

/// The keyrings a command starts with (keyrings(7)), which decide where the kernel key agent
/// keeps the unlocked key and where the next command looks for it. A spawned child inherits them
/// from the thread that spawns it: `POSIX_SPAWN_SETSID` (a new process session, as a terminal
/// window's shell has) does not give it a session keyring of its own, nor take one away.
enum SessionKeyring {
    /// Runs `body` (which spawns commands) on a thread of its own whose session keyring is a new
    /// one, revoked: what every window of a tmux or screen has once the login that started it has
    /// ended, since pam_keyinit's `revoke` (Debian's login, su -l and runuser -l; Fedora's sshd)
    /// revokes that login's session keyring then, and the terminal multiplexer runs on with it.
    /// The commands keep it; the thread, and with it the change, ends with `body`, so the test
    /// process's own keyrings are left as they were.
    static func revoked<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let thread = Thread {
            outcome.result = Result<T, any Error> {
                // keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL): a new anonymous session keyring, this
                // thread's; keyctl(KEYCTL_REVOKE, KEY_SPEC_SESSION_KEYRING) revokes it.
                guard keyctl(1, 0) > 0, keyctl(3, -3) == 0 else {
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOSYS)
                }
                return try body()
            }
            outcome.done.signal()
        }
        thread.start()
        outcome.done.wait()
        return try outcome.result!.get()
    }

    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)
    }

    /// keyctl(2) with one argument (and zero for the next), through syscall(2).
    private static func keyctl(_ operation: Int, _ argument: Int) -> Int {
        #if arch(x86_64)
            let number = 250
        #elseif arch(arm64)
            let number = 219
        #else
            #error("the keyctl system call's number on this architecture")
        #endif
        return LibC.syscall(number, operation, argument, 0)
    }
}

/// The C library's pseudo-terminal functions, which the Glibc module does not export.
enum LibC {
    nonisolated(unsafe) static let handle = dlopen(nil, RTLD_NOW)
    static func function<T>(_ name: String, as type: T.Type) -> T { unsafeBitCast(dlsym(handle, name)!, to: type) }
    static let posix_openpt = function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
    static let grantpt = function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
    static let unlockpt = function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
    static let ptsname_r = function("ptsname_r", as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self)
    /// syscall(2) with three arguments after the number (variadic in C, so not imported; on x86-64
    /// and arm64 Linux a variadic function takes integer arguments as a fixed one does).
    static let syscall = function("syscall", as: (@convention(c) (Int, Int, Int, Int) -> Int).self)
}
