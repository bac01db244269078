import Crypto
import Foundation

/// How the client trusts an https server: the system's certificate authorities, or those in
/// `caFile`; and, when `pins` are given, only a server whose certificate's public key hashes to
/// one of them (`sha256/` and the base64 of the SHA-256 of its SubjectPublicKeyInfo).
public struct ClientTLS: Sendable, Equatable {
    public var caFile: String?
    public var pins: [String]

    public init(caFile: String? = nil, pins: [String] = []) {
        self.caFile = caFile
        self.pins = pins
    }

    /// Checks the pins' form and that the CA file reads as PEM certificates.
    public func validate() throws(ClientError) {
        for pin in pins where Self.pinDigest(pin) == nil {
            throw ClientError.insecure(
                "'\(pin.prefix(80))' is not a pin: give sha256/ and the base64 of the SHA-256 of the server's public key (44 characters)")
        }
        if let caFile {
            let text = (try? String(contentsOfFile: caFile, encoding: .utf8)) ?? ""
            guard text.contains("-----BEGIN CERTIFICATE-----") else { throw ClientError.insecure(TLSFailure.caFile(caFile).description) }
        }
    }

    static func pinDigest(_ pin: String) -> [UInt8]? {
        guard pin.hasPrefix("sha256/"), let data = Data(base64Encoded: String(pin.dropFirst(7))), data.count == 32 else { return nil }
        return Array(data)
    }

    static func pin(of spki: [UInt8]) -> String {
        "sha256/" + Data(SHA256.hash(data: spki)).base64EncodedString()
    }
}

/// Why a TLS connection was refused before anything was sent.
enum TLSFailure: Error, CustomStringConvertible {
    case expired(Date)
    case notYetValid(Date)
    case untrusted
    case wrongHost(String)
    case pinMismatch(found: String)
    case handshake(String)
    case caFile(String)

    var description: String {
        switch self {
        case .expired(let date): "the server's certificate expired on \(Self.day(date)); renew it on the server (nothing was sent)"
        case .notYetValid(let date): "the server's certificate is not valid before \(Self.day(date)); check the clocks (nothing was sent)"
        case .untrusted:
            "the server's certificate is not signed by an authority this machine trusts; give the authority's certificate with --ca-file (nothing was sent)"
        case .wrongHost(let host): "the server's certificate is not for \(host) (nothing was sent)"
        case .pinMismatch(let found):
            "the server's public key does not match the pinned one (it is \(found)); if the server's key was changed on purpose, pin the new one (nothing was sent)"
        case .handshake(let text): "the TLS handshake failed (\(text)); nothing was sent"
        case .caFile(let path): "cannot read the CA file \(path): it must exist and hold PEM certificates (-----BEGIN CERTIFICATE-----)"
        }
    }

    static func day(_ date: Date) -> String {
        String(ISO8601DateFormatter().string(from: date).prefix(10))
    }
}

/// The parts of an X.509 certificate that explain a refusal: its public key (for the pin) and
/// its validity. Read from DER with just enough of ASN.1 for that.
struct PeerCertificate {
    var subjectPublicKeyInfo: [UInt8]
    var notBefore: Date
    var notAfter: Date

    init?(pem: String) {
        let base64 = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: base64) else { return nil }
        self.init(der: Array(der))
    }

    /// Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber,
    /// signature, issuer, validity SEQUENCE { notBefore, notAfter }, subject, subjectPublicKeyInfo, … } … }
    init?(der: [UInt8]) {
        guard let certificate = DERElement.read(der, at: 0), certificate.tag == 0x30,
            var cursor = DERElement.read(der, at: certificate.contentStart), cursor.tag == 0x30
        else { return nil }
        var fields: [DERElement] = []
        var offset = cursor.contentStart
        while offset < cursor.end, fields.count < 7, let field = DERElement.read(der, at: offset) {
            fields.append(field)
            offset = field.end
        }
        if fields.first?.tag == 0xA0 { fields.removeFirst() }
        guard fields.count >= 6 else { return nil }
        let validity = fields[3], spki = fields[5]
        guard validity.tag == 0x30, spki.tag == 0x30, let before = DERElement.read(der, at: validity.contentStart),
            let after = DERElement.read(der, at: before.end),
            let notBefore = Self.time(der, before), let notAfter = Self.time(der, after)
        else { return nil }
        cursor = spki
        subjectPublicKeyInfo = Array(der[cursor.start..<cursor.end])
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSSZ).
    private static func time(_ der: [UInt8], _ element: DERElement) -> Date? {
        let text = String(decoding: der[element.contentStart..<element.end], as: UTF8.self)
        let full: String
        switch element.tag {
        case 0x17: full = (Int(text.prefix(2)).map { $0 >= 50 ? "19" : "20" } ?? "20") + text
        case 0x18: full = text
        default: return nil
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.date(from: full)
    }
}

/// One DER element: its tag and where its content lies.
struct DERElement {
    var tag: UInt8
    var start: Int
    var contentStart: Int
    var end: Int

    static func read(_ bytes: [UInt8], at start: Int) -> DERElement? {
        guard start + 2 <= bytes.count else { return nil }
        let tag = bytes[start]
        var offset = start + 1
        var length = Int(bytes[offset])
        offset += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4, offset + count <= bytes.count else { return nil }
            length = 0
            for byte in bytes[offset..<offset + count] { length = length << 8 | Int(byte) }
            offset += count
        }
        guard offset + length <= bytes.count else { return nil }
        return DERElement(tag: tag, start: start, contentStart: offset, end: offset + length)
    }
}
