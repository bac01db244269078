import Foundation

// Why a writer of our own: a Stata 118 file is a short, documented layout (Stata's `help dta`:
// tagged sections, a map of their offsets, fixed-width fields), so Swift writes it with no C
// library to install and link (ReadStat, libreadstat-dev, would be the other way). pyreadstat
// (ReadStat) reads what this writes: see scripts/stats-files.py and the round-trip test.

/// Writes a ``StatisticsTable`` as a Stata 118 dataset (`records.dta`, Stata 14 and later):
/// little-endian, UTF-8 names and labels, variable labels, value labels on whole-number
/// variables (Stata labels nothing else, so a text single-choice column has none here).
///
/// Types: 0/1 columns and whole-number choice codes are `long` with a value label; integers and
/// decimals `double`; dates `long` days since 1960-01-01 shown `%td`; text `strN` up to 2,045
/// bytes and `strL` beyond. An empty cell (not asked) is `.` (or an empty string); "asked, not
/// answered" is `.a` in a numeric variable and the unanswered code in a text one. Variable
/// labels are cut to Stata's 80 characters (the codebook keeps the whole text).
struct DTAWriter {
    var table: StatisticsTable
    /// The time stamp in the header.
    var date: Date

    static let maxStrN = 2045
    static let strL: UInt16 = 32768
    static let double: UInt16 = 65526
    static let long: UInt16 = 65528
    /// `.` and `.a` of a double, and of a long.
    static let doubleMissing: UInt64 = 0x7FE0_0000_0000_0000
    static let doubleUnanswered: UInt64 = 0x7FE0_0100_0000_0000
    static let longMissing: Int32 = 0x7FFF_FFE5
    static let longUnanswered: Int32 = 0x7FFF_FFE6
    /// Stata's days from 1960-01-01 to 1970-01-01.
    static let days1960to1970 = 3653

    private struct Layout {
        var variable: StatisticsVariable
        var name: String
        var type: UInt16
        var format: String
        var labelSet: String?
    }

    /// Stata 118 counts variables in 2 bytes, and holds at most 32,767.
    static let maxVariables = 32_767

    /// Writes the file at `url`, readable by its owner only, a row of the table at a time (and
    /// the long texts, `strL`s, in a second pass over the rows).
    func write(to url: URL) throws {
        guard table.variables.count <= Self.maxVariables else {
            throw ExportError(
                "records.dta cannot hold \(table.variables.count) columns (Stata's limit is \(Self.maxVariables)); export fewer "
                    + "repeat columns (--repeat-columns), or leave the file out with --format")
        }
        let names = StatisticsNames.stata(table.variables.map(\.column))
        let layouts = zip(table.variables, names).map { variable, name -> Layout in
            switch variable.kind {
            case .indicator, .code:
                return Layout(
                    variable: variable, name: name, type: Self.long, format: "%8.0g", labelSet: variable.numberLabels.isEmpty ? nil : name)
            case .integer: return Layout(variable: variable, name: name, type: Self.double, format: "%12.0g")
            case .number: return Layout(variable: variable, name: name, type: Self.double, format: "%10.0g")
            case .date: return Layout(variable: variable, name: name, type: Self.long, format: "%td")
            case .text:
                let width = variable.textWidth(unansweredCode: table.unansweredCode)
                return width <= Self.maxStrN
                    ? Layout(variable: variable, name: name, type: UInt16(width), format: "%-\(min(width, 244))s")
                    : Layout(variable: variable, name: name, type: Self.strL, format: "%9s")
            }
        }
        var offsets: [UInt64] = []
        var out = try ByteWriter(file: url)
        func open(_ tag: String) {
            offsets.append(UInt64(out.position))
            out.text("<\(tag)>")
        }
        out.text("<stata_dta>")
        offsets.append(0)
        out.text("<header><release>118</release><byteorder>LSF</byteorder><K>")
        out.int16(UInt16(clamping: layouts.count))
        out.text("</K><N>")
        out.uint64(UInt64(table.rowCount))
        out.text("</N><label>")
        let label = Array(table.fileLabel.truncated(bytes: 320, characters: 80).utf8)
        out.int16(UInt16(label.count))
        out.bytes(label)
        out.text("</label><timestamp>")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd MMM yyyy HH:mm"
        let stamp = Array(formatter.string(from: date).utf8)
        out.byte(UInt8(stamp.count))
        out.bytes(stamp)
        out.text("</timestamp></header>")
        // The map: the offset of each section, filled in at the end.
        open("map")
        let mapStart = out.position
        out.zeros(14 * 8)
        out.text("</map>")
        open("variable_types")
        for layout in layouts { out.int16(layout.type) }
        out.text("</variable_types>")
        open("varnames")
        for layout in layouts { out.nulPadded(layout.name, 129) }
        out.text("</varnames>")
        open("sortlist")
        out.zeros((layouts.count + 1) * 2)
        out.text("</sortlist>")
        open("formats")
        for layout in layouts { out.nulPadded(layout.format, 57) }
        out.text("</formats>")
        open("value_label_names")
        for layout in layouts { out.nulPadded(layout.labelSet ?? "", 129) }
        out.text("</value_label_names>")
        open("variable_labels")
        for layout in layouts { out.nulPadded(layout.variable.label.truncated(bytes: 320, characters: 80).trimmingTrailingSpaces, 321) }
        out.text("</variable_labels>")
        open("characteristics")
        out.text("</characteristics>")
        open("data")
        // strL values go in <strls>, each named by its variable and observation (both from 1).
        var row = 0
        try table.rows.forEachRow { cells in
            for (column, (layout, cell)) in zip(layouts, cells).enumerated() {
                let value = layout.variable.value(cell)
                switch layout.type {
                case Self.double:
                    switch value {
                    case .number(let number): out.double(number)
                    case .unanswered: out.uint64(Self.doubleUnanswered)
                    case .empty, .text: out.uint64(Self.doubleMissing)
                    }
                case Self.long:
                    switch value {
                    case .number(let number):
                        out.int32(Int32(layout.variable.kind == .date ? Int(number) + Self.days1960to1970 : Int(number)))
                    case .unanswered: out.int32(Self.longUnanswered)
                    case .empty, .text: out.int32(Self.longMissing)
                    }
                case Self.strL:
                    // (v, o): v in the low 2 bytes, o in the high 6.
                    out.uint64(table.textBytes(value).isEmpty ? 0 : UInt64(column + 1) | UInt64(row + 1) << 16)
                default:
                    let bytes = table.textBytes(value)
                    let width = Int(layout.type)
                    out.bytes.append(contentsOf: bytes.prefix(width))
                    out.zeros(width - min(width, bytes.count))
                }
            }
            row += 1
            try out.flushIfFull()
        }
        out.text("</data>")
        open("strls")
        let strLs = layouts.indices.filter { layouts[$0].type == Self.strL }
        if !strLs.isEmpty {
            row = 0
            try table.rows.forEachRow { cells in
                for column in strLs {
                    let bytes = table.textBytes(layouts[column].variable.value(cells[column]))
                    guard !bytes.isEmpty else { continue }
                    out.text("GSO")
                    out.uint32(UInt32(column + 1))
                    out.uint64(UInt64(row + 1))
                    out.byte(130)  // text, with a closing NUL
                    out.uint32(UInt32(bytes.count + 1))
                    out.bytes(bytes)
                    out.byte(0)
                }
                row += 1
                try out.flushIfFull()
            }
        }
        out.text("</strls>")
        open("value_labels")
        for layout in layouts {
            guard let set = layout.labelSet else { continue }
            let labels = layout.variable.numberLabels.sorted { $0.value < $1.value }
            var text: [UInt8] = []
            var starts: [Int32] = []
            for (_, label) in labels {
                starts.append(Int32(text.count))
                text += Array(label.truncated(bytes: 32_000).utf8) + [0]
            }
            out.text("<lbl>")
            out.int32(Int32(8 + 8 * labels.count + text.count))
            out.nulPadded(set, 129)
            out.zeros(3)
            out.int32(Int32(labels.count))
            out.int32(Int32(text.count))
            for start in starts { out.int32(start) }
            for (value, _) in labels { out.int32(Int32(value)) }
            out.bytes(text)
            out.text("</lbl>")
        }
        out.text("</value_labels>")
        offsets.append(UInt64(out.position))
        out.text("</stata_dta>")
        offsets.append(UInt64(out.position))
        var map = ByteWriter()
        for offset in offsets { map.uint64(offset) }
        try out.overwrite(at: mapStart, with: map.bytes)
        try out.close()
    }
}
