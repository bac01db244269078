#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Right-to-left text (Arabic, Hebrew) on terminals, which differ in what they do with it.
///
/// Terminals with their own bidi support (VTE's GNOME Terminal, Konsole, mlterm) lay out each
/// line by the Unicode bidirectional algorithm; they need only to know that a line is a
/// right-to-left paragraph, which a right-to-left mark at its start tells them. Most others
/// (tmux, screen, the Linux console, xterm, most emulators) draw characters left to right as they
/// come, so Arabic reads backwards and unjoined: for them a line is laid out here, in visual
/// order, with Arabic letters in their joined forms.
public enum BidiMode: String, Sendable, CaseIterable {
    /// Lines are sent in display order, Arabic letters joined: for terminals without bidi.
    case reorder
    /// Lines are sent as they are, a right-to-left paragraph marked: for terminals with bidi.
    case marks
    /// Lines are sent as they are.
    case off

    /// `off` when the output is not a terminal: a file or a pipe gets the text as it is, whatever
    /// the setting. Otherwise `INTAKE_BIDI` when set; else `marks` in terminals known to do bidi
    /// themselves (VTE, Konsole, mlterm) unless inside tmux or screen, and `reorder` everywhere else.
    public static func from(environment: [String: String], terminal: Bool = isatty(STDOUT_FILENO) == 1) -> BidiMode {
        guard terminal else { return .off }
        if let chosen = environment["INTAKE_BIDI"].flatMap({ BidiMode(rawValue: $0.lowercased()) }) { return chosen }
        let term = environment["TERM"] ?? ""
        let multiplexed =
            environment["TMUX"] != nil || environment["STY"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux")
        if multiplexed || term == "linux" { return .reorder }
        if environment["VTE_VERSION"] != nil || environment["KONSOLE_VERSION"] != nil || environment["MLTERM"] != nil {
            return .marks
        }
        return .reorder
    }
}

public enum BidiText {
    /// The right-to-left mark: a strong right-to-left character that shows nothing.
    public static let rightToLeftMark: Character = "\u{200F}"

    /// `line` ready for a terminal in `mode`. A line is a right-to-left paragraph when
    /// `rightToLeft` (the session's language is written so) and it holds right-to-left letters,
    /// or when its first strong letter is right-to-left.
    ///
    /// With `reorder`, a line wider than `width` columns is broken at spaces first and each part
    /// laid out on its own, so that it reads from its first word down, as the terminal's own
    /// wrapping (which cuts the display order) would not.
    public static func render(_ line: String, mode: BidiMode, rightToLeft: Bool, width: Int? = nil) -> String {
        guard mode != .off, line.unicodeScalars.contains(where: { Self.direction(of: $0) == .right }) else { return line }
        guard line.contains("\n") else { return paragraph(line, mode: mode, rightToLeft: rightToLeft, width: width) }
        return line.split(separator: "\n", omittingEmptySubsequences: false)
            .map { paragraph(String($0), mode: mode, rightToLeft: rightToLeft, width: width) }
            .joined(separator: "\n")
    }

    private static func paragraph(_ line: String, mode: BidiMode, rightToLeft: Bool, width: Int?) -> String {
        guard line.unicodeScalars.contains(where: { Self.direction(of: $0) == .right }) else { return line }
        switch mode {
        case .off: return line
        // A terminal with bidi finds a line's direction from its first strong letter: the mark
        // makes a line that starts with a number or a Latin word (a question's number, a code)
        // right-to-left all the same.
        case .marks: return rightToLeft ? String(rightToLeftMark) + line : line
        case .reorder:
            let paragraphRTL = rightToLeft || firstStrong(in: line) == .right
            return broken(line, width: width).map { visual(ArabicShaping.shaped($0), rightToLeft: paragraphRTL) }.joined(separator: "\n")
        }
    }

    /// `line` in parts no wider than `width` columns, broken after a space where there is one.
    public static func broken(_ line: String, width: Int?) -> [String] {
        guard let width, width > 10, TerminalText.columns(of: line) > width else { return [line] }
        var parts: [String] = []
        var rest = Substring(line)
        while TerminalText.columns(of: String(rest)) > width {
            var used = 0
            var cut = rest.startIndex
            var lastSpace: String.Index?
            while cut < rest.endIndex {
                let next = used + TerminalText.columns(of: rest[cut])
                if next > width { break }
                used = next
                if rest[cut] == " " { lastSpace = cut }
                cut = rest.index(after: cut)
            }
            let end = lastSpace.map { rest.index(after: $0) } ?? cut
            guard end > rest.startIndex else { break }
            parts.append(String(rest[..<end]).trimmingTrailingSpaces())
            rest = rest[end...]
        }
        parts.append(String(rest))
        return parts
    }

    enum Direction { case left, right, europeanNumber, arabicNumber, separator, terminator, whitespace, neutral }

    static func direction(of scalar: Unicode.Scalar) -> Direction {
        switch scalar.value {
        case 0x30...0x39, 0x06F0...0x06F9, 0xB2, 0xB3, 0xB9: return .europeanNumber
        case 0x0660...0x0669, 0x066B, 0x066C: return .arabicNumber
        case 0x2B, 0x2D, 0x2C, 0x2E, 0x2F, 0x3A, 0xA0, 0x060C: return .separator
        case 0x23, 0x24, 0x25, 0xA2...0xA5, 0xB0, 0xB1, 0x066A, 0x2030, 0x2031: return .terminator
        case 0x20, 0x09: return .whitespace
        case 0x200F, 0x0590...0x05FF, 0x0600...0x065F, 0x066D...0x06EF, 0x06FA...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF:
            return .right
        case 0x200E: return .left
        default:
            let properties = scalar.properties
            return properties.isAlphabetic || properties.generalCategory == .otherSymbol ? .left : .neutral
        }
    }

    private static func firstStrong(in line: String) -> Direction? {
        for scalar in line.unicodeScalars {
            let direction = direction(of: scalar)
            if direction == .left || direction == .right { return direction }
        }
        return nil
    }

    /// One line in display order, by the bidirectional algorithm's rules for a paragraph
    /// without explicit embeddings: numbers and left-to-right runs keep their order inside a
    /// right-to-left line, neutrals between two runs of one direction take it, and mirrored
    /// brackets turn to face the right way.
    static func visual(_ line: String, rightToLeft: Bool) -> String {
        String(displayed(Array(line), rightToLeft: rightToLeft).cells)
    }

    /// `characters` in display order (`order[i]` is the one shown in the `i`th place), each at an
    /// odd level showing its mirror (L4: a bracket turns to face the right way).
    private static func displayed(_ characters: [Character], rightToLeft: Bool) -> (cells: [Character], order: [Int]) {
        let (order, levels) = displayOrder(characters, rightToLeft: rightToLeft)
        return (order.map { levels[$0] % 2 == 1 ? mirrored(characters[$0]) : characters[$0] }, order)
    }

    /// A line being typed, for a terminal without bidi: its characters (as the string's own,
    /// grapheme clusters) joined without ligatures, so that each keeps its own cell, and in
    /// display order. `cells[i]` shows character `order[i]`; `rightToLeft` whether the paragraph is.
    public static func layout(_ line: String, rightToLeft: Bool) -> (cells: [Character], order: [Int], rightToLeft: Bool) {
        let paragraphRTL = rightToLeft || firstStrong(in: line) == .right
        let characters = Array(line)
        var shaped = Array(ArabicShaping.shaped(line, ligatures: false))
        if shaped.count != characters.count { shaped = characters } else { ArabicShaping.joinLamAlef(&shaped, typed: characters) }
        let (cells, order) = displayed(shaped, rightToLeft: paragraphRTL)
        return (cells, order, paragraphRTL)
    }

    /// Whether `text` holds a right-to-left letter.
    public static func hasRightToLeft(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: { direction(of: $0) == .right })
    }

    private static func displayOrder(_ characters: [Character], rightToLeft: Bool) -> (order: [Int], levels: [Int]) {
        guard !characters.isEmpty else { return ([], []) }
        // Each character (with its combining marks) by its base's direction.
        var types = characters.map { direction(of: $0.unicodeScalars.first!) }
        // W4, W5: a separator between two numbers, a terminator beside one, joins them.
        for index in types.indices {
            guard types[index] == .separator || types[index] == .terminator else { continue }
            let before = index > 0 ? types[index - 1] : nil
            let after = index + 1 < types.count ? types[index + 1] : nil
            let number: Set<Direction> = [.europeanNumber, .arabicNumber]
            if types[index] == .separator, let before, let after, number.contains(before), before == after {
                types[index] = before
            } else if types[index] == .terminator, before == .europeanNumber || after == .europeanNumber {
                types[index] = .europeanNumber
            }
        }
        let paragraph: Direction = rightToLeft ? .right : .left
        // W7: a number after a left-to-right letter (`P.1`, an id after a mark) is part of its run.
        var lastStrong = paragraph
        for index in types.indices {
            switch types[index] {
            case .left, .right: lastStrong = types[index]
            case .europeanNumber where lastStrong == .left: types[index] = .left
            default: break
            }
        }
        // The strong direction each character resolves to: numbers count as right-to-left for
        // the neutrals around them in a right-to-left paragraph (N1), and sit at a higher level.
        func strong(_ type: Direction) -> Direction? {
            switch type {
            case .left: .left
            case .right: .right
            case .europeanNumber, .arabicNumber: .right
            default: nil
            }
        }
        var levels = [Int](repeating: 0, count: characters.count)
        var index = 0
        while index < characters.count {
            if let direction = strong(types[index]) {
                let isNumber = types[index] == .europeanNumber || types[index] == .arabicNumber
                levels[index] = level(direction: isNumber ? .europeanNumber : direction, paragraph: paragraph)
                index += 1
                continue
            }
            // A run of neutrals: the direction of its neighbours when they agree, else the paragraph's.
            var end = index
            while end < characters.count, strong(types[end]) == nil { end += 1 }
            let before = index > 0 ? strong(types[index - 1]) : paragraph
            let after = end < characters.count ? strong(types[end]) : paragraph
            let resolved = before == after ? before! : paragraph
            for position in index..<end { levels[position] = level(direction: resolved, paragraph: paragraph) }
            index = end
        }
        // L1: trailing whitespace at the paragraph's level.
        var tail = characters.count - 1
        while tail >= 0, types[tail] == .whitespace {
            levels[tail] = rightToLeft ? 1 : 0
            tail -= 1
        }
        // L2: from the highest level down to the lowest odd one, reverse every run at or above it.
        var order = Array(characters.indices)
        let highest = levels.max() ?? 0
        let lowestOdd = levels.filter { $0 % 2 == 1 }.min() ?? (highest + 1)
        var current = highest
        while current >= lowestOdd && current > 0 {
            var start = 0
            while start < order.count {
                guard levels[order[start]] >= current else {
                    start += 1
                    continue
                }
                var end = start
                while end < order.count, levels[order[end]] >= current { end += 1 }
                order[start..<end].reverse()
                start = end
            }
            current -= 1
        }
        return (order, levels)
    }

    private static func level(direction: Direction, paragraph: Direction) -> Int {
        switch (paragraph, direction) {
        case (.left, .left): 0
        case (.left, .right): 1
        case (.left, _): 2
        case (_, .right): 1
        default: 2
        }
    }

    private static func mirrored(_ character: Character) -> Character {
        switch character {
        case "(": ")"
        case ")": "("
        case "[": "]"
        case "]": "["
        case "{": "}"
        case "}": "{"
        case "<": ">"
        case ">": "<"
        case "«": "»"
        case "»": "«"
        default: character
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension TerminalText {
    /// `text` as a terminal in `bidi` mode should get it: control characters escaped (``escaped(_:lines:)``),
    /// then right-to-left lines laid out (``BidiText/render(_:mode:rightToLeft:width:)``) for the
    /// width of the terminal `fd` is.
    public static func shown(_ text: String, bidi: BidiMode, rightToLeft: Bool, fd: Int32 = STDOUT_FILENO) -> String {
        let width = TerminalSize.columns(fd)
        return wrapped(BidiText.render(escaped(text, lines: true), mode: bidi, rightToLeft: rightToLeft, width: width), width: width)
    }

    /// Each line wider than `width` columns broken after a space (a word longer than the line is
    /// cut), its continuation indented as the line is, so that the terminal's own wrapping never
    /// cuts a word in two.
    public static func wrapped(_ text: String, width: Int?) -> String {
        guard let width, width > 10, text.split(separator: "\n").contains(where: { columns(of: String($0)) > width }) else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let line = String(line)
            guard columns(of: line) > width else { return line }
            // Continued under its start; a line laid out as a term and its description (`  :back
            // go to …`, two spaces or more between them) is continued under the description.
            let leading = line.prefix { $0 == " " }.count
            let term = line.dropFirst(leading).range(of: #"^\S+( \S+)?\s{2,}"#, options: .regularExpression)
            let hanging = term.map { line.distance(from: line.startIndex, to: $0.upperBound) } ?? leading
            let indent = String(repeating: " ", count: min(hanging, width / 2))
            let parts = BidiText.broken(line, width: width)
            guard parts.count > 1 else { return line }
            // The continuation, indented, may need breaking again at the narrower width: taken from
            // the line itself, so a word cut for being longer than the line stays whole.
            let rest = line.dropFirst(parts[0].count).drop { $0 == " " }
            return ([parts[0]] + BidiText.broken(String(rest), width: width - indent.count).map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

/// The width of a terminal.
public enum TerminalSize {
    /// The columns of the terminal `fd` is, or nil when it is not one (or does not say).
    public static func columns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard isatty(fd) == 1, ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// Arabic letters in their joined forms (initial, medial, final, isolated), as terminals that do
/// not shape text themselves need them: the Arabic Presentation Forms-B block.
enum ArabicShaping {
    /// The first presentation form of each letter from U+0621 (isolated, then final, initial
    /// and medial), and how many forms it has: 4 joins on both sides, 2 only to the letter
    /// before it, 1 to neither.
    private static let forms: [UInt32: (first: UInt32, count: UInt32)] = {
        let counts: [(UInt32, UInt32)] = [
            (0x621, 1), (0x622, 2), (0x623, 2), (0x624, 2), (0x625, 2), (0x626, 4), (0x627, 2), (0x628, 4), (0x629, 2),
            (0x62A, 4), (0x62B, 4), (0x62C, 4), (0x62D, 4), (0x62E, 4), (0x62F, 2), (0x630, 2), (0x631, 2), (0x632, 2),
            (0x633, 4), (0x634, 4), (0x635, 4), (0x636, 4), (0x637, 4), (0x638, 4), (0x639, 4), (0x63A, 4),
            (0x641, 4), (0x642, 4), (0x643, 4), (0x644, 4), (0x645, 4), (0x646, 4), (0x647, 4), (0x648, 2), (0x649, 2), (0x64A, 4),
        ]
        var table: [UInt32: (first: UInt32, count: UInt32)] = [:]
        var next: UInt32 = 0xFE80
        for (letter, count) in counts {
            table[letter] = (next, count)
            next += count
        }
        return table
    }()

    /// Lam followed by these alefs joins into one ligature (isolated, final).
    private static let lamAlef: [UInt32: UInt32] = [0x622: 0xFEF5, 0x623: 0xFEF7, 0x625: 0xFEF9, 0x627: 0xFEFB]
    private static let tatweel: UInt32 = 0x640

    /// Whether a scalar is drawn on its neighbour and left out when finding who joins whom.
    private static func isTransparent(_ value: UInt32) -> Bool {
        (0x64B...0x65F).contains(value) || value == 0x670
    }

    private static func joinsForward(_ value: UInt32) -> Bool { value == tatweel || forms[value]?.count == 4 }
    private static func joinsBackward(_ value: UInt32) -> Bool { value == tatweel || (forms[value]?.count ?? 1) > 1 }

    /// Lam and alef as one ligature in a line being typed, one cell a character still: the lam's
    /// cell takes the ligature (its final form after a letter that joins it), the alef's a
    /// zero-width space, so the cursor keeps its place as the line is edited.
    static func joinLamAlef(_ cells: inout [Character], typed: [Character]) {
        guard cells.count == typed.count, typed.count > 1 else { return }
        for index in 0..<(typed.count - 1) where typed[index] == "\u{0644}" {
            guard typed[index + 1].unicodeScalars.count == 1, let alef = typed[index + 1].unicodeScalars.first,
                let ligature = lamAlef[alef.value], let lam = cells[index].unicodeScalars.first
            else { continue }
            // Lam joined to the letter before it is in its final (FEDE) or medial (FEE0) form.
            let joinedBefore = lam.value == 0xFEDE || lam.value == 0xFEE0
            guard let glyph = Unicode.Scalar(ligature + (joinedBefore ? 1 : 0)) else { continue }
            cells[index] = Character(glyph)
            cells[index + 1] = "\u{200B}"
        }
    }

    /// `text` with its Arabic letters in their joined forms; with `ligatures`, lam and alef as one.
    static func shaped(_ text: String, ligatures: Bool = true) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: { forms[$0.value] != nil }) else { return text }
        // The letters around each one, harakat skipped.
        func neighbour(of index: Int, step: Int) -> UInt32? {
            var position = index + step
            while scalars.indices.contains(position) {
                let value = scalars[position].value
                if !isTransparent(value) { return value }
                position += step
            }
            return nil
        }
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let value = scalars[index].value
            guard let form = forms[value] else {
                out.append(scalars[index])
                index += 1
                continue
            }
            let joinedBefore = neighbour(of: index, step: -1).map(joinsForward) ?? false
            if ligatures, value == 0x644, index + 1 < scalars.count, let ligature = lamAlef[scalars[index + 1].value] {
                out.append(Unicode.Scalar(ligature + (joinedBefore ? 1 : 0))!)
                index += 2
                continue
            }
            let joinedAfter = form.count == 4 && (neighbour(of: index, step: 1).map(joinsBackward) ?? false)
            let offset: UInt32 =
                switch (joinedBefore && form.count > 1, joinedAfter) {
                case (true, true): 3
                case (false, true): 2
                case (true, false): 1
                case (false, false): 0
                }
            out.append(Unicode.Scalar(form.first + offset)!)
            index += 1
        }
        return String(out)
    }
}
