import Foundation
import IntakeCore

/// Reads a JSON Lines file of records a line at a time, in 1 MB reads.
public final class JSONLinesReader {
    public let url: URL
    private let handle: FileHandle
    /// Bytes read but not yet returned start at `position`.
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// The 1-based number of the last line returned.
    public private(set) var lineNumber = 0

    public init(url: URL) throws(ExportError) {
        self.url = url
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ExportError("cannot read \(url.path): \((error as NSError).localizedDescription); check the path")
        }
    }

    deinit { try? handle.close() }

    /// The next non-blank line, or nil at the end of the file.
    public func nextLine() throws -> Data? {
        while true {
            let start = position
            let newline = buffer.withUnsafeBufferPointer { bytes -> Int? in
                guard start < bytes.count, let base = bytes.baseAddress,
                    let found = memchr(base + start, 10, bytes.count - start)
                else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            if let newline {
                position = newline + 1
                lineNumber += 1
                if Self.isBlank(buffer[start..<newline]) { continue }
                return Data(buffer[start..<newline])
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                position = buffer.count
                lineNumber += 1
                return Self.isBlank(buffer[start...]) ? nil : Data(buffer[start...])
            }
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            buffer.removeFirst(start)
            position = 0
            if chunk.isEmpty { atEnd = true } else { buffer.append(contentsOf: chunk) }
        }
    }

    private static func isBlank(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 32 || $0 == 9 || $0 == 13 }
    }

    /// Up to `limit` records, or nil at the end. A line that is not a record stops the export
    /// with its line number (never its content, which may identify a patient).
    public func nextPage(limit: Int = 500) throws(ExportError) -> [ExportRecord]? {
        var page: [ExportRecord] = []
        while page.count < limit {
            let line: Data?
            do {
                line = try nextLine()
            } catch {
                throw ExportError("cannot read \(url.path): \((error as NSError).localizedDescription)")
            }
            guard let line else { break }
            do {
                page.append(try ExportRecord(jsonLine: line))
            } catch {
                throw ExportError(
                    "\(url.lastPathComponent):\(lineNumber): not a record in the documented format (\(Self.reason(error))); fix or remove that line"
                )
            }
        }
        return page.isEmpty ? nil : page
    }

    /// Every questionnaire version the file's records name, in order of first appearance, and
    /// how many records it holds.
    public static func references(in url: URL) throws(ExportError) -> (references: [QuestionnaireReference], records: Int) {
        let reader = try JSONLinesReader(url: url)
        var seen: [QuestionnaireReference] = []
        var known = Set<QuestionnaireReference>()
        var records = 0
        while true {
            let line: Data?
            do { line = try reader.nextLine() } catch {
                throw ExportError("cannot read \(url.path): \((error as NSError).localizedDescription)")
            }
            guard let line else { break }
            guard let reference = Self.questionnaire(in: line) else {
                throw ExportError(
                    "\(url.lastPathComponent):\(reader.lineNumber): not a record in the documented format (no questionnaire id and version); fix or remove that line"
                )
            }
            if known.insert(reference).inserted { seen.append(reference) }
            records += 1
        }
        return (seen, records)
    }

    /// The record's questionnaire reference, read without reading the rest of the record.
    static func questionnaire(in line: Data) -> QuestionnaireReference? {
        try? JSONReader.document(line) { reader throws(JSONReadError) -> QuestionnaireReference? in
            var reference: QuestionnaireReference?
            try reader.object { key, reader throws(JSONReadError) in
                guard key == "questionnaire" else {
                    try reader.skipValue()
                    return
                }
                var id: String?
                var version: String?
                try reader.object { key, reader throws(JSONReadError) in
                    switch key {
                    case "id": id = try reader.string()
                    case "version": version = try reader.string()
                    default: try reader.skipValue()
                    }
                }
                reference = id.flatMap { id in version.map { QuestionnaireReference(id: id, version: $0) } }
            }
            return reference
        } ?? nil
    }

    /// Why decoding failed, without any value from the line.
    static func reason(_ error: any Error) -> String {
        if let error = error as? JSONReadError { return error.description }
        return "not a record"
    }
}
