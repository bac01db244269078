import Foundation

/// Runs a program to its end and reports its wall time and peak resident memory, so two
/// programs are measured the same way.
///
/// The peak is the kernel's high-water mark of the child's own memory (VmHWM in
/// /proc/PID/status), read every few milliseconds until it exits. (wait4's ru_maxrss would count
/// this process's memory too: Linux carries it across fork and exec.)
struct MeasuredProcess {
    var seconds: Double
    var peakBytes: Int
    var status: Int32

    /// `executable` with `arguments`; standard output goes to `output` (created or emptied).
    static func run(_ executable: String, _ arguments: [String], output: URL) throws -> MeasuredProcess {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw CocoaError(
                .executableNotLoadable,
                userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable) (error \(spawned)); is it installed?"])
        }
        var status: Int32 = 0
        var peak = 0
        while true {
            peak = max(peak, highWaterMark(pid))
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1, errno != EINTR {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "lost track of \(executable)"])
            }
            usleep(2_000)
        }
        let elapsed = ContinuousClock.now - start
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return MeasuredProcess(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            peakBytes: peak, status: exitStatus)
    }

    /// VmHWM of a running process in bytes, or 0 once it has exited.
    private static func highWaterMark(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
