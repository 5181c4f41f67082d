#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The attributes of a certificate item (`kSecClassCertificate`), with Apple's types.
///
/// They are read from the certificate by the `Security` module (the keyring does not parse
/// DER); the item's ``KeychainItem/secret`` holds the certificate's DER.
public struct CertificateAttributes: Sendable, Hashable, Codable {
    /// `kSecAttrCertificateType`: X.509 v3 is 3 (`CSSM_CERT_X_509v3`). Part of the primary key.
    public var certificateType: Int
    /// `kSecAttrCertificateEncoding`: DER is 3 (`CSSM_CERT_ENCODING_DER`).
    public var certificateEncoding: Int
    /// `kSecAttrSubject`: the DER of the subject name.
    public var subject: Data
    /// `kSecAttrIssuer`: the DER of the issuer name. Part of the primary key.
    public var issuer: Data
    /// `kSecAttrSerialNumber`: the serial number's bytes. Part of the primary key.
    public var serialNumber: Data
    /// `kSecAttrSubjectKeyID`: the subject key identifier extension, if the certificate has one.
    public var subjectKeyID: Data?
    /// `kSecAttrPublicKeyHash`: the SHA-1 of the certificate's public key, equal to its private
    /// key's ``KeyAttributes/applicationLabel``.
    public var publicKeyHash: Data

    /// A certificate's attributes, as read from its DER.
    public init(
        certificateType: Int = 3, certificateEncoding: Int = 3, subject: Data, issuer: Data,
        serialNumber: Data, subjectKeyID: Data? = nil, publicKeyHash: Data
    ) {
        self.certificateType = certificateType
        self.certificateEncoding = certificateEncoding
        self.subject = subject
        self.issuer = issuer
        self.serialNumber = serialNumber
        self.subjectKeyID = subjectKeyID
        self.publicKeyHash = publicKeyHash
    }
}

/// What a query asks of a certificate item's attributes; `nil` matches anything.
public struct CertificateAttributeQuery: Sendable, Hashable {
    /// `kSecAttrCertificateType`.
    public var certificateType: Int?
    /// `kSecAttrCertificateEncoding`.
    public var certificateEncoding: Int?
    /// `kSecAttrSubject`.
    public var subject: Data?
    /// `kSecAttrIssuer`.
    public var issuer: Data?
    /// `kSecAttrSerialNumber`.
    public var serialNumber: Data?
    /// `kSecAttrSubjectKeyID` (absent in an item equals empty).
    public var subjectKeyID: Data?
    /// `kSecAttrPublicKeyHash`.
    public var publicKeyHash: Data?

    /// A query that matches any certificate; set what must match.
    public init(
        certificateType: Int? = nil, certificateEncoding: Int? = nil, subject: Data? = nil, issuer: Data? = nil,
        serialNumber: Data? = nil, subjectKeyID: Data? = nil, publicKeyHash: Data? = nil
    ) {
        self.certificateType = certificateType
        self.certificateEncoding = certificateEncoding
        self.subject = subject
        self.issuer = issuer
        self.serialNumber = serialNumber
        self.subjectKeyID = subjectKeyID
        self.publicKeyHash = publicKeyHash
    }

    /// Whether `certificate` has every attribute this query gives. An item without certificate
    /// attributes matches only the empty query.
    func matches(_ certificate: CertificateAttributes?) -> Bool {
        guard let certificate else { return givesNothing }
        if let certificateType, certificate.certificateType != certificateType { return false }
        if let certificateEncoding, certificate.certificateEncoding != certificateEncoding { return false }
        if let subject, certificate.subject != subject { return false }
        if let issuer, certificate.issuer != issuer { return false }
        if let serialNumber, certificate.serialNumber != serialNumber { return false }
        if let subjectKeyID, (certificate.subjectKeyID ?? Data()) != subjectKeyID { return false }
        if let publicKeyHash, certificate.publicKeyHash != publicKeyHash { return false }
        return true
    }

    /// Whether the query gives no attribute (as `CertificateAttributeQuery()`): field by field,
    /// since the synthesised `==` against an empty query cost a lookup of a password 1,200
    /// instructions (`AttributeQueryEmptinessTests`).
    var givesNothing: Bool {
        certificateType == nil && certificateEncoding == nil && subject == nil && issuer == nil && serialNumber == nil
            && subjectKeyID == nil && publicKeyHash == nil
    }

    /// The attributes this query gives, for "not found" messages (by size only).
    var summary: [String] {
        var parts: [String] = []
        if let certificateType { parts.append("certificate type \(certificateType)") }
        if let certificateEncoding { parts.append("certificate encoding \(certificateEncoding)") }
        for (name, value) in [("subject", subject), ("issuer", issuer), ("serial number", serialNumber), ("subject key id", subjectKeyID), ("public key hash", publicKeyHash)] {
            if let value { parts.append("\(name) (\(value.count) bytes)") }
        }
        return parts
    }
}
