#if !canImport(Darwin)
import Foundation

/// Creates a certificate from its DER encoding.
///
/// - Parameters:
///   - allocator: Ignored; pass `kCFAllocatorDefault` or `nil`.
///   - data: One DER-encoded X.509 certificate (not PEM).
/// - Returns: The certificate, or `nil` when `data` is not one, as on Apple platforms.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    SecCertificate(der: data as Data)
}

/// The certificate's DER encoding, exactly as it was created from.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    certificate.der as NSData
}

/// A human-readable summary of the subject: its common name, else its e-mail address, else its
/// organizational unit or organization, as Apple chooses; `nil` when it has none.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.subjectSummary.map { NSString(string: $0) }
}

/// The certificate's public key (EC P-256/384/521 or RSA), or `nil` for another key type.
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    certificate.publicKey
}

/// The subject's common names.
///
/// - Parameters:
///   - certificate: The certificate.
///   - commonNames: Receives an array of strings (empty when there is none).
/// - Returns: `errSecSuccess`.
public func SecCertificateCopyCommonNames(_ certificate: SecCertificate, _ commonNames: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    commonNames.pointee = certificate.commonNames.map { NSString(string: $0) } as NSArray
    return errSecSuccess
}

/// The serial number's big-endian content bytes (the DER INTEGER without tag and length).
public func SecCertificateCopySerialNumberData(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    Data(certificate.parsed.serialNumber.bytes) as NSData
}

/// The DER of the issuer Name. (Apple normalizes string case and spacing first; this returns
/// the Name as encoded, the same bytes as the certificate item's `kSecAttrIssuer`, so matching
/// with it works the same way.)
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    SecCertificate.der(of: certificate.parsed.issuer) as NSData
}

/// The DER of the subject Name; see ``SecCertificateCopyNormalizedIssuerSequence(_:)``.
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    SecCertificate.der(of: certificate.parsed.subject) as NSData
}
#endif
