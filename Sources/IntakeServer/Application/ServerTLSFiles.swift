import Crypto
import Foundation
import IntakeService
import NIOSSL

/// The certificate (PEM, the server's first, then its chain) and private key `intake serve`
/// answers https with.
public struct ServerTLSFiles: Sendable, Equatable {
    public var certificateFile: String
    public var keyFile: String

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// Reads both files and checks that they belong together, saying what is wrong otherwise.
    public func load() throws(ConfigurationError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw ConfigurationError(
                "cannot read the TLS certificate \(certificateFile): it must exist and hold PEM certificates (-----BEGIN CERTIFICATE-----)")
        }
        guard let leaf = chain.first else { throw ConfigurationError("the TLS certificate file \(certificateFile) holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw ConfigurationError(
                "cannot read the TLS private key \(keyFile): it must exist, be readable by this user and hold a PEM private key (not encrypted)"
            )
        }
        if Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter)) < Date() {
            throw ConfigurationError("the TLS certificate \(certificateFile) has expired; clients would refuse it. Renew it")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ConfigurationError(
                "the TLS private key \(keyFile) does not belong to the certificate \(certificateFile); give the key the certificate was made for"
            )
        }
        return configuration
    }

    /// The pin of the certificate's public key (`sha256/` and the base64 of the SHA-256 of its
    /// SubjectPublicKeyInfo, as curl and `intake login --pin` take it), or nil when it cannot be read.
    public func pin() -> String? {
        guard let leaf = try? NIOSSLCertificate.fromPEMFile(certificateFile).first, let spki = try? leaf.extractPublicKey().toSPKIBytes()
        else {
            return nil
        }
        return "sha256/" + Data(SHA256.hash(data: spki)).base64EncodedString()
    }
}
