import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

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
            throw ClientError.insecure("'\(pin.prefix(80))' is not a pin: give sha256/ and the base64 of the SHA-256 of the server's public key (44 characters)")
        }
        _ = try context()
    }

    static func pinDigest(_ pin: String) -> [UInt8]? {
        guard pin.hasPrefix("sha256/"), let data = Data(base64Encoded: String(pin.dropFirst(7))), data.count == 32 else { return nil }
        return Array(data)
    }

    static func pin(of spki: [UInt8]) -> String {
        "sha256/" + Data(SHA256.hash(data: spki)).base64EncodedString()
    }

    func context(verify: Bool = true) throws(ClientError) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if !verify {
            configuration.certificateVerification = .none
        } else if let caFile {
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(caFile)
                guard !certificates.isEmpty else { throw ClientError.insecure("") }
                configuration.trustRoots = .certificates(certificates)
            } catch {
                throw ClientError.insecure("cannot read the CA file \(caFile): it must exist and hold PEM certificates (-----BEGIN CERTIFICATE-----)")
            }
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw ClientError.insecure("cannot set up TLS: \(error)")
        }
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
        }
    }

    static func day(_ date: Date) -> String {
        String(ISO8601DateFormatter().string(from: date).prefix(10))
    }
}

/// Completes when the TLS handshake does (or fails): nothing is written before, so a refused
/// server never sees a byte of the request.
final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    let done: EventLoopPromise<Void>

    init(_ done: EventLoopPromise<Void>) {
        self.done = done
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { done.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(HTTPTransport.TransportError.closed)
        context.fireChannelInactive()
    }
}

extension HTTPTransport {
    /// TLS on a new connection: handshake, then the pin; a failed verification is looked at
    /// again (a second handshake that trusts anything, and sends nothing) to say why.
    static func secure(_ channel: any Channel, _ settings: TLSSettings, handshake: EventLoopFuture<Void>) async throws {
        do {
            try await handshake.get()
        } catch {
            channel.close(promise: nil)
            throw await diagnose(error, settings)
        }
        guard !settings.options.pins.isEmpty else { return }
        let certificate = try await channel.nioSSL_peerCertificate().get()
        guard let certificate, let spki = try? certificate.extractPublicKey().toSPKIBytes() else {
            channel.close(promise: nil)
            throw TLSFailure.handshake("the server showed no certificate")
        }
        let digest = Array(SHA256.hash(data: spki))
        guard settings.options.pins.contains(where: { ClientTLS.pinDigest($0) == digest }) else {
            channel.close(promise: nil)
            throw TLSFailure.pinMismatch(found: ClientTLS.pin(of: spki))
        }
    }

    private static func diagnose(_ error: any Error, _ settings: TLSSettings) async -> TLSFailure {
        let text = String(describing: error)
        if text.contains("failedToValidateHostname") { return .wrongHost(settings.host) }
        guard text.contains("CERTIFICATE_VERIFY_FAILED"), let context = try? settings.options.context(verify: false) else {
            return .handshake(text.count > 200 ? String(text.prefix(200)) + "…" : text)
        }
        // Look at the certificate without trusting it, to tell an expired one from an unknown issuer.
        guard let certificate = try? await peerCertificate(host: settings.host, port: settings.port, context: context) else { return .untrusted }
        let now = Date()
        let notAfter = Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))
        let notBefore = Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore))
        if notAfter < now { return .expired(notAfter) }
        if notBefore > now { return .notYetValid(notBefore) }
        return .untrusted
    }

    private static func peerCertificate(host: String, port: Int, context: NIOSSLContext) async throws -> NIOSSLCertificate? {
        let group = MultiThreadedEventLoopGroup.singleton
        let done = group.next().makePromise(of: Void.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                        try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(done))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            done.fail(error)
            throw error
        }
        defer { channel.close(promise: nil) }
        try await done.futureResult.get()
        return try await channel.nioSSL_peerCertificate().get()
    }
}

/// What a transport needs for https.
struct TLSSettings: Sendable {
    var options: ClientTLS
    var context: NIOSSLContext
    var host: String
    var port: Int

    /// The name to check the certificate against and send as SNI: nil for an IP address (its
    /// certificate is then checked against the address).
    var serverHostname: String? {
        host.contains(":") || host.split(separator: ".").allSatisfy({ UInt8($0) != nil }) ? nil : host
    }
}
