#if !canImport(Darwin)
import Crypto
import Foundation
import Keyring

/// The key families ``SecKey`` implements, with Apple's `kSecAttrKeyType` values.
enum SecKeyKind: String, Sendable {
    case ec = "73"
    case rsa = "42"
}

/// An asymmetric key: Apple's `SecKey`, an EC (P-256, P-384, P-521) or RSA (1024 to 4096 bits)
/// public or private key.
///
/// Created by ``SecKeyCreateRandomKey(_:_:)``, ``SecKeyCreateWithData(_:_:_:)``,
/// ``SecKeyCopyPublicKey(_:)`` or a keychain search with `kSecReturnRef`, and used through the
/// `SecKey...` functions. A private key's secret stays inside the object: no function returns it
/// except ``SecKeyCopyExternalRepresentation(_:_:)`` for keys that are not Secure Enclave keys,
/// as on Apple platforms.
///
/// Two keys are equal when they are the same key (same family, class and public key), as
/// `CFEqual` compares keys on Apple platforms; the hash covers the same.
///
/// `Sendable` without reservation: every stored property is an immutable `Sendable` value
/// (swift-crypto's keys are immutable values).
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    /// The key itself.
    enum Material: Sendable {
        case ecPrivate(ECPrivateKey)
        case ecPublic(ECPublicKey)
        case rsaPrivate(RSAPrivateKey)
        case rsaPublic(RSAPublicKey)
    }

    let material: Material
    /// `kSecAttrTokenIDSecureEnclave` for an emulated Secure Enclave key, else nil.
    let tokenID: String?
    /// The conditions for using the private key (`kSecAttrAccessControl`), enforced at sign,
    /// decrypt and key exchange.
    let accessControl: SecAccessControl?
    /// `kSecAttrApplicationTag` and `kSecAttrLabel` given at creation, reported by ``SecKeyCopyAttributes(_:)``.
    let applicationTag: Data?
    let label: String?

    init(_ material: Material, tokenID: String? = nil, accessControl: SecAccessControl? = nil,
         applicationTag: Data? = nil, label: String? = nil) {
        self.material = material
        self.tokenID = tokenID
        self.accessControl = accessControl
        self.applicationTag = applicationTag
        self.label = label
    }

    var kind: SecKeyKind {
        switch material {
        case .ecPrivate, .ecPublic: .ec
        case .rsaPrivate, .rsaPublic: .rsa
        }
    }

    var isPrivate: Bool {
        switch material {
        case .ecPrivate, .rsaPrivate: true
        case .ecPublic, .rsaPublic: false
        }
    }

    var isSecureEnclave: Bool { tokenID == kSecAttrTokenIDSecureEnclave as String }

    var sizeInBits: Int {
        switch material {
        case .ecPrivate(let key): key.curve.rawValue
        case .ecPublic(let key): key.curve.rawValue
        case .rsaPrivate(let key): key.sizeInBits
        case .rsaPublic(let key): key.sizeInBits
        }
    }

    /// The public half's external representation: X9.63 04 || X || Y, or PKCS#1 RSAPublicKey.
    var publicExternalRepresentation: Data {
        switch material {
        case .ecPrivate(let key): key.publicKey.x963
        case .ecPublic(let key): key.x963
        case .rsaPrivate(let key): key.publicKey.pkcs1
        case .rsaPublic(let key): key.pkcs1
        }
    }

    /// This key's external representation; secret for private keys.
    var externalRepresentation: Data {
        switch material {
        case .ecPrivate(let key): key.x963
        case .rsaPrivate(let key): key.pkcs1
        case .ecPublic, .rsaPublic: publicExternalRepresentation
        }
    }

    /// `kSecAttrApplicationLabel`: the SHA-1 of the public key's external representation, as
    /// Security.framework computes it for EC and RSA keys.
    var applicationLabel: Data { Data(Insecure.SHA1.hash(data: publicExternalRepresentation)) }

    /// The public half: an ordinary key even for a Secure Enclave private key, whose public key
    /// is not held by the enclave.
    var publicKey: SecKey {
        switch material {
        case .ecPrivate(let key): SecKey(.ecPublic(key.publicKey))
        case .rsaPrivate(let key): SecKey(.rsaPublic(key.publicKey))
        case .ecPublic, .rsaPublic: self
        }
    }

    /// `kSecAttrCanSign` etc., as Security.framework sets them for a key of this family and class.
    var usage: [String: Bool] {
        let canPrivate = isPrivate
        return [
            kSecAttrCanSign as String: canPrivate,
            kSecAttrCanVerify as String: !canPrivate,
            kSecAttrCanEncrypt as String: !canPrivate,
            kSecAttrCanDecrypt as String: canPrivate,
            kSecAttrCanDerive as String: kind == .ec,
            kSecAttrCanWrap as String: !canPrivate,
            kSecAttrCanUnwrap as String: canPrivate,
        ]
    }

    /// Asks the emulated person before the private key is used, when its access control says so.
    func demandUserPresence(for operation: String) throws {
        guard let accessControl, accessControl.flags.requiresUserPresence else { return }
        do { try UserPresence.demand(for: operation) } catch { throw SecKeyFailure(error) }
    }

    /// Same family, class and public key.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs === rhs || (lhs.kind == rhs.kind && lhs.isPrivate == rhs.isPrivate && lhs.tokenID == rhs.tokenID
            && lhs.publicExternalRepresentation == rhs.publicExternalRepresentation)
    }

    /// Hashes the family, class and public key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(isPrivate)
        hasher.combine(publicExternalRepresentation)
    }

    /// `<SecKeyRef algorithm: ECSECPrimeRandom, class: private, block size: 256 bits, token: ...>`;
    /// never key bytes.
    public var description: String {
        let algorithm = kind == .ec ? "ECSECPrimeRandom" : "RSA"
        let token = tokenID.map { ", token: \($0)" } ?? ""
        return "<SecKeyRef algorithm: \(algorithm), class: \(isPrivate ? "private" : "public"), block size: \(sizeInBits) bits\(token)>"
    }
}
#endif
