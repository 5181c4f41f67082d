#if !canImport(Darwin)
import Crypto
import Foundation

/// A hash a ``SecKeyAlgorithm`` names. SHA-224 is named by Apple's identifiers but swift-crypto
/// has no SHA-224, so algorithms using it are known and refused with `errSecUnimplemented`.
enum SecKeyHash: Sendable, CaseIterable {
    case sha1, sha224, sha256, sha384, sha512

    /// The digest length in bytes.
    var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// Whether this module can compute it.
    var isImplemented: Bool { self != .sha224 }

    /// The digest of `message`, or nil for SHA-224.
    func digest(_ message: Data) -> Data? {
        switch self {
        case .sha1: Data(Insecure.SHA1.hash(data: message))
        case .sha224: nil
        case .sha256: Data(SHA256.hash(data: message))
        case .sha384: Data(SHA384.hash(data: message))
        case .sha512: Data(SHA512.hash(data: message))
        }
    }
}

/// Whether a signature algorithm takes the message or a digest the caller computed.
enum SecKeySignedInput: Sendable {
    case message
    case digest
}

/// What a ``SecKeyAlgorithm`` identifier means to this module.
enum SecKeyScheme: Sendable {
    /// ECDSA with a DER signature (X9.62); `hash` nil for the unnamed-digest variant.
    case ecdsa(SecKeyHash?, SecKeySignedInput)
    /// RSASSA-PKCS1-v1_5 with a DigestInfo for `hash`.
    case rsaPKCS1v15Signature(SecKeyHash, SecKeySignedInput)
    /// RSASSA-PSS, MGF1 with the same hash, salt length = digest length.
    case rsaPSS(SecKeyHash, SecKeySignedInput)
    /// RSAES-PKCS1-v1_5.
    case rsaPKCS1Encryption
    /// RSAES-OAEP with MGF1 and the label-less `hash`.
    case rsaOAEP(SecKeyHash)
    /// ECIES as Apple builds it (ECIES.swift).
    case ecies(SecKeyHash, variableIV: Bool)
    /// ECDH, then the X9.63 KDF with `kdf` if not nil.
    case ecdh(kdf: SecKeyHash?)
    /// Known to Apple, deliberately not implemented here (raw RSA, RFC 4754 ECDSA, DigestInfo-less PKCS#1).
    case unimplemented(SecKeyKind)

    /// The key family the scheme belongs to.
    var kind: SecKeyKind {
        switch self {
        case .ecdsa, .ecies, .ecdh: .ec
        case .rsaPKCS1v15Signature, .rsaPSS, .rsaPKCS1Encryption, .rsaOAEP: .rsa
        case .unimplemented(let kind): kind
        }
    }

    /// The operations the scheme serves.
    var operations: Set<SecKeyOperationType> {
        switch self {
        case .ecdsa, .rsaPKCS1v15Signature, .rsaPSS: [.sign, .verify]
        case .rsaPKCS1Encryption, .rsaOAEP, .ecies: [.encrypt, .decrypt]
        case .ecdh: [.keyExchange]
        case .unimplemented: [.sign, .verify, .encrypt, .decrypt]
        }
    }

    /// The hash it uses, if any.
    var hash: SecKeyHash? {
        switch self {
        case .ecdsa(let hash, _): hash
        case .rsaPKCS1v15Signature(let hash, _), .rsaPSS(let hash, _), .rsaOAEP(let hash), .ecies(let hash, _): hash
        case .ecdh(let kdf): kdf
        case .rsaPKCS1Encryption, .unimplemented: nil
        }
    }

    /// Whether this module runs it (its hash included).
    var isImplemented: Bool {
        if case .unimplemented = self { return false }
        if case .rsaOAEP(let hash) = self { return hash == .sha1 || hash == .sha256 }
        return hash?.isImplemented ?? true
    }

    /// Every identifier Apple defines for EC and RSA keys, by its string.
    static let table: [String: SecKeyScheme] = {
        var table: [String: SecKeyScheme] = [:]
        let hashes: [(String, SecKeyHash)] = [
            ("SHA1", .sha1), ("SHA224", .sha224), ("SHA256", .sha256), ("SHA384", .sha384), ("SHA512", .sha512),
        ]
        // Apple's PSS identifiers end in the salt length; SHA-224's says 24 (sic) in Security.framework.
        let pssSalt: [SecKeyHash: Int] = [.sha1: 20, .sha224: 24, .sha256: 32, .sha384: 48, .sha512: 64]
        table["algid:sign:ECDSA:digest-X962"] = .ecdsa(nil, .digest)
        for (name, hash) in hashes {
            table["algid:sign:ECDSA:digest-X962:\(name)"] = .ecdsa(hash, .digest)
            table["algid:sign:ECDSA:message-X962:\(name)"] = .ecdsa(hash, .message)
            table["algid:sign:ECDSA:digest-RFC4754:\(name)"] = .unimplemented(.ec)
            table["algid:sign:ECDSA:message-RFC4754:\(name)"] = .unimplemented(.ec)
            table["algid:sign:RSA:digest-PKCS1v15:\(name)"] = .rsaPKCS1v15Signature(hash, .digest)
            table["algid:sign:RSA:message-PKCS1v15:\(name)"] = .rsaPKCS1v15Signature(hash, .message)
            let salt = pssSalt[hash]!
            table["algid:sign:RSA:digest-PSS:\(name):\(name):\(salt)"] = .rsaPSS(hash, .digest)
            table["algid:sign:RSA:message-PSS:\(name):\(name):\(salt)"] = .rsaPSS(hash, .message)
            table["algid:encrypt:RSA:OAEP:\(name)"] = .rsaOAEP(hash)
            for agreement in ["ECDH", "ECDHC"] {
                table["algid:encrypt:ECIES:\(agreement):KDFX963:\(name):AESGCM"] = .ecies(hash, variableIV: false)
                table["algid:encrypt:ECIES:\(agreement):KDFX963:\(name):AESGCM-KDFIV"] = .ecies(hash, variableIV: true)
                table["algid:keyexchange:\(agreement):KDFX963:\(name)"] = .ecdh(kdf: hash)
            }
        }
        table["algid:keyexchange:ECDH"] = .ecdh(kdf: nil)
        table["algid:keyexchange:ECDHC"] = .ecdh(kdf: nil)
        table["algid:sign:ECDSA:RFC4754"] = .unimplemented(.ec)
        table["algid:sign:ECDSA:digest-RFC4754"] = .unimplemented(.ec)
        table["algid:sign:RSA:raw"] = .unimplemented(.rsa)
        table["algid:sign:RSA:digest-PKCS1v15"] = .unimplemented(.rsa)
        table["algid:encrypt:RSA:raw"] = .unimplemented(.rsa)
        table["algid:encrypt:RSA:PKCS1"] = .rsaPKCS1Encryption
        return table
    }()
}
#endif
