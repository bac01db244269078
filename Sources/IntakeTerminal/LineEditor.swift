#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a line on a terminal with editing: the arrow keys, Home and End move the cursor, up and
/// down go through the lines given before (this form's answers), Backspace and Delete remove,
/// Ctrl-A/E/B/F/K/U/W as in a shell, and pasted text (bracketed paste) goes in as typed. Only
/// printable text ever reaches the line: a key the editor does not know is ignored, never stored.
///
/// Ctrl-C puts the terminal back and raises SIGINT, so the command's own handler runs; Ctrl-D on
/// an empty line is the end of input.
public final class LineEditor {
    let input: Int32
    let output: Int32
    /// Earlier lines, oldest first: up and down go through them.
    public var history: [String] = []
    /// With `.reorder`, a line holding right-to-left letters is shown as it reads (display order,
    /// letters joined) while it is typed, on terminals that do not lay it out themselves.
    public var bidi: BidiMode = .off
    /// Whether the form's language is written right to left.
    public var rightToLeft = false

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
    }

    /// Whether both ends are a terminal, so that editing can work.
    public static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Shows `prompt` and reads one line; nil at the end of input.
    public func readLine(prompt: String) -> String? {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        TerminalModes.enter(fd: input, saved: saved)
        guard tcsetattr(input, TCSADRAIN, &raw) == 0 else {
            TerminalModes.leave()
            return nil
        }
        // Bracketed paste: the terminal marks pasted text, which then goes in as typed text.
        Console.write("\u{1B}[?2004h", to: output)
        var state = State(prompt: prompt, history: history)
        // A prompt that leaves too little of the line to type in goes on its own line.
        let width = columns
        if TerminalText.columns(of: prompt) > width - 20 {
            Console.write(prompt + "\r\n", to: output)
            state.prompt = "> "
        }
        let result = edit(&state)
        Console.write("\u{1B}[?2004l", to: output)
        TerminalModes.leave()
        if case .line(let line) = result {
            Console.write("\r\n", to: output)
            return line
        }
        Console.write("\r\n", to: output)
        if case .interrupt = result {
            // Raised on this thread, so it must not block SIGINT: a form's questions are read on
            // whichever thread its task runs on, and the dispatch pool's threads block signals
            // (once a server was set, Ctrl-C was read as the input ending).
            var interrupt = sigset_t()
            var previous = sigset_t()
            sigemptyset(&interrupt)
            sigaddset(&interrupt, SIGINT)
            pthread_sigmask(SIG_UNBLOCK, &interrupt, &previous)
            raise(SIGINT)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return nil
    }

    enum Result {
        case line(String)
        case end
        case interrupt
    }

    struct State {
        var prompt: String
        var text: [Character] = []
        var cursor = 0
        var history: [String]
        var historyIndex: Int
        /// What was being typed before going up through the history.
        var pending: [Character] = []
        var pasting = false

        init(prompt: String, history: [String]) {
            self.prompt = prompt
            self.history = history
            historyIndex = history.count
        }
    }

    private func edit(_ state: inout State) -> Result {
        render(state)
        var decoder = UTF8Collector()
        while let byte = readByte() {
            if let scalar = decoder.add(byte) {
                if scalar.value == 0x1B {
                    if handleEscape(&state) { render(state) }
                    continue
                }
                switch scalar.value {
                case 0x0D, 0x0A:
                    if state.pasting {
                        insert(" ", &state)
                    } else {
                        return .line(String(state.text))
                    }
                case 0x03: return .interrupt
                case 0x04:
                    if state.text.isEmpty { return .end }
                    if state.cursor < state.text.count { state.text.remove(at: state.cursor) }
                case 0x7F, 0x08:
                    if state.cursor > 0 {
                        state.cursor -= 1
                        state.text.remove(at: state.cursor)
                    }
                case 0x01: state.cursor = 0
                case 0x05: state.cursor = state.text.count
                case 0x02: state.cursor = max(0, state.cursor - 1)
                case 0x06: state.cursor = min(state.text.count, state.cursor + 1)
                case 0x0B: state.text.removeSubrange(state.cursor...)
                case 0x15:
                    state.text.removeSubrange(..<state.cursor)
                    state.cursor = 0
                case 0x17:
                    var start = state.cursor
                    while start > 0, state.text[start - 1] == " " { start -= 1 }
                    while start > 0, state.text[start - 1] != " " { start -= 1 }
                    state.text.removeSubrange(start..<state.cursor)
                    state.cursor = start
                case 0x09: insert(" ", &state)
                default:
                    // Any other control character is not text: ignored.
                    guard !TerminalText.isControl(scalar) else { continue }
                    insert(Character(scalar), &state)
                }
                render(state)
            }
        }
        return .end
    }

    private func insert(_ character: Character, _ state: inout State) {
        state.text.insert(character, at: state.cursor)
        // A combining mark joins the character before it: the array holds characters as typed,
        // String(text) joins them back.
        state.cursor += 1
    }

    /// Reads the rest of an escape sequence and acts on the keys it knows; whether to redraw.
    private func handleEscape(_ state: inout State) -> Bool {
        guard let next = readByte() else { return false }
        switch next {
        case UInt8(ascii: "["):
            var parameters: [UInt8] = []
            var final: UInt8 = 0
            while let byte = readByte() {
                if (0x40...0x7E).contains(byte) {
                    final = byte
                    break
                }
                parameters.append(byte)
                if parameters.count > 16 { break }
            }
            let parameter = String(decoding: parameters, as: UTF8.self)
            switch (final, parameter) {
            case (UInt8(ascii: "C"), _): state.cursor = min(state.text.count, state.cursor + 1)
            case (UInt8(ascii: "D"), _): state.cursor = max(0, state.cursor - 1)
            case (UInt8(ascii: "A"), _): moveInHistory(-1, &state)
            case (UInt8(ascii: "B"), _): moveInHistory(1, &state)
            case (UInt8(ascii: "H"), _), (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): state.cursor = 0
            case (UInt8(ascii: "F"), _), (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): state.cursor = state.text.count
            case (UInt8(ascii: "~"), "3"):
                if state.cursor < state.text.count { state.text.remove(at: state.cursor) }
            case (UInt8(ascii: "~"), "200"): state.pasting = true
            case (UInt8(ascii: "~"), "201"): state.pasting = false
            default: return false
            }
            return true
        case UInt8(ascii: "O"):
            switch readByte() {
            case UInt8(ascii: "C"): state.cursor = min(state.text.count, state.cursor + 1)
            case UInt8(ascii: "D"): state.cursor = max(0, state.cursor - 1)
            case UInt8(ascii: "A"): moveInHistory(-1, &state)
            case UInt8(ascii: "B"): moveInHistory(1, &state)
            case UInt8(ascii: "H"): state.cursor = 0
            case UInt8(ascii: "F"): state.cursor = state.text.count
            default: return false
            }
            return true
        default:
            return false
        }
    }

    private func moveInHistory(_ step: Int, _ state: inout State) {
        let target = state.historyIndex + step
        guard target >= 0, target <= state.history.count else { return }
        if state.historyIndex == state.history.count { state.pending = state.text }
        state.historyIndex = target
        state.text = target == state.history.count ? state.pending : Array(state.history[target])
        state.cursor = state.text.count
    }

    /// Draws the prompt and the line again, and puts the cursor where it is in the line.
    private func render(_ state: State) {
        let typed = String(state.text)
        if bidi == .reorder, BidiText.hasRightToLeft(typed), renderLaidOut(state, typed) { return }
        // A line longer than the terminal scrolls sideways: the part around the cursor shows,
        // so the line never wraps (which would leave earlier drawings on the screen).
        let room = max(10, columns - TerminalText.columns(of: state.prompt) - 1)
        var start = 0
        var before = state.text[..<state.cursor].reduce(0) { $0 + TerminalText.columns(of: $1) }
        while before > room - 1, start < state.cursor {
            before -= TerminalText.columns(of: state.text[start])
            start += 1
        }
        var shown = ""
        var used = 0
        var tail = 0
        for index in start..<state.text.count {
            let width = TerminalText.columns(of: state.text[index])
            guard used + width <= room else { break }
            shown.append(state.text[index])
            used += width
            if index >= state.cursor { tail += width }
        }
        var out = "\r" + state.prompt + shown + "\u{1B}[K"
        if tail > 0 { out += "\u{1B}[\(tail)D" }
        Console.write(out, to: output)
    }

    /// The terminal's width in columns (80 when it does not say).
    var columns: Int { TerminalSize.columns(output) ?? 80 }

    /// The line in display order; the cursor on the character it stands before, or, at the end
    /// of a right-to-left line, just left of it, where the next letter will show.
    /// A line too long for the terminal is drawn as typed instead, scrolling sideways.
    private func renderLaidOut(_ state: State, _ typed: String) -> Bool {
        let laid = BidiText.layout(typed, rightToLeft: rightToLeft)
        let widths = laid.cells.map(TerminalText.columns(of:))
        let total = widths.reduce(0, +)
        guard total <= columns - TerminalText.columns(of: state.prompt) - 2 else { return false }
        // Keys typed are characters of their own; the line's characters join a mark to its letter.
        let cursor = String(state.text[..<state.cursor]).count
        let column: Int
        if cursor < laid.order.count, let place = laid.order.firstIndex(of: cursor) {
            column = widths[..<place].reduce(0, +)
        } else {
            column = laid.rightToLeft ? -1 : total
        }
        var out = "\r" + state.prompt + String(laid.cells) + "\u{1B}[K"
        if total - column > 0 { out += "\u{1B}[\(total - column)D" }
        Console.write(out, to: output)
        return true
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            #if canImport(Glibc)
                let count = Glibc.read(input, &byte, 1)
            #else
                let count = Darwin.read(input, &byte, 1)
            #endif
            if count == 1 { return byte }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }
}

/// Collects UTF-8 bytes into scalars; a malformed sequence is dropped.
struct UTF8Collector {
    private var bytes: [UInt8] = []
    private var expected = 0

    mutating func add(_ byte: UInt8) -> Unicode.Scalar? {
        if bytes.isEmpty {
            switch byte {
            case 0x00...0x7F: return Unicode.Scalar(byte)
            case 0xC2...0xDF: expected = 2
            case 0xE0...0xEF: expected = 3
            case 0xF0...0xF4: expected = 4
            default: return nil
            }
            bytes = [byte]
            return nil
        }
        guard byte & 0xC0 == 0x80 else {
            bytes = []
            return add(byte)
        }
        bytes.append(byte)
        guard bytes.count == expected else { return nil }
        defer { bytes = [] }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return nil
    }
}

/// The terminal's settings while a line is edited, so a signal handler can put them back.
public enum TerminalModes {
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var saved = termios()

    static func enter(fd: Int32, saved: termios) {
        Self.saved = saved
        Self.fd = fd
    }

    static func leave() {
        if fd >= 0 { tcsetattr(fd, TCSADRAIN, &saved) }
        fd = -1
    }

    /// Puts the terminal back as it was before a line editor changed it (safe in a signal handler).
    public static func restore() {
        if fd >= 0 { tcsetattr(fd, TCSANOW, &saved) }
    }
}

extension TerminalText {
    /// How many columns a terminal gives `character`: none for a combining mark or a format
    /// character, two for East Asian wide ones, else one.
    public static func columns(of text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    public static func columns(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1FAFF, 0x20000...0x3FFFD:
            return 2
        default: return 1
        }
    }
}
