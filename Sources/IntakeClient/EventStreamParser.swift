import Foundation

/// One Server-Sent Event: its id, its name and its data (data lines joined by line breaks).
public struct ServerEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: String
}

/// Reads a `text/event-stream` as it arrives, in any pieces: lines end with LF, CRLF or CR; a
/// blank line ends an event; `:` lines are comments (keep-alives); an event without data is
/// dropped, as the HTML standard says.
struct EventStreamParser {
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var id: String?
    private var event: String?
    private var data: [String] = []

    /// The events that `bytes` completes.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerEvent] {
        var events: [ServerEvent] = []
        for byte in bytes {
            if lastWasCR {
                lastWasCR = false
                if byte == 10 { continue }
            }
            switch byte {
            case 10, 13:
                lastWasCR = byte == 13
                if let event = endLine() { events.append(event) }
            default: line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            defer { (id, event, data) = (nil, nil, []) }
            return data.isEmpty ? nil : ServerEvent(id: id, event: event, data: data.joined(separator: "\n"))
        }
        guard line[0] != UInt8(ascii: ":") else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        var field = text, value = ""
        if let colon = text.firstIndex(of: ":") {
            field = String(text[..<colon])
            value = String(text[text.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
        }
        switch field {
        case "id": id = value
        case "event": event = value
        case "data": data.append(value)
        default: break
        }
        return nil
    }
}
