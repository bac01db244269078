import Crypto
import Foundation

/// A file answering a photo, audio, document or signature question, named by its content: the
/// record holds its SHA-256, size and media type (record format 2); the bytes travel beside it,
/// sealed in the field worker's store, uploaded to the server before the record, and kept there
/// under the record.
public struct AttachmentRef: Hashable, Sendable, Codable {
    /// The SHA-256 of the bytes, 64 lower-case hex digits.
    public var sha256: String
    public var size: Int
    /// The type found in the bytes themselves (never the file name's extension).
    public var mediaType: String

    public init(sha256: String, size: Int, mediaType: String) {
        self.sha256 = sha256
        self.size = size
        self.mediaType = mediaType
    }

    /// The reference to `bytes`, when their type is one Intake takes.
    public init?(bytes: some DataProtocol) {
        guard let type = AttachmentType.sniff(bytes) else { return nil }
        self.init(sha256: SHA256.hash(data: Data(bytes)).hex, size: bytes.count, mediaType: type.mediaType)
    }

    /// `3f2a…c9.jpg`: the name the file has in an export folder.
    public var fileName: String { sha256 + "." + (AttachmentType(mediaType: mediaType)?.fileExtension ?? "bin") }

    /// Whether `text` is a SHA-256 as references write it.
    public static func isDigest(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// Why the reference is not one a record may hold, or nil.
    public var problem: String? {
        if !Self.isDigest(sha256) { return "the attachment's sha256 is not 64 lower-case hex digits" }
        if size < 1 { return "the attachment is empty" }
        if size > AttachmentKind.largest { return "the attachment is larger than \(AttachmentKind.describe(AttachmentKind.largest))" }
        if AttachmentType(mediaType: mediaType) == nil {
            return
                "the attachment's media type '\(mediaType.prefix(60))' is not one Intake takes (\(AttachmentType.allCases.map(\.mediaType).joined(separator: ", ")))"
        }
        return nil
    }
}

/// What a file question asks for, and how large a file it takes.
public enum AttachmentKind: String, Sendable, Hashable, CaseIterable {
    case photo, audio, document, signature

    /// The file types each kind takes, found by the bytes.
    public var types: [AttachmentType] {
        switch self {
        case .photo: [.jpeg, .png, .webp]
        case .signature: [.png, .jpeg]
        case .document: [.pdf, .jpeg, .png]
        case .audio: [.mp3, .m4a, .ogg, .wav]
        }
    }

    /// The largest file each kind takes.
    public var maxBytes: Int {
        switch self {
        case .photo: 10 << 20
        case .signature: 2 << 20
        case .document: 10 << 20
        case .audio: 20 << 20
        }
    }

    /// The largest file any question takes: what the server accepts before it knows the question.
    public static let largest = 20 << 20

    /// `10 MB`.
    public static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(max(1, bytes >> 10)) KB"
    }

    /// Why `ref` does not answer a question of this kind, or nil.
    public func problem(with ref: AttachmentRef) -> String? {
        if let problem = ref.problem { return problem }
        guard let type = AttachmentType(mediaType: ref.mediaType), types.contains(type) else {
            return "a \(rawValue) is \(types.map(\.name).joined(separator: ", ")), not \(ref.mediaType)"
        }
        if ref.size > maxBytes { return "a \(rawValue) is at most \(Self.describe(maxBytes)); this file is \(Self.describe(ref.size))" }
        return nil
    }
}

/// The file types Intake takes, each recognised by its first bytes.
public enum AttachmentType: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, webp, pdf, mp3, m4a, ogg, wav

    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .pdf: "application/pdf"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .ogg: "audio/ogg"
        case .wav: "audio/wav"
        }
    }

    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// `JPEG`, for messages.
    public var name: String { rawValue.uppercased() }

    public init?(mediaType: String) {
        guard let found = Self.allCases.first(where: { $0.mediaType == mediaType }) else { return nil }
        self = found
    }

    /// The type of a file by its first bytes (its signature), whatever its name says.
    public static func sniff(_ bytes: some DataProtocol) -> AttachmentType? {
        let head = Array(bytes.prefix(16))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("RIFF".utf8)), starts(Array("WAVE".utf8), at: 8) { return .wav }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        if starts(Array("OggS".utf8)) { return .ogg }
        if starts(Array("ID3".utf8)) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0) { return .mp3 }
        if starts(Array("ftyp".utf8), at: 4),
            starts(Array("M4A ".utf8), at: 8) || starts(Array("mp42".utf8), at: 8) || starts(Array("isom".utf8), at: 8)
        {
            return .m4a
        }
        return nil
    }
}
