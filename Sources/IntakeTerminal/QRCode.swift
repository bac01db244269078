/// A QR code (ISO/IEC 18004, model 2) of a short text, to show in a terminal: byte mode, error
/// correction level M (15% of the symbol may be damaged), versions 1 to 10 (up to 213 bytes),
/// the mask with the lowest penalty.
public struct QRCode: Sendable, Equatable {
    /// Modules per side.
    public let size: Int
    /// Row-major, `true` for a dark module.
    public private(set) var modules: [Bool]
    public let version: Int

    /// Error correction codewords per block and the number of blocks, level M, versions 1…10.
    private static let eccPerBlock = [10, 16, 26, 18, 24, 16, 18, 22, 22, 26]
    private static let blocks = [1, 1, 1, 2, 2, 4, 4, 4, 5, 5]
    /// The centres of alignment patterns along each axis, versions 2…10.
    private static let alignment: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]
    public static let maximumBytes = 213

    /// The code of `text`'s UTF-8 bytes, or nil when they are more than ``maximumBytes``.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let version = (1...10).first(where: { Self.dataCapacity($0) * 8 >= 4 + ($0 < 10 ? 8 : 16) + bytes.count * 8 }) else {
            return nil
        }
        self.version = version
        size = 17 + 4 * version
        modules = Array(repeating: false, count: size * size)
        var function = Array(repeating: false, count: size * size)
        drawFunctionPatterns(&function)
        let codewords = Self.interleave(Self.encode(bytes, version: version), version: version)
        placeData(codewords, function: function)
        var best: (penalty: Int, mask: Int, modules: [Bool])?
        for mask in 0..<8 {
            var candidate = self
            candidate.applyMask(mask, function: function)
            candidate.drawFormat(mask: mask)
            let penalty = candidate.penalty()
            if best == nil || penalty < best!.penalty { best = (penalty, mask, candidate.modules) }
        }
        modules = best!.modules
    }

    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool) { modules[y * size + x] = dark }

    // MARK: Data

    /// Codewords the symbol holds in all.
    static func totalCodewords(_ version: Int) -> Int {
        var bits = (16 * version + 128) * version + 64
        if version >= 2 {
            let count = version / 7 + 2
            bits -= (25 * count - 10) * count - 55
            if version >= 7 { bits -= 36 }
        }
        return bits / 8
    }

    static func dataCapacity(_ version: Int) -> Int {
        totalCodewords(version) - eccPerBlock[version - 1] * blocks[version - 1]
    }

    /// Mode, count, bytes, terminator and padding: the data codewords.
    static func encode(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, version < 10 ? 8 : 16)
        for byte in bytes { append(Int(byte), 8) }
        let capacity = dataCapacity(version) * 8
        append(0, min(4, capacity - bits.count))
        if bits.count % 8 != 0 { append(0, 8 - bits.count % 8) }
        var pad = 0xEC
        while bits.count < capacity {
            append(pad, 8)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits[start + $1] ? 1 : 0) }
        }
    }

    /// The data split into blocks, each with its error correction, interleaved.
    static func interleave(_ data: [UInt8], version: Int) -> [UInt8] {
        let count = blocks[version - 1], ecc = eccPerBlock[version - 1]
        let total = totalCodewords(version)
        let shortCount = count - total % count
        let shortLength = total / count
        var split: [[UInt8]] = []
        var start = 0
        for index in 0..<count {
            let length = shortLength - ecc + (index < shortCount ? 0 : 1)
            split.append(Array(data[start..<start + length]))
            start += length
        }
        let generator = ReedSolomon.generator(degree: ecc)
        let corrections = split.map { ReedSolomon.remainder($0, generator) }
        var result: [UInt8] = []
        for column in 0..<(shortLength - ecc + 1) {
            for block in split where column < block.count { result.append(block[column]) }
        }
        for column in 0..<ecc {
            for correction in corrections { result.append(correction[column]) }
        }
        return result
    }

    // MARK: Drawing

    private mutating func drawFunctionPatterns(_ function: inout [Bool]) {
        func mark(_ x: Int, _ y: Int, _ dark: Bool) {
            set(x, y, dark)
            function[y * size + x] = true
        }
        for i in 0..<size {
            mark(6, i, i % 2 == 0)
            mark(i, 6, i % 2 == 0)
        }
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx, y = cy + dy
                    guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                    let distance = max(abs(dx), abs(dy))
                    mark(x, y, distance != 2 && distance != 4)
                }
            }
        }
        let centres = Self.alignment[version - 1]
        for cy in centres {
            for cx in centres {
                // Not over the finder patterns.
                if (cx == 6 && cy == 6) || (cx == 6 && cy == centres.last!) || (cx == centres.last! && cy == 6) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { mark(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Reserve the format areas (drawn with each mask) and the dark module.
        for i in 0..<9 {
            function[8 * size + i] = true
            function[i * size + 8] = true
        }
        for i in 0..<8 {
            function[8 * size + size - 1 - i] = true
            function[(size - 1 - i) * size + 8] = true
        }
        mark(8, size - 8, true)
        if version >= 7 {
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = size - 11 + i % 3, b = i / 3
                mark(a, b, dark)
                mark(b, a, dark)
            }
        }
    }

    private mutating func placeData(_ codewords: [UInt8], function: [Bool]) {
        var index = 0
        let total = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !function[y * size + x], index < total else { continue }
                    set(x, y, (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1)
                    index += 1
                }
            }
            right -= 2
        }
    }

    private mutating func applyMask(_ mask: Int, function: [Bool]) {
        for y in 0..<size {
            for x in 0..<size where !function[y * size + x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { modules[y * size + x].toggle() }
            }
        }
    }

    /// Level M (`00`) and the mask, with their BCH code, in both copies.
    private mutating func drawFormat(mask: Int) {
        let data = 0b00 << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0..<6 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    /// The standard's penalty: runs, 2×2 blocks, finder-like patterns, imbalance.
    private func penalty() -> Int {
        var score = 0
        func lines(_ horizontal: Bool) -> [[Bool]] {
            (0..<size).map { a in (0..<size).map { b in horizontal ? self[b, a] : self[a, b] } }
        }
        let finderLike: [Bool] = [true, false, true, true, true, false, true]
        for line in lines(true) + lines(false) {
            var run = 1
            for i in 1..<size {
                if line[i] == line[i - 1] {
                    run += 1
                } else {
                    if run >= 5 { score += run - 2 }
                    run = 1
                }
            }
            if run >= 5 { score += run - 2 }
            for i in 0...(size - 7) where Array(line[i..<i + 7]) == finderLike {
                let before = i >= 4 && line[(i - 4)..<i].allSatisfy { !$0 }
                let after = i + 11 <= size && line[(i + 7)..<(i + 11)].allSatisfy { !$0 }
                if before || after { score += 40 }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) where self[x, y] == self[x + 1, y] && self[x, y] == self[x, y + 1] && self[x, y] == self[x + 1, y + 1] {
                score += 3
            }
        }
        let dark = modules.filter { $0 }.count
        score += abs(dark * 20 - modules.count * 10) / modules.count * 10
        return score
    }

    // MARK: Terminal

    /// The code as lines of half blocks, two rows of modules to a line, with a quiet zone of
    /// four modules; `colours` sets black on white (for a terminal whatever its own colours).
    public func lines(colours: Bool) -> [String] {
        let quiet = 4
        let span = size + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let mx = x - quiet, my = y - quiet
            return (0..<size).contains(mx) && (0..<size).contains(my) && self[mx, my]
        }
        return stride(from: 0, to: span, by: 2).map { y in
            let row = String(
                (0..<span).map { x -> Character in
                    switch (dark(x, y), y + 1 < span && dark(x, y + 1)) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                })
            return colours ? "\u{1B}[30;47;107m" + row + "\u{1B}[0m" : row
        }
    }
}

/// Reed–Solomon error correction over GF(256) with the polynomial x⁸+x⁴+x³+x²+1, as QR codes use.
enum ReedSolomon {
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var result: UInt8 = 0
        var a = a, b = b
        while b != 0 {
            if b & 1 == 1 { result ^= a }
            let carry = a & 0x80 != 0
            a <<= 1
            if carry { a ^= 0x1D }
            b >>= 1
        }
        return result
    }

    /// The generator polynomial's coefficients after the leading 1, highest power first:
    /// (x − α⁰)(x − α¹)…(x − α^(degree−1)).
    static func generator(degree: Int) -> [UInt8] {
        var coefficients = Array(repeating: UInt8(0), count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return coefficients
    }

    /// The remainder of `data`·x^degree divided by the generator: the error correction codewords.
    static func remainder(_ data: [UInt8], _ generator: [UInt8]) -> [UInt8] {
        var result = Array(repeating: UInt8(0), count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in 0..<generator.count { result[i] ^= multiply(generator[i], factor) }
        }
        return result
    }
}
