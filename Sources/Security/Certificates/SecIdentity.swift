#if !canImport(Darwin)
import Foundation

/// A certificate together with the private key of its public key: Apple's `SecIdentity`, what a
/// `kSecClassIdentity` search returns.
///
/// Equal when both the certificate and the key are.
public final class SecIdentity: Hashable, Sendable, CustomStringConvertible {
    let certificate: SecCertificate
    let privateKey: SecKey

    /// Pairs a certificate with its private key (the keychain's identity search).
    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Same certificate and key.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }

    /// Hashes the certificate and key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate)
        hasher.combine(privateKey)
    }

    /// The certificate's and key's descriptions; never key bytes.
    public var description: String { "<SecIdentity \(certificate) \(privateKey)>" }
}

/// The identity's certificate.
///
/// - Parameters:
///   - identityRef: The identity.
///   - certificateRef: Receives the certificate.
/// - Returns: `errSecSuccess`.
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// The identity's private key.
///
/// - Parameters:
///   - identityRef: The identity.
///   - privateKeyRef: Receives the key.
/// - Returns: `errSecSuccess`.
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}
#endif
