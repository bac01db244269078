import Crypto
import Foundation
import IntakeCore
import Synchronization

/// The files records' answers name, in a folder beside the database.
///
/// A device uploads a file before the record that names it, into its team's uploads
/// (`uploads/<team>/<sha256>`), a chunk at a time into `<sha256>.partial` so that an upload cut
/// off resumes where it stopped; the last chunk is checked against the name and by its bytes,
/// then renamed into place. When the record is stored, its files are linked into the record's
/// own folder (`records/<record id>/<sha256>`), which goes with the record when it is deleted.
/// Files are kept per record, not shared between records, so deleting one record never takes a
/// file another still names; uploads no record took are removed after a week.
public final class AttachmentStore: Sendable {
    public let folder: URL
    /// One writer at a time in this process (uploads of one file from two connections).
    private let lock = Mutex(())

    public init(folder: URL) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    public enum State: Sendable, Equatable {
        /// Stored whole: its size and type.
        case complete(size: Int, mediaType: String)
        /// Partly received: how many bytes so far (0: nothing yet).
        case partial(received: Int)
    }

    public enum UploadError: Error, Equatable, Sendable {
        /// The chunk does not start where the upload stands.
        case wrongOffset(received: Int)
        case tooLarge
        /// The bytes do not hash to the name they were sent under (the partial upload is dropped).
        case digestMismatch
        /// Not a file type Intake takes (the partial upload is dropped).
        case unknownType
    }

    private func recordFolder(_ record: UUID) -> URL {
        folder.appendingPathComponent("records", isDirectory: true).appendingPathComponent(
            record.uuidString.lowercased(), isDirectory: true)
    }
    private func uploads(_ team: Int64) -> URL {
        folder.appendingPathComponent("uploads", isDirectory: true).appendingPathComponent(String(team), isDirectory: true)
    }
    private func file(_ record: UUID, _ sha256: String) -> URL { recordFolder(record).appendingPathComponent(sha256) }
    private func upload(_ team: Int64, _ sha256: String) -> URL { uploads(team).appendingPathComponent(sha256) }

    /// How far the team's upload of a file has come. An upload whose bytes all arrived but was
    /// not finished (the server stopped between the last write and the rename) is finished here.
    public func uploadState(team: Int64, sha256: String) -> State {
        let state = Self.state(of: upload(team, sha256))
        guard case .partial(let received) = state, received > 0 else { return state }
        return lock.withLock { _ in
            let path = upload(team, sha256).appendingPathExtension("partial")
            guard let whole = try? Data(contentsOf: path), SHA256.hash(data: whole).hex == sha256, AttachmentType.sniff(whole) != nil,
                (try? FileManager.default.moveItem(at: path, to: upload(team, sha256))) != nil
            else { return Self.state(of: upload(team, sha256)) }
            return Self.state(of: upload(team, sha256))
        }
    }

    /// Whether the file is there for a record: in its folder, or whole in the team's uploads.
    public func isAvailable(_ ref: AttachmentRef, record: UUID, team: Int64) -> Bool {
        holds(ref, record: record) || Self.state(of: upload(team, ref.sha256)) == .complete(size: ref.size, mediaType: ref.mediaType)
    }

    /// Removes the team's uploads of these files (their record was deleted).
    public func removeUploads(team: Int64, sha256s: [String]) {
        for sha256 in sha256s where AttachmentRef.isDigest(sha256) {
            try? FileManager.default.removeItem(at: upload(team, sha256))
            try? FileManager.default.removeItem(at: upload(team, sha256).appendingPathExtension("partial"))
        }
    }

    private static func state(of file: URL) -> State {
        let manager = FileManager.default
        if let size = (try? manager.attributesOfItem(atPath: file.path))?[.size] as? Int {
            let head = (try? FileHandle(forReadingFrom: file).read(upToCount: 16)) ?? Data()
            return .complete(size: size, mediaType: AttachmentType.sniff(head)?.mediaType ?? "application/octet-stream")
        }
        let received = (try? manager.attributesOfItem(atPath: file.path + ".partial"))?[.size] as? Int ?? 0
        return .partial(received: received)
    }

    /// Whether the record's folder holds the file whole, with this size and type.
    public func holds(_ ref: AttachmentRef, record: UUID) -> Bool {
        Self.state(of: file(record, ref.sha256)) == .complete(size: ref.size, mediaType: ref.mediaType)
    }

    /// Links the team's upload of the file into the record's folder; whether the record now holds it.
    public func adopt(_ ref: AttachmentRef, record: UUID, team: Int64) -> Bool {
        if holds(ref, record: record) { return true }
        let source = upload(team, ref.sha256)
        guard Self.state(of: source) == .complete(size: ref.size, mediaType: ref.mediaType) else { return false }
        let manager = FileManager.default
        let target = file(record, ref.sha256)
        do {
            try manager.createDirectory(at: recordFolder(record), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // A damaged file in the record's folder is replaced, not kept.
            if manager.fileExists(atPath: target.path) { try manager.removeItem(at: target) }
            do {
                try manager.linkItem(at: source, to: target)
            } catch {
                // Another file system: a copy, made whole beside the target and renamed.
                let staged = target.appendingPathExtension(UUID().uuidString + ".partial")
                try manager.copyItem(at: source, to: staged)
                try manager.moveItem(at: staged, to: target)
            }
        } catch {
            return holds(ref, record: record)
        }
        return holds(ref, record: record)
    }

    /// Adds `bytes` at `offset` of the team's upload of a file of `total` bytes; the state after.
    public func append(team: Int64, sha256: String, offset: Int, total: Int, bytes: Data) throws -> State {
        try lock.withLock { _ in
            // (Not uploadState, which takes this lock itself.)
            if case .complete(let size, let type) = Self.state(of: upload(team, sha256)) { return .complete(size: size, mediaType: type) }
            guard total <= AttachmentKind.largest, offset + bytes.count <= total else { throw UploadError.tooLarge }
            let manager = FileManager.default
            try manager.createDirectory(at: uploads(team), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            if offset == 0 { sweep(team: team) }
            let path = upload(team, sha256).appendingPathExtension("partial")
            let received = (try? manager.attributesOfItem(atPath: path.path))?[.size] as? Int ?? 0
            guard offset == received else { throw UploadError.wrongOffset(received: received) }
            if received == 0 { _ = manager.createFile(atPath: path.path, contents: nil, attributes: [.posixPermissions: 0o600]) }
            // Another server on the same folder may finish or drop this upload meanwhile: then
            // the client is told where it stands (409), never a server error.
            func standing() -> UploadError {
                if case .partial(let now) = Self.state(of: upload(team, sha256)) { return .wrongOffset(received: now) }
                return .wrongOffset(received: total)
            }
            do {
                let handle = try FileHandle(forWritingTo: path)
                try handle.seek(toOffset: UInt64(offset))
                try handle.write(contentsOf: bytes)
                try handle.synchronize()
                try handle.close()
            } catch {
                throw standing()
            }
            guard offset + bytes.count == total else { return .partial(received: offset + bytes.count) }
            // Whole: checked, then renamed into place (a file in place is always whole and right).
            guard let whole = try? Data(contentsOf: path) else {
                if case .complete(let size, let type) = Self.state(of: upload(team, sha256)) {
                    return .complete(size: size, mediaType: type)
                }
                throw standing()
            }
            guard SHA256.hash(data: whole).hex == sha256 else {
                try? manager.removeItem(at: path)
                throw UploadError.digestMismatch
            }
            guard let type = AttachmentType.sniff(whole) else {
                try? manager.removeItem(at: path)
                throw UploadError.unknownType
            }
            if (try? manager.moveItem(at: path, to: upload(team, sha256))) == nil,
                Self.state(of: upload(team, sha256)) != .complete(size: whole.count, mediaType: type.mediaType)
            {
                throw standing()
            }
            return .complete(size: whole.count, mediaType: type.mediaType)
        }
    }

    /// The bytes of a stored file, nil when the record's folder does not hold it whole.
    public func read(record: UUID, sha256: String) -> Data? {
        guard AttachmentRef.isDigest(sha256) else { return nil }
        return try? Data(contentsOf: file(record, sha256))
    }

    /// How long an upload no record took is kept.
    public static let uploadLifetime: TimeInterval = 7 * 86_400

    /// Removes the team's uploads older than ``uploadLifetime`` (their records never came, or
    /// took them long ago).
    private func sweep(team: Int64, now: Date = Date()) {
        let manager = FileManager.default
        let folder = uploads(team)
        for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let url = folder.appendingPathComponent(name)
            guard let modified = (try? manager.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > Self.uploadLifetime
            else { continue }
            try? manager.removeItem(at: url)
        }
    }

    /// Removes a record's files (it was deleted); whether there were any.
    @discardableResult public func remove(record: UUID) -> Bool {
        (try? FileManager.default.removeItem(at: recordFolder(record))) != nil
    }
}
