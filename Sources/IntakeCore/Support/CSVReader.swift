import Foundation

/// RFC 4180 CSV: fields separated by commas, quoted with `"` (a quote inside doubled), records
/// ended by LF or CRLF, line breaks allowed inside quotes. A byte order mark is skipped. Read
/// for rosters (`intake patient import`) and REDCap imports.
package enum CSVReader {
    package struct Failure: Error, Equatable {
        /// 1-based line where the problem was found.
        package var line: Int
        package var message: String
    }

    /// Each record with the line it starts on; blank lines are skipped.
    package static func records(_ text: String) throws(Failure) -> [(line: Int, fields: [String])] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var afterQuote = false
        var line = 1
        var start = 1
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var index = 0
        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((start, fields)) }
            fields = []
            field = ""
        }
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if quoted {
                if scalar == "\"" {
                    if index < scalars.count, scalars[index] == "\"" {
                        field.unicodeScalars.append("\"")
                        index += 1
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                fields.append(field)
                field = ""
                afterQuote = false
            case "\r" where index < scalars.count && scalars[index] == "\n":
                continue
            case "\n", "\r":
                endRecord()
                afterQuote = false
                line += 1
                start = line
            case "\"":
                guard field.isEmpty, !afterQuote else {
                    throw Failure(
                        line: line, message: "a quote inside an unquoted field; quote the whole field and double the quote (\"\")")
                }
                quoted = true
            default:
                guard !afterQuote else { throw Failure(line: line, message: "text after a closing quote; put the whole field in quotes") }
                field.unicodeScalars.append(scalar)
            }
        }
        guard !quoted else { throw Failure(line: start, message: "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        return records
    }
}
