import Foundation
import IntakeTerminal

/// A progress bar on a terminal; a plain line per tenth when output is piped.
public final class ProgressDisplay: @unchecked Sendable {
    let interactive: Bool
    private let write: (String) -> Void
    private let lock = NSLock()
    private var lastTenth = -1
    private var lastBar = ""

    /// `write` gets the text exactly as it is to appear (standard output by default).
    public init(interactive: Bool, write: @escaping (String) -> Void = { Console.out($0) }) {
        self.interactive = interactive
        self.write = write
    }

    public func show(_ done: Int, of total: Int) {
        lock.withLock {
            let total = max(total, 1)
            if interactive {
                let width = 30
                let filled = width * min(done, total) / total
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                lastBar = "\r[\(bar)] \(done)/\(total)"
                write(lastBar)
            } else if done == total || done / max(1, total / 10) != lastTenth {
                lastTenth = done / max(1, total / 10)
                write("progress: \(done)/\(total)\n")
            }
        }
    }

    /// A line said while the bar is drawn: on its own line, the bar drawn again below it.
    public func note(_ line: String) {
        lock.withLock {
            write(interactive ? "\r\u{1B}[K" + line + "\n" + lastBar : line + "\n")
        }
    }

    public func finish() {
        if interactive { write("\n") }
    }
}
