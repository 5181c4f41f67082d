#if !canImport(Darwin)
import Foundation

/// What a key does with data: Apple's `SecKeyAlgorithm`, a string-valued identifier such as
/// `"algid:sign:ECDSA:message-X962:SHA256"`.
///
/// Every constant Apple defines for EC and RSA keys exists, with Apple's string, so code
/// compiles unchanged; which of them this module implements is ``SecKeyIsAlgorithmSupported(_:_:_:)``'s
/// answer (docs/SECKEY.md lists them). An algorithm Apple would run on the key but this module
/// does not implement fails with `errSecUnimplemented`; one that does not fit the key fails with
/// `errSecParam`, as on a device.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    private let identifier: String

    /// The identifier as a `CFString`, as Apple imports it.
    public var rawValue: CFString { NSString(string: identifier) }

    /// An algorithm from its identifier.
    public init(rawValue: CFString) { self.identifier = rawValue as String }

    /// An algorithm from its identifier, as Apple's unlabelled initializer.
    public init(_ rawValue: CFString) { self.identifier = rawValue as String }

    private init(identifier: String) { self.identifier = identifier }

    /// The identifier, e.g. `algid:sign:ECDSA:message-X962:SHA256`.
    public var description: String { identifier }

    /// What this module does for the identifier, or nil for one it does not know.
    var scheme: SecKeyScheme? { SecKeyScheme.table[identifier] }

    // MARK: ECDSA

    /// ECDSA over a digest the caller computed, without a hash named; the signature is DER.
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:digest-X962")
    /// ECDSA over a SHA-1 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:digest-X962:SHA1")
    /// ECDSA over a SHA-224 digest; DER signature (not implemented here).
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:digest-X962:SHA224")
    /// ECDSA over a SHA-256 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:digest-X962:SHA256")
    /// ECDSA over a SHA-384 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:digest-X962:SHA384")
    /// ECDSA over a SHA-512 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:digest-X962:SHA512")
    /// ECDSA over the SHA-1 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:message-X962:SHA1")
    /// ECDSA over the SHA-224 of a message (not implemented here).
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:message-X962:SHA224")
    /// ECDSA over the SHA-256 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA over the SHA-384 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:message-X962:SHA384")
    /// ECDSA over the SHA-512 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:message-X962:SHA512")
    /// ECDSA with a raw r||s signature (RFC 4754) over a digest (not implemented here).
    public static let ecdsaSignatureDigestRFC4754 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:digest-RFC4754")
    /// ECDSA with a raw r||s signature over the SHA-256 of a message (not implemented here).
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:message-RFC4754:SHA256")
    /// The deprecated raw ECDSA identifier (not implemented here).
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm(identifier: "algid:sign:ECDSA:RFC4754")

    // MARK: RSA signatures

    /// RSA with no padding (refused: a raw RSA operation is a footgun, and wrappers do not use it).
    public static let rsaSignatureRaw = SecKeyAlgorithm(identifier: "algid:sign:RSA:raw")
    /// PKCS#1 v1.5 over a caller-built DigestInfo (not implemented here).
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PKCS1v15")
    /// PKCS#1 v1.5 over a SHA-1 digest.
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PKCS1v15:SHA1")
    /// PKCS#1 v1.5 over a SHA-224 digest (not implemented here).
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PKCS1v15:SHA224")
    /// PKCS#1 v1.5 over a SHA-256 digest.
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// PKCS#1 v1.5 over a SHA-384 digest.
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PKCS1v15:SHA384")
    /// PKCS#1 v1.5 over a SHA-512 digest.
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PKCS1v15:SHA512")
    /// PKCS#1 v1.5 over the SHA-1 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PKCS1v15:SHA1")
    /// PKCS#1 v1.5 over the SHA-224 of a message (not implemented here).
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PKCS1v15:SHA224")
    /// PKCS#1 v1.5 over the SHA-256 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PKCS1v15:SHA256")
    /// PKCS#1 v1.5 over the SHA-384 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PKCS1v15:SHA384")
    /// PKCS#1 v1.5 over the SHA-512 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PKCS1v15:SHA512")
    /// RSASSA-PSS (MGF1 with the same hash, salt as long as the digest) over a SHA-1 digest.
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    /// RSASSA-PSS over a SHA-224 digest (not implemented here). Apple's identifier says 24.
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PSS:SHA224:SHA224:24")
    /// RSASSA-PSS over a SHA-256 digest.
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    /// RSASSA-PSS over a SHA-384 digest.
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    /// RSASSA-PSS over a SHA-512 digest.
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm(identifier: "algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    /// RSASSA-PSS over the SHA-1 of a message.
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    /// RSASSA-PSS over the SHA-224 of a message (not implemented here).
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PSS:SHA224:SHA224:24")
    /// RSASSA-PSS over the SHA-256 of a message.
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    /// RSASSA-PSS over the SHA-384 of a message.
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    /// RSASSA-PSS over the SHA-512 of a message.
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm(identifier: "algid:sign:RSA:message-PSS:SHA512:SHA512:64")

    // MARK: RSA encryption

    /// RSA with no padding (refused, see ``rsaSignatureRaw``).
    public static let rsaEncryptionRaw = SecKeyAlgorithm(identifier: "algid:encrypt:RSA:raw")
    /// RSAES-PKCS1-v1_5: kept for old servers; prefer OAEP.
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm(identifier: "algid:encrypt:RSA:PKCS1")
    /// RSAES-OAEP with SHA-1 and MGF1-SHA-1.
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA1")
    /// RSAES-OAEP with SHA-224 (not implemented here).
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA224")
    /// RSAES-OAEP with SHA-256 and MGF1-SHA-256.
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA256")
    /// RSAES-OAEP with SHA-384 (not implemented here).
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA384")
    /// RSAES-OAEP with SHA-512 (not implemented here).
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA512")

    // MARK: ECIES

    /// ECIES, ECDH, X9.63 KDF with SHA-1, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// ECIES with SHA-224 (not implemented here).
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// ECIES, ECDH, X9.63 KDF with SHA-256, AES-GCM with a zero IV: CryptoKit-era apps' usual choice.
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// ECIES, ECDH, X9.63 KDF with SHA-384, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// ECIES, ECDH, X9.63 KDF with SHA-512, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// ECIES with cofactor ECDH (the same as ECDH on the NIST curves, whose cofactor is 1), SHA-1.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// ECIES with cofactor ECDH and SHA-224 (not implemented here).
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// ECIES with cofactor ECDH, SHA-256, zero IV.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// ECIES with cofactor ECDH, SHA-384, zero IV.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// ECIES with cofactor ECDH, SHA-512, zero IV.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// ECIES with the AES-GCM IV taken from the KDF output, SHA-224 (not implemented here).
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES, ECDH, SHA-256, the IV taken from the KDF output.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES, ECDH, SHA-384, the IV taken from the KDF output.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES, ECDH, SHA-512, the IV taken from the KDF output.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// ECIES with cofactor ECDH and the IV from the KDF, SHA-224 (not implemented here).
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES with cofactor ECDH, SHA-256, the IV from the KDF: what Apple recommends for new code.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES with cofactor ECDH, SHA-384, the IV from the KDF.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES with cofactor ECDH, SHA-512, the IV from the KDF.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(identifier: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")

    // MARK: ECDH

    /// ECDH: the shared secret is the x coordinate of the shared point.
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDH")
    /// ECDH followed by the X9.63 KDF with SHA-1.
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDH:KDFX963:SHA1")
    /// ECDH followed by the X9.63 KDF with SHA-224 (not implemented here).
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDH:KDFX963:SHA224")
    /// ECDH followed by the X9.63 KDF with SHA-256.
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDH:KDFX963:SHA256")
    /// ECDH followed by the X9.63 KDF with SHA-384.
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDH:KDFX963:SHA384")
    /// ECDH followed by the X9.63 KDF with SHA-512.
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDH:KDFX963:SHA512")
    /// Cofactor ECDH (the same as ECDH on the NIST curves).
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDHC")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA-1.
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA-224 (not implemented here).
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA-256.
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA-384.
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA-512.
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm(identifier: "algid:keyexchange:ECDHC:KDFX963:SHA512")
}

/// What a key is asked to do, the argument of ``SecKeyIsAlgorithmSupported(_:_:_:)``.
/// Raw values are Apple's (`kSecKeyOperationTypeSign` is 0).
public enum SecKeyOperationType: Int, Sendable {
    /// `SecKeyCreateSignature`.
    case sign = 0
    /// `SecKeyVerifySignature`.
    case verify = 1
    /// `SecKeyCreateEncryptedData`.
    case encrypt = 2
    /// `SecKeyCreateDecryptedData`.
    case decrypt = 3
    /// `SecKeyCopyKeyExchangeResult`.
    case keyExchange = 4
}
#endif
