import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `intake fill --send-in-background`: a detached `intake flush --watch` that keeps trying while
/// records wait and ends when the queue is empty; at most one per data directory
/// (``FlushWatchLock``). Its output goes to `flush-watch.log` in the data directory.
enum BackgroundFlush {
    /// glibc's POSIX_SPAWN_SETSID, which Swift does not import.
    static let setsid: Int16 = 0x80

    /// Starts it; false when it could not be started (the record stays queued either way).
    static func start(dataDirectory: URL, server: String?, token: String?, transport: [String]) -> Bool {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return false }
        let log = dataDirectory.appendingPathComponent("flush-watch.log").path
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process: a pipe or socket left open would keep whoever waits for
        // this process's end (a shell, a script) waiting for the watcher's too.
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for descriptor in open where descriptor > 2 && fcntl(descriptor, F_GETFD) >= 0 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        // Its own session: closing the terminal or Ctrl-C in it does not stop it.
        posix_spawnattr_setflags(&attributes, Self.setsid)
        var environment = ProcessInfo.processInfo.environment
        environment["INTAKE_DATA_DIR"] = dataDirectory.path
        // The token goes by the environment, never the command line others can read.
        if let server { environment["INTAKE_SERVER"] = server }
        if let token { environment["INTAKE_TOKEN"] = token }
        let arguments = [executable, "flush", "--watch"] + transport
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        return posix_spawn(&pid, executable, &actions, &attributes, argv, envp) == 0
    }
}

/// One `intake flush --watch` per data directory at a time: an advisory lock on
/// `flush-watch.lock`, held for the process's life and released by the system when it ends.
enum FlushWatchLock {
    /// Takes the lock; false when another process holds it.
    static func take(in directory: URL) -> Bool {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(directory.appendingPathComponent("flush-watch.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return true }  // no lock to be had: do not stand in the way
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0  // kept open: held until exit
    }
}
