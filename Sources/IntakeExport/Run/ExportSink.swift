import Foundation

/// Where an export's text goes: a file, or an HTTP response body.
public protocol ExportSink: AnyObject {
    func write(_ bytes: [UInt8]) async throws
    /// Called once after the last write.
    func close() async throws
}

/// Writes to a file through a buffer, so the file grows in large writes and memory stays flat.
public final class FileSink: ExportSink {
    private let handle: FileHandle
    private var buffer = Data()
    private let limit = 1 << 18

    /// Creates (or empties) the file at `url`, readable by its owner only.
    public init(url: URL) throws {
        handle = try Self.ownerOnlyFile(url)
    }

    /// Creates (or empties) the file at `url`, readable by its owner only, open for writing:
    /// every file an export writes (and the spools it keeps beside them) is made here.
    static func ownerOnlyFile(_ url: URL) throws(ExportError) -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: url.path)
        else { throw ExportError("cannot create \(url.path); check that its folder exists and is writable") }
        return handle
    }

    public func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= limit { try flush() }
    }

    private func flush() throws {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    public func close() throws {
        try flush()
        try handle.synchronize()
        try handle.close()
    }
}
