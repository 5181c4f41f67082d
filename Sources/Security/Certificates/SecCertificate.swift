#if !canImport(Darwin)
import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// An X.509 certificate: Apple's `SecCertificate`, parsed by swift-certificates and kept as the
/// exact DER it was created from.
///
/// Equal when their DER is, as `CFEqual` compares certificates.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The DER exactly as given to ``SecCertificateCreateWithData(_:_:)``.
    let der: Data
    /// The parsed certificate.
    let parsed: Certificate

    /// Parses `der`; nil when it is not one DER-encoded X.509 certificate.
    init?(der: Data) {
        guard let parsed = try? Certificate(derEncoded: Array(der)) else { return nil }
        self.der = der
        self.parsed = parsed
    }

    /// Apple's summary of the subject: its common name, else its e-mail address, else its
    /// organizational unit or organization; nil when the subject has none of them.
    var subjectSummary: String? {
        let order: [ASN1ObjectIdentifier] = [
            .RDNAttributeType.commonName,
            [1, 2, 840, 113_549, 1, 9, 1],  // emailAddress (PKCS #9)
            .RDNAttributeType.organizationalUnitName,
            .RDNAttributeType.organizationName,
        ]
        let attributes = parsed.subject.flatMap { $0 }
        for type in order {
            if let value = attributes.last(where: { $0.type == type }).flatMap({ String($0.value) }) { return value }
        }
        return nil
    }

    /// Every common name of the subject, in order.
    var commonNames: [String] {
        parsed.subject.flatMap { $0 }.filter { $0.type == .RDNAttributeType.commonName }.compactMap { String($0.value) }
    }

    /// The subject's public key as a ``SecKey``; nil for a key type SecKey does not implement.
    var publicKey: SecKey? {
        let key = parsed.publicKey
        if let ec = P256.Signing.PublicKey(key) { return SecKey(.ecPublic(.p256(ec))) }
        if let ec = P384.Signing.PublicKey(key) { return SecKey(.ecPublic(.p384(ec))) }
        if let ec = P521.Signing.PublicKey(key) { return SecKey(.ecPublic(.p521(ec))) }
        if let rsa = _RSA.Signing.PublicKey(key), RSAKeySize.imported.contains(rsa.keySizeInBits) {
            return SecKey(.rsaPublic(RSAPublicKey(rsa)))
        }
        return nil
    }

    /// The DER of a Name (subject or issuer): its SEQUENCE, tag included.
    static func der(of name: DistinguishedName) -> Data {
        var serializer = DER.Serializer()
        // Serializing a Name parsed from DER cannot fail: it was DER a moment ago.
        try! serializer.serialize(name)
        return Data(serializer.serializedBytes)
    }

    /// Same DER.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.der == rhs.der }

    /// Hashes the DER.
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }

    /// `<cert(0x...) s: <subject summary> i: <issuer summary>>`, close to Apple's.
    public var description: String {
        "<cert s: \(subjectSummary ?? "") i: \(String(describing: parsed.issuer))>"
    }
}

extension SecCertificate {
    /// What a certificate item stores, with Apple's attribute values.
    struct ItemAttributes: Sendable, Equatable {
        /// The certificate's DER (`kSecValueData`).
        var der: Data
        /// `kSecAttrSubject`: the DER of the subject Name.
        var subject: Data
        /// `kSecAttrIssuer`: the DER of the issuer Name.
        var issuer: Data
        /// `kSecAttrSerialNumber`: the serial number's big-endian content bytes.
        var serialNumber: Data
        /// `kSecAttrSubjectKeyID`: the subject key identifier extension's value, if present.
        var subjectKeyID: Data?
        /// `kSecAttrPublicKeyHash`: the public key's `kSecAttrApplicationLabel` (SHA-1 of its
        /// external representation), so an identity pairs it with its private key.
        var publicKeyHash: Data
        /// `kSecAttrLabel`'s default: the subject summary.
        var label: String
        /// `kSecAttrCertificateType`: 3, CSSM_CERT_X_509v3.
        var certificateType: Int
        /// `kSecAttrCertificateEncoding`: 3, CSSM_CERT_ENCODING_DER.
        var certificateEncoding: Int
    }

    /// This certificate as a certificate item stores it.
    var itemAttributes: ItemAttributes {
        let keyHash = publicKey?.applicationLabel
            ?? Data(Insecure.SHA1.hash(data: Data(parsed.publicKey.subjectPublicKeyInfoBytes)))
        return ItemAttributes(
            der: der,
            subject: Self.der(of: parsed.subject),
            issuer: Self.der(of: parsed.issuer),
            serialNumber: Data(parsed.serialNumber.bytes),
            subjectKeyID: (try? parsed.extensions.subjectKeyIdentifier).flatMap { $0 }.map { Data($0.keyIdentifier) },
            publicKeyHash: keyHash,
            label: subjectSummary ?? "",
            certificateType: 3,
            certificateEncoding: 3
        )
    }
}
#endif
