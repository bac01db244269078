import Foundation

/// Reads the cells of an old Excel `.xls` file (BIFF8 records in an OLE compound file), as
/// pyxform reads them with xlrd: the sheets' names and their text, number and boolean cells; a
/// formula's cell is its saved value. Many published XLSForms are still `.xls`.
///
/// Every offset, length and sector chain in the file is checked before it is followed: a damaged
/// or hostile file is refused with an error, never read out of bounds or followed round a cycle.
enum XLSReader {
    static func read(_ data: Data) throws(WorkbookError) -> Workbook {
        guard data.count <= WorkbookLimits.fileBytes else {
            throw WorkbookError(
                "the file is \(data.count) bytes; an XLSForm may be at most \(WorkbookLimits.fileBytes)",
                hint: "an XLSForm is a few hundred rows; check that this is the right file")
        }
        let bytes = [UInt8](data)
        let stream = try CompoundFile(bytes).workbookStream()
        return try BIFF(stream).workbook()
    }

    static func damaged(_ what: String) -> WorkbookError {
        WorkbookError("the .xls file is damaged (\(what))", hint: "open it in Excel or LibreOffice and save it again, as .xlsx or .xls")
    }
}

/// Little-endian reads that throw instead of reading past the end.
private extension Array where Element == UInt8 {
    func u8(_ at: Int) throws(WorkbookError) -> Int {
        guard at >= 0, at < count else { throw XLSReader.damaged("a value past the end of its part") }
        return Int(self[at])
    }

    func u16(_ at: Int) throws(WorkbookError) -> Int {
        try u8(at) | u8(at + 1) << 8
    }

    func u32(_ at: Int) throws(WorkbookError) -> Int {
        try u16(at) | u16(at + 2) << 16
    }

    func f64(_ at: Int) throws(WorkbookError) -> Double {
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(try u8(at + index)) << (8 * index) }
        return Double(bitPattern: bits)
    }
}

/// An OLE compound file (Microsoft's CFB): a small file system of sectors, of which an .xls
/// holds its records in the stream named `Workbook`.
private struct CompoundFile {
    let bytes: [UInt8]
    let sectorSize: Int
    let miniSectorSize = 64
    var fat: [Int] = []

    static let endOfChain = 0xFFFF_FFFE
    static let signature: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]

    init(_ bytes: [UInt8]) throws(WorkbookError) {
        self.bytes = bytes
        guard bytes.count >= 512, Array(bytes[0..<8]) == Self.signature else {
            throw WorkbookError(
                "the file is not an .xls workbook (it is not an OLE compound file)",
                hint: "save the form from Excel or LibreOffice as .xlsx")
        }
        let shift = try bytes.u16(0x1E)
        guard shift == 9 || shift == 12 else { throw XLSReader.damaged("a sector size of 2^\(shift) bytes") }
        sectorSize = 1 << shift
        // The FAT's sectors: 109 listed in the header, the rest in a chain of DIFAT sectors.
        let fatCount = try bytes.u32(0x2C)
        guard fatCount <= bytes.count / sectorSize + 1 else { throw XLSReader.damaged("more FAT sectors than the file holds") }
        var fatSectors: [Int] = []
        for index in 0..<109 where fatSectors.count < fatCount {
            fatSectors.append(try bytes.u32(0x4C + 4 * index))
        }
        var difat = try bytes.u32(0x44)
        var visited: Set<Int> = []
        while fatSectors.count < fatCount, difat < Self.endOfChain - 2 {
            guard visited.insert(difat).inserted else { throw XLSReader.damaged("a DIFAT chain that loops") }
            let start = try offset(of: difat)
            let perSector = sectorSize / 4 - 1
            for index in 0..<perSector where fatSectors.count < fatCount {
                fatSectors.append(try bytes.u32(start + 4 * index))
            }
            difat = try bytes.u32(start + 4 * perSector)
        }
        guard fatSectors.count == fatCount else { throw XLSReader.damaged("a FAT shorter than its header says") }
        var fat: [Int] = []
        fat.reserveCapacity(fatCount * sectorSize / 4)
        for sector in fatSectors {
            let start = try offset(of: sector)
            for index in 0..<(sectorSize / 4) { fat.append(try bytes.u32(start + 4 * index)) }
        }
        self.fat = fat
    }

    func offset(of sector: Int) throws(WorkbookError) -> Int {
        let start = (sector + 1) * sectorSize
        guard sector >= 0, start + sectorSize <= bytes.count || start < bytes.count else {
            throw XLSReader.damaged("a sector past the end of the file")
        }
        return start
    }

    /// The sectors of a chain starting at `first`, at most `limit` of them, checked for loops.
    func chain(_ first: Int, table: [Int], limit: Int) throws(WorkbookError) -> [Int] {
        var sectors: [Int] = []
        var sector = first
        var visited: Set<Int> = []
        while sector < Self.endOfChain - 2 {
            guard sector < table.count, visited.insert(sector).inserted, sectors.count < limit else {
                throw XLSReader.damaged("a sector chain that loops or runs off its table")
            }
            sectors.append(sector)
            sector = table[sector]
        }
        return sectors
    }

    /// A stream's bytes, from regular sectors.
    func read(start: Int, size: Int) throws(WorkbookError) -> [UInt8] {
        // No stream is larger than the file that holds it.
        guard size >= 0, size <= bytes.count else { throw XLSReader.damaged("a stream larger than the file") }
        var result: [UInt8] = []
        result.reserveCapacity(size)
        for sector in try chain(start, table: fat, limit: size / sectorSize + 2) {
            let begin = try offset(of: sector)
            let end = min(begin + sectorSize, bytes.count)
            result += bytes[begin..<end]
            if result.count >= size { break }
        }
        guard result.count >= size else { throw XLSReader.damaged("a stream shorter than its directory entry says") }
        return Array(result.prefix(size))
    }

    func workbookStream() throws(WorkbookError) -> [UInt8] {
        let directory = try read(start: try bytes.u32(0x30), size: chainLength(try bytes.u32(0x30)) * sectorSize)
        struct Entry {
            var name: String
            var type: Int
            var start: Int
            var size: Int
        }
        var entries: [Entry] = []
        for at in stride(from: 0, to: directory.count - 127, by: 128) {
            let length = min(try directory.u16(at + 0x40), 64)
            var units: [UInt16] = []
            for index in stride(from: 0, to: max(0, length - 2), by: 2) { units.append(UInt16(try directory.u16(at + index))) }
            entries.append(
                Entry(
                    name: String(decoding: units, as: UTF16.self), type: try directory.u8(at + 0x42), start: try directory.u32(at + 0x74),
                    size: try directory.u32(at + 0x78)))
        }
        guard let root = entries.first, root.type == 5 else { throw XLSReader.damaged("no root directory entry") }
        // `Workbook` (Excel 97 and later), or `Book` (Excel 5 and 95).
        guard
            let entry = entries.first(where: { $0.type == 2 && $0.name.lowercased() == "workbook" })
                ?? entries.first(where: { $0.type == 2 && $0.name.lowercased() == "book" })
        else {
            if entries.contains(where: { $0.name == "EncryptedPackage" || $0.name == "EncryptionInfo" }) {
                throw WorkbookError(
                    "the workbook is protected with a password",
                    hint: "open it, remove the password (File › Info › Protect Workbook) and save it again")
            }
            throw WorkbookError(
                "the file is an OLE compound file without a workbook (a Word or other Office file?)",
                hint: "give the XLSForm's .xls or .xlsx file")
        }
        guard entry.size <= WorkbookLimits.partBytes else {
            throw WorkbookError(
                "the workbook stream is \(entry.size) bytes", hint: "an XLSForm is a few hundred rows; check that this is the right file")
        }
        let cutoff = try bytes.u32(0x38)
        guard entry.size < cutoff else { return try read(start: entry.start, size: entry.size) }
        // A small stream lives in 64-byte mini sectors inside the root entry's stream.
        let miniStream = try read(start: root.start, size: root.size)
        let miniFatStart = try bytes.u32(0x3C)
        let miniFatBytes = try read(start: miniFatStart, size: chainLength(miniFatStart) * sectorSize)
        var miniFat: [Int] = []
        for at in stride(from: 0, to: miniFatBytes.count, by: 4) { miniFat.append(try miniFatBytes.u32(at)) }
        var result: [UInt8] = []
        for sector in try chain(entry.start, table: miniFat, limit: entry.size / miniSectorSize + 2) {
            let begin = sector * miniSectorSize
            guard begin + miniSectorSize <= miniStream.count else { throw XLSReader.damaged("a mini sector past its stream") }
            result += miniStream[begin..<begin + miniSectorSize]
        }
        guard result.count >= entry.size else { throw XLSReader.damaged("a stream shorter than its directory entry says") }
        return Array(result.prefix(entry.size))
    }

    func chainLength(_ start: Int) throws(WorkbookError) -> Int {
        try chain(start, table: fat, limit: bytes.count / sectorSize + 1).count
    }
}

/// BIFF8 records: the sheet list and shared strings of the workbook's globals, then each
/// sheet's cells.
private struct BIFF {
    let stream: [UInt8]

    init(_ stream: [UInt8]) {
        self.stream = stream
    }

    struct Record {
        var type: Int
        var offset: Int
        var data: ArraySlice<UInt8>
    }

    /// The records from `offset` to the end of the substream (EOF) or of the stream.
    func records(from offset: Int) throws(WorkbookError) -> [Record] {
        var result: [Record] = []
        var at = offset
        while at + 4 <= stream.count {
            let type = try stream.u16(at)
            let length = try stream.u16(at + 2)
            guard at + 4 + length <= stream.count else { throw XLSReader.damaged("a record past the end of the workbook") }
            result.append(Record(type: type, offset: at, data: stream[(at + 4)..<(at + 4 + length)]))
            at += 4 + length
            if type == 0x000A { break }
        }
        return result
    }

    func workbook() throws(WorkbookError) -> Workbook {
        let globals = try records(from: 0)
        guard let bof = globals.first, bof.type == 0x0809 else {
            throw WorkbookError(
                "the .xls file is from Excel 95 or older, or not a workbook", hint: "open it in Excel or LibreOffice and save it as .xlsx")
        }
        let version = try Array(bof.data).u16(0)
        guard version == 0x0600 || version == 0x0500 else {
            throw WorkbookError(
                "the .xls file is from Excel 4 or older, which Intake does not read",
                hint: "open it in Excel or LibreOffice and save it as .xlsx")
        }
        // Excel 5 and 95 (BIFF5) write texts as bytes of the workbook's code page, without the
        // flags byte of BIFF8's; everything else an XLSForm uses is the same.
        var encoding = String.Encoding.windowsCP1252
        if version == 0x0500, let codepage = globals.first(where: { $0.type == 0x0042 }) {
            switch try Array(codepage.data).u16(0) {
            case 10000, 0x8000: encoding = .macOSRoman
            case 1250: encoding = .windowsCP1250
            case 1251: encoding = .windowsCP1251
            case 1253: encoding = .windowsCP1253
            case 1254: encoding = .windowsCP1254
            case 437, 850: encoding = .isoLatin1
            default: encoding = .windowsCP1252
            }
        }
        let bytesOnly: String.Encoding? = version == 0x0500 ? encoding : nil
        if globals.contains(where: { $0.type == 0x002F }) {
            throw WorkbookError("the workbook is protected with a password", hint: "open it, remove the password and save it again")
        }
        var sheets: [(name: String, offset: Int)] = []
        var strings: [String] = []
        for (index, record) in globals.enumerated() {
            let data = Array(record.data)
            switch record.type {
            case 0x0085:  // BOUNDSHEET8: a worksheet (dt 0) and where its records begin
                guard try data.u8(5) == 0 else { continue }
                var reader = StringReader(segments: [data], at: 6, bytesOnly: bytesOnly)
                let name = try reader.string(count: try data.u8(6), lengthBytes: 1)
                sheets.append((name, try data.u32(0)))
            case 0x00FC:  // SST, continued by the CONTINUE records after it
                var segments = [Array(data.dropFirst(8))]
                for next in globals[(index + 1)...] {
                    guard next.type == 0x003C else { break }
                    segments.append(Array(next.data))
                }
                let unique = try data.u32(4)
                var reader = StringReader(segments: segments, at: 0)
                strings.reserveCapacity(min(unique, 1_000_000))
                for _ in 0..<min(unique, 1_000_000) {
                    guard !reader.atEnd else { break }
                    strings.append(try reader.richString())
                }
            default: continue
            }
        }
        var result: [Sheet] = []
        var read: Set<String> = []
        for (name, offset) in sheets {
            // Only the sheets an XLSForm has are read (once each); the others are named.
            guard Workbook.formSheets.contains(name.lowercased()), read.insert(name.lowercased()).inserted else {
                result.append(Sheet(name: name, rows: []))
                continue
            }
            guard offset < stream.count else { throw XLSReader.damaged("the sheet '\(name)' begins past the end of the workbook") }
            result.append(try sheet(name, from: offset, strings: strings, bytesOnly: bytesOnly))
        }
        return Workbook(sheets: result)
    }

    func sheet(_ name: String, from offset: Int, strings: [String], bytesOnly: String.Encoding?) throws(WorkbookError) -> Sheet {
        var cells: [Int: [Int: String]] = [:]
        var formulas: [String] = []
        var count = 0
        var pendingString: (row: Int, column: Int)?
        func put(_ row: Int, _ column: Int, _ text: String) throws(WorkbookError) {
            guard row < WorkbookLimits.rowsPerSheet else {
                guard text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw WorkbookError(
                        "the sheet '\(name)' has more than \(WorkbookLimits.rowsPerSheet) rows",
                        hint: "an XLSForm is a few hundred rows; check that this is the right file")
                }
                return
            }
            guard column < WorkbookLimits.columnsPerSheet else {
                guard text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw WorkbookError(
                        "the sheet '\(name)' has a cell in column \(ColumnName.letters(column)), beyond the \(WorkbookLimits.columnsPerSheet) columns an XLSForm may use",
                        hint: "delete the columns on the right that hold nothing of the form")
                }
                return
            }
            count += 1
            guard count <= WorkbookLimits.cells else {
                throw WorkbookError(
                    "the sheet '\(name)' has more than \(WorkbookLimits.cells) cells",
                    hint: "an XLSForm is a few hundred rows; delete the rows and columns that hold nothing of the form")
            }
            cells[row, default: [:]][column] = text
        }
        let records = try records(from: offset)
        for record in records.dropFirst() {
            let data = Array(record.data)
            switch record.type {
            case 0x00FD:  // LABELSST
                let index = try data.u32(6)
                guard index < strings.count else { throw XLSReader.damaged("a cell pointing at a shared string the file does not have") }
                try put(try data.u16(0), try data.u16(2), strings[index])
            case 0x0204, 0x00D6:  // LABEL, RSTRING
                var reader = StringReader(segments: [data], at: 6, bytesOnly: bytesOnly)
                try put(try data.u16(0), try data.u16(2), try reader.string(count: try data.u16(6), lengthBytes: 2))
            case 0x0203:  // NUMBER
                try put(try data.u16(0), try data.u16(2), Self.number(try data.f64(6)))
            case 0x027E:  // RK
                try put(try data.u16(0), try data.u16(2), Self.number(Self.rk(try data.u32(6))))
            case 0x00BD:  // MULRK
                let row = try data.u16(0)
                let first = try data.u16(2)
                for index in 0..<max(0, (data.count - 6) / 6) {
                    try put(row, first + index, Self.number(Self.rk(try data.u32(4 + 6 * index + 2))))
                }
            case 0x0205:  // BOOLERR
                if try data.u8(7) == 0 { try put(try data.u16(0), try data.u16(2), try data.u8(6) == 1 ? "TRUE" : "FALSE") }
            case 0x0006:  // FORMULA: its saved value
                let row = try data.u16(0)
                let column = try data.u16(2)
                formulas.append("\(ColumnName.letters(column))\(row + 1)")
                if try data.u16(12) == 0xFFFF {
                    switch try data.u8(6) {
                    case 0: pendingString = (row, column)  // the STRING record after it
                    case 1: try put(row, column, try data.u8(8) == 1 ? "TRUE" : "FALSE")
                    default: break
                    }
                } else {
                    try put(row, column, Self.number(try data.f64(6)))
                }
            case 0x0207:  // STRING: a formula's text value
                if let (row, column) = pendingString {
                    var reader = StringReader(segments: [data], at: 0, bytesOnly: bytesOnly)
                    try put(row, column, try reader.string(count: try data.u16(0), lengthBytes: 2))
                    pendingString = nil
                }
            default: continue
            }
        }
        let rows = cells.keys.sorted().map { number in
            let row = cells[number]!
            var values = Array(repeating: "", count: (row.keys.max() ?? -1) + 1)
            for (column, text) in row { values[column] = text }
            return Sheet.Row(number: number + 1, cells: values)
        }
        return Sheet(name: name, rows: rows, formulas: formulas)
    }

    /// An RK number: a 30-bit integer or the top of a double, perhaps to be divided by 100.
    static func rk(_ value: Int) -> Double {
        let raw = UInt32(truncatingIfNeeded: value)
        var number: Double
        if raw & 2 != 0 {
            number = Double(Int32(bitPattern: raw) >> 2)
        } else {
            number = Double(bitPattern: UInt64(raw & 0xFFFF_FFFC) << 32)
        }
        if raw & 1 != 0 { number /= 100 }
        return number
    }

    /// A number as a person typed it: `7` for 7.0, as the .xlsx reader writes it.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// Reads BIFF8 strings across record boundaries: where a string's characters run into the next
/// CONTINUE record, that record begins with a new flags byte saying how they are stored.
private struct StringReader {
    let segments: [[UInt8]]
    var segment = 0
    var at: Int
    /// BIFF5: texts are bytes in this encoding, with no flags byte.
    let bytesOnly: String.Encoding?

    init(segments: [[UInt8]], at: Int, bytesOnly: String.Encoding? = nil) {
        self.segments = segments
        self.at = at
        self.bytesOnly = bytesOnly
    }

    var atEnd: Bool {
        var segment = segment
        var at = at
        while segment < segments.count, at >= segments[segment].count {
            segment += 1
            at = 0
        }
        return segment >= segments.count
    }

    mutating func byte() throws(WorkbookError) -> Int {
        while segment < segments.count, at >= segments[segment].count {
            segment += 1
            at = 0
        }
        guard segment < segments.count else { throw XLSReader.damaged("a text past the end of its record") }
        defer { at += 1 }
        return Int(segments[segment][at])
    }

    mutating func skip(_ count: Int) throws(WorkbookError) {
        guard count >= 0 else { throw XLSReader.damaged("a negative length") }
        var left = count
        while left > 0 {
            while segment < segments.count, at >= segments[segment].count {
                segment += 1
                at = 0
            }
            guard segment < segments.count else { throw XLSReader.damaged("a text past the end of its record") }
            let step = min(left, segments[segment].count - at)
            at += step
            left -= step
        }
    }

    /// `count` characters, stored as bytes or UTF-16 as `flags` bit 0 says, re-reading the
    /// flags at each record boundary.
    mutating func characters(_ count: Int, flags: Int) throws(WorkbookError) -> String {
        guard count <= WorkbookLimits.cellCharacters else { throw XLSReader.damaged("a text longer than Excel's 32,767 characters") }
        var units: [UInt16] = []
        units.reserveCapacity(count)
        var wide = flags & 1 != 0
        while units.count < count {
            if at >= segments[min(segment, segments.count - 1)].count {
                // The characters continue in the next record, after a flags byte of their own.
                segment += 1
                at = 0
                guard segment < segments.count else { throw XLSReader.damaged("a text past the end of its record") }
                wide = try byte() & 1 != 0
            }
            if wide {
                let low = try byte()
                let high = try byte()
                units.append(UInt16(low | high << 8))
            } else {
                units.append(UInt16(try byte()))
            }
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// A ShortXLUnicodeString or XLUnicodeString: length (1 or 2 bytes, already read by the
    /// caller when `count` is given), flags, characters.
    mutating func string(count: Int, lengthBytes: Int) throws(WorkbookError) -> String {
        try skip(lengthBytes)
        if let encoding = bytesOnly {
            guard count <= WorkbookLimits.cellCharacters else { throw XLSReader.damaged("a text longer than Excel's 32,767 characters") }
            var bytes: [UInt8] = []
            for _ in 0..<count { bytes.append(UInt8(try byte())) }
            return String(bytes: bytes, encoding: encoding) ?? String(decoding: bytes, as: UTF8.self)
        }
        let flags = try byte()
        return try characters(count, flags: flags)
    }

    /// An XLUnicodeRichExtendedString of the SST: length, flags, run and phonetic counts, the
    /// characters, then the runs and phonetic data (skipped).
    mutating func richString() throws(WorkbookError) -> String {
        let count = try byte() | byte() << 8
        let flags = try byte()
        var runs = 0
        var extended = 0
        if flags & 0x08 != 0 { runs = try byte() | byte() << 8 }
        if flags & 0x04 != 0 {
            extended = try byte() | byte() << 8 | byte() << 16 | byte() << 24
        }
        let text = try characters(count, flags: flags)
        try skip(4 * runs)
        try skip(extended)
        return text
    }
}
