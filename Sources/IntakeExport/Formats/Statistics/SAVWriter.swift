import Foundation

// Why a writer of our own: an uncompressed .sav is a short, fixed layout (GNU PSPP's "System
// File Format" documents every record), so a few hundred lines of Swift write it with no C
// library to install and link (ReadStat, libreadstat-dev, would be the other way, through a
// system-library target). pyreadstat (ReadStat) and GNU PSPP read what this writes: see
// scripts/stats-files.py and the round-trip test.

/// Writes a ``StatisticsTable`` as an SPSS system file (`records.sav`): uncompressed,
/// little-endian, UTF-8 (character code 65001 and the encoding record), long variable names,
/// variable labels, value labels, strings as long as SPSS allows (32,767 bytes, as "very long
/// strings" of 255-byte segments).
///
/// Missing values: an empty cell (not asked) is system-missing, or an empty string. "Asked, not
/// answered" is, in a numeric variable, a user-missing value declared on the variable and
/// labelled "asked, not answered": ``unansweredNumber`` (the unanswered code when it is a number,
/// else -999999999); a column where an answer (or a choice code) has that value gets
/// system-missing instead. In a
/// text variable it is the unanswered code, declared user-missing when it has at most 8 bytes
/// (as records.sps does); a text answer equal to the code then reads as missing too (records.csv
/// keeps them apart). SPSS pads strings with spaces, so trailing spaces of a text are lost; a
/// text longer than 32,767 bytes is cut (at a character) there.
struct SAVWriter {
    var table: StatisticsTable
    /// The creation date and time in the header.
    var date: Date

    static let systemMissing = -Double.greatestFiniteMagnitude
    static let unansweredLabel = "asked, not answered"
    static let maxWidth = 32_767
    static let maxVariableLabelBytes = 255
    static let maxValueLabelBytes = 120

    /// The user-missing value for "asked, not answered" in numeric variables.
    static func unansweredNumber(code: String) -> Double { StatisticsVariable.plainNumber(code) ?? -999_999_999 }

    /// How one variable is laid out.
    private struct Layout {
        var variable: StatisticsVariable
        var longName: String
        /// One short name per segment.
        var shortNames: [String]
        /// 0 for numeric, else the string's width in bytes.
        var width: Int
        /// Widths of its segments (one for numbers and strings up to 255 bytes).
        var segments: [Int]
        /// Its first dictionary index (1-based, counting continuation records).
        var index = 0
        /// A numeric variable's user-missing value for "asked, not answered".
        var missingNumber: Double?
        /// A text variable's user-missing value.
        var missingText: String?
        var format: (type: Int, width: Int, decimals: Int)
    }

    /// Writes the file at `url`, readable by its owner only, a row of the table at a time.
    func write(to url: URL) throws {
        let unansweredCode = table.unansweredCode
        let sentinel = Self.unansweredNumber(code: unansweredCode)
        let longNames = StatisticsNames.spss(table.variables.map(\.column))
        var layouts: [Layout] = []
        for (variable, name) in zip(table.variables, longNames) {
            var width = 0
            var segments = [0]
            var format = (type: 5, width: 8, decimals: 0)
            var missingNumber: Double?
            var missingText: String?
            switch variable.kind {
            case .text:
                // A longer text is cut to SPSS's longest as it is written.
                width = min(Self.maxWidth, variable.textWidth(unansweredCode: unansweredCode, inSPSS: true))
                segments = Self.segments(width: width)
                format = (1, min(width, 255), 0)
                let code = unansweredCode.utf8.count
                if variable.isAnswer, code <= 8, code <= width, width <= 255 { missingText = unansweredCode }
            case .indicator:
                format = (5, 1, 0)
            case .code:
                let digits = variable.numberLabels.map { String(Int($0.value)).count }.max() ?? 1
                format = (5, max(1, digits), 0)
            case .integer:
                format = (5, 12, 0)
            case .number:
                format = (5, 18, variable.facts.decimals)
            case .date:
                format = (39, 10, 0)  // SDATE10: yyyy/mm/dd
            }
            if variable.isNumeric, variable.hasUnanswered, !variable.holdsUnansweredNumber,
                !variable.numberLabels.contains(where: { $0.value == sentinel })
            {
                missingNumber = sentinel
            }
            layouts.append(
                Layout(
                    variable: variable, longName: name, shortNames: [], width: width, segments: segments, missingNumber: missingNumber,
                    missingText: missingText, format: format))
        }
        let shortNames = StatisticsNames.spssShort(longNames, extraSegments: layouts.map { $0.segments.count - 1 })
        var next = 1
        for index in layouts.indices {
            layouts[index].shortNames = shortNames[index]
            layouts[index].index = next
            next += layouts[index].segments.reduce(0) { $0 + Self.slots($1) }
        }
        let caseSize = next - 1

        var out = try ByteWriter(file: url)
        // File header.
        out.text("$FL2")
        out.padded("@(#) SPSS DATA FILE Intake", 60)
        out.int32(2)  // layout code
        out.int32(Int32(caseSize))
        out.int32(0)  // not compressed
        out.int32(0)  // not weighted
        out.int32(table.rowCount <= Int(Int32.max) ? Int32(table.rowCount) : -1)  // -1: readers count the cases
        out.double(100)  // bias
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd MMM yy"
        out.padded(formatter.string(from: date), 9)
        formatter.dateFormat = "HH:mm:ss"
        out.padded(formatter.string(from: date), 8)
        out.padded(table.fileLabel.truncated(bytes: 64), 64)
        out.zeros(3)

        // Variable records: one per segment, and a continuation record per further 8 bytes.
        for layout in layouts {
            for (segment, width) in layout.segments.enumerated() {
                let first = segment == 0
                out.int32(2)
                out.int32(Int32(layout.variable.isNumeric ? 0 : width))
                let label = first ? layout.variable.label.truncated(bytes: Self.maxVariableLabelBytes).trimmingTrailingSpaces : ""
                out.int32(label.isEmpty ? 0 : 1)
                let missing: Int32 = first && (layout.missingNumber != nil || (layout.missingText != nil && width <= 8)) ? 1 : 0
                out.int32(missing)
                let format = layout.variable.isNumeric ? layout.format : (type: 1, width: width, decimals: 0)
                let packed = Int32(format.type << 16 | format.width << 8 | format.decimals)
                out.int32(packed)
                out.int32(packed)
                out.padded(layout.shortNames[segment], 8)
                if !label.isEmpty {
                    let bytes = Array(label.utf8)
                    out.int32(Int32(bytes.count))
                    out.bytes(bytes)
                    out.zeros((4 - bytes.count % 4) % 4)
                }
                if missing == 1 {
                    if let value = layout.missingNumber { out.double(value) }
                    if let text = layout.missingText { out.padded(text, 8) }
                }
                for _ in 1..<max(1, Self.slots(width)) {
                    out.int32(2)
                    out.int32(-1)
                    out.int32(0)
                    out.int32(0)
                    out.int32(0)
                    out.int32(0)
                    out.padded("", 8)
                }
            }
        }

        // Value labels of numbers and of strings up to 8 bytes: a type 3 record with the labels, a type 4 with the variable.
        for layout in layouts {
            var labels: [(value: [UInt8], label: String)] = []
            if layout.variable.isNumeric {
                labels = layout.variable.numberLabels.map { (ByteWriter.double($0.value), $0.label) }
                if let missing = layout.missingNumber, !labels.isEmpty { labels.append((ByteWriter.double(missing), Self.unansweredLabel)) }
            } else if layout.width <= 8 {
                labels = layout.variable.textLabels.filter { $0.value.utf8.count <= layout.width }.map {
                    (Array($0.value.utf8) + Array(repeating: 32, count: 8 - $0.value.utf8.count), $0.label)
                }
            }
            guard !labels.isEmpty else { continue }
            out.int32(3)
            out.int32(Int32(labels.count))
            for (value, label) in labels {
                out.bytes(value)
                let text = Array(label.truncated(bytes: Self.maxValueLabelBytes).utf8)
                out.byte(UInt8(text.count))
                out.bytes(text)
                out.zeros((8 - (1 + text.count) % 8) % 8)
            }
            out.int32(4)
            out.int32(1)
            out.int32(Int32(layout.index))
        }

        // Machine integer info: IEEE 754, little-endian, UTF-8.
        out.extensionHeader(subtype: 3, size: 4, count: 8)
        for value: Int32 in [1, 0, 0, -1, 1, 1, 2, 65001] { out.int32(value) }
        // Machine floating-point info: system-missing, highest, lowest.
        out.extensionHeader(subtype: 4, size: 8, count: 3)
        out.double(Self.systemMissing)
        out.double(Double.greatestFiniteMagnitude)
        out.double(Self.systemMissing.nextUp)
        // Character encoding, early so that every reader knows it before the names and labels.
        out.extensionText(subtype: 20, Array("UTF-8".utf8))
        // Variable display: measure, width and alignment of each segment.
        let segmentCount = layouts.reduce(0) { $0 + $1.segments.count }
        out.extensionHeader(subtype: 11, size: 4, count: Int32(segmentCount * 3))
        for layout in layouts {
            let measure: Int32
            switch layout.variable.kind {
            case .indicator, .code, .text: measure = 1  // nominal
            case .integer, .number, .date: measure = 3  // scale
            }
            for width in layout.segments {
                out.int32(measure)
                out.int32(Int32(layout.variable.isNumeric ? max(8, layout.format.width) : min(max(width, 8), 40)))
                out.int32(layout.variable.isNumeric ? 1 : 0)  // right, left
            }
        }
        // Long variable names.
        out.extensionText(
            subtype: 13, Array(zip(layouts.map { $0.shortNames[0] }, longNames).map { "\($0)=\($1)" }.joined(separator: "\t").utf8))
        // Very long strings: the whole width of each, for its first segment.
        let veryLong = layouts.filter { $0.segments.count > 1 }
        if !veryLong.isEmpty {
            var bytes: [UInt8] = []
            for layout in veryLong {
                bytes += Array("\(layout.shortNames[0])=\(String(format: "%05d", layout.width))".utf8) + [0, 9]
            }
            out.extensionText(subtype: 14, bytes)
        }
        // Value labels of strings longer than 8 bytes.
        var longLabels = ByteWriter()
        for layout in layouts where !layout.variable.isNumeric && layout.width > 8 && layout.segments.count == 1 {
            let labels = layout.variable.textLabels.filter { $0.value.utf8.count <= layout.width }
            guard !labels.isEmpty else { continue }
            let name = Array(layout.longName.utf8)
            longLabels.int32(Int32(name.count))
            longLabels.bytes(name)
            longLabels.int32(Int32(layout.width))
            longLabels.int32(Int32(labels.count))
            for (value, label) in labels {
                longLabels.int32(Int32(layout.width))
                longLabels.padded(value, layout.width)
                let text = Array(label.truncated(bytes: Self.maxValueLabelBytes).utf8)
                longLabels.int32(Int32(text.count))
                longLabels.bytes(text)
            }
        }
        if !longLabels.bytes.isEmpty { out.extensionText(subtype: 21, longLabels.bytes) }
        // Missing values of strings longer than 8 bytes (their first 8 bytes, as SPSS allows).
        var longMissing = ByteWriter()
        for layout in layouts where layout.width > 8 {
            guard let text = layout.missingText else { continue }
            let name = Array(layout.longName.utf8)
            longMissing.int32(Int32(name.count))
            longMissing.bytes(name)
            longMissing.byte(1)
            longMissing.int32(8)
            longMissing.padded(text, 8)
        }
        if !longMissing.bytes.isEmpty { out.extensionText(subtype: 22, longMissing.bytes) }
        // Dictionary termination.
        out.int32(999)
        out.int32(0)

        // Data: each case's values in dictionary order.
        try table.rows.forEachRow { cells in
            for (layout, cell) in zip(layouts, cells) {
                let value = layout.variable.value(cell)
                if layout.variable.isNumeric {
                    switch value {
                    case .number(let number):
                        out.double(layout.variable.kind == .date ? Self.spssDate(days: number) : number)
                    case .unanswered: out.double(layout.missingNumber ?? Self.systemMissing)
                    case .empty, .text: out.double(Self.systemMissing)
                    }
                    continue
                }
                let bytes = table.textBytes(value, atMost: Self.maxWidth)
                // Each segment holds the next 255 bytes, padded with spaces to its 8-byte slots.
                var start = 0
                for width in layout.segments {
                    let end = min(bytes.count, start + min(width, 255))
                    if start < end { out.bytes.append(contentsOf: bytes[start..<end]) }
                    out.spaces(Self.slots(width) * 8 - (end - start))
                    start = end
                }
            }
            try out.flushIfFull()
        }
        try out.close()
    }

    /// A string of `width` bytes as SPSS segments: one up to 255 bytes; beyond, a 255-byte
    /// segment per 252 bytes and the rest.
    static func segments(width: Int) -> [Int] {
        guard width > 255 else { return [width] }
        let count = (width + 251) / 252
        return Array(repeating: 255, count: count - 1) + [width - (count - 1) * 252]
    }

    /// The 8-byte slots a variable (numeric: width 0) takes.
    static func slots(_ width: Int) -> Int { width == 0 ? 1 : (width + 7) / 8 }

    /// Seconds from 14 October 1582 to the date `days` after 1 January 1970.
    static func spssDate(days: Double) -> Double { (days + 141_428) * 86_400 }
}

/// Little-endian bytes for the statistics files: kept in ``bytes``, or, made with
/// ``init(file:)``, written to a file whenever ``bufferSize`` bytes have gathered (``flushIfFull()``).
struct ByteWriter {
    var bytes: [UInt8] = []
    /// Where the bytes go (nil: they stay in ``bytes``).
    private var file: FileHandle?
    private var path = ""
    /// The bytes already written to the file.
    private(set) var written = 0
    /// The offset the next byte will have.
    var position: Int { written + bytes.count }

    init() {}

    /// A writer of a new file at `url`, readable by its owner only.
    init(file url: URL) throws(ExportError) {
        path = url.path
        file = try FileSink.ownerOnlyFile(url)
        bytes.reserveCapacity(Self.bufferSize + 65_536)
    }

    /// 256 KiB: an export holds several at once (a spool per table while the records pass, then
    /// the spool read and each file written), and a mebibyte each took the .sav and .dta export
    /// of 100,000 records past 64 MB resident; a write a quarter-mebibyte costs nothing measurable.
    static let bufferSize = 1 << 18

    private func failed(_ error: any Error) -> ExportError {
        ExportError("cannot write \(path): \((error as NSError).localizedDescription); check the disk has room")
    }

    /// Writes the bytes gathered to the file once they reach ``bufferSize``.
    mutating func flushIfFull() throws(ExportError) {
        if file != nil, bytes.count >= Self.bufferSize { try flush() }
    }

    mutating func flush() throws(ExportError) {
        guard let file, !bytes.isEmpty else { return }
        do { try file.write(contentsOf: bytes) } catch { throw failed(error) }
        written += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }

    /// Puts `replacement` over the bytes from `offset` (in the file or still here).
    mutating func overwrite(at offset: Int, with replacement: [UInt8]) throws(ExportError) {
        if offset >= written {
            bytes.replaceSubrange(offset - written..<offset - written + replacement.count, with: replacement)
            return
        }
        try flush()
        guard let file else { return }
        do {
            try file.seek(toOffset: UInt64(offset))
            try file.write(contentsOf: replacement)
            try file.seekToEnd()
        } catch { throw failed(error) }
    }

    /// Writes what is left and closes the file.
    mutating func close() throws(ExportError) {
        try flush()
        do { try file?.close() } catch { throw failed(error) }
        file = nil
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func bytes(_ values: [UInt8]) { bytes.append(contentsOf: values) }
    mutating func text(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func zeros(_ count: Int) { if count > 0 { bytes.append(contentsOf: repeatElement(0, count: count)) } }
    mutating func spaces(_ count: Int) { if count > 0 { bytes.append(contentsOf: repeatElement(32, count: count)) } }
    mutating func int16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func int32(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func uint64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func double(_ value: Double) { uint64(value.bitPattern) }

    static func double(_ value: Double) -> [UInt8] {
        var writer = ByteWriter()
        writer.double(value)
        return writer.bytes
    }

    /// `text` in exactly `count` bytes: cut (at a character) or padded with spaces.
    mutating func padded(_ text: String, _ count: Int) {
        let cut = Array(text.truncated(bytes: count).utf8)
        bytes.append(contentsOf: cut)
        spaces(count - cut.count)
    }

    /// `text` in exactly `count` bytes: cut (at a character) or padded with zeros.
    mutating func nulPadded(_ text: String, _ count: Int) {
        let cut = Array(text.truncated(bytes: count).utf8)
        bytes.append(contentsOf: cut)
        zeros(count - cut.count)
    }

    /// A .sav extension record's header (record type 7).
    mutating func extensionHeader(subtype: Int32, size: Int32, count: Int32) {
        int32(7)
        int32(subtype)
        int32(size)
        int32(count)
    }

    /// A .sav extension record of bytes.
    mutating func extensionText(subtype: Int32, _ data: [UInt8]) {
        extensionHeader(subtype: subtype, size: 1, count: Int32(data.count))
        bytes(data)
    }
}
