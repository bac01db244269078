#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to standard output and standard error, as every command does.
///
/// A reader that went away (`intake lookup … | head`) ends the process quietly, as the pipe's
/// signal ends other tools: no error, no stack trace. (The process ignores SIGPIPE, which libcurl
/// needs, so a write sees EPIPE instead of the signal.)
public enum Console {
    public static func out(_ text: String) { write(text, to: STDOUT_FILENO) }
    public static func error(_ text: String) { write(text, to: STDERR_FILENO) }

    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR, EAGAIN: continue
            case EPIPE: readerWentAway()
            default: return
            }
        }
    }

    /// Ends the process as the pipe's signal would: silently, with the status a shell reports
    /// for it (141).
    public static func readerWentAway() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipe, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    /// Set once when a command starts: a write to a closed pipe then fails with EPIPE (ended
    /// quietly by ``write(_:to:)``) rather than killing the process in the middle of a write
    /// to the local store or the network.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    private static func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(fd, pointer, count)
        #else
            Darwin.write(fd, pointer, count)
        #endif
    }
}
