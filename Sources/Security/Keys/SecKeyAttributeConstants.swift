#if !canImport(Darwin)
import Foundation

// The key attributes and values of Apple's SecItem.h and SecKey.h, with Apple's string values
// (what `kSecAttrKeyType as String` prints on a device), so dictionaries built by Apple code mean
// the same here. `kSecAttrTokenID` itself is a SecItem attribute (SecItemConstants.swift).

// MARK: Key attributes

/// The key's algorithm family, one of the `kSecAttrKeyType...` values. Value: `"type"` (the same
/// string as `kSecAttrType`, as on Apple platforms).
public var kSecAttrKeyType: CFString { "type" }
/// Whether the key is public, private or symmetric, one of the `kSecAttrKeyClass...` values. Value: `"kcls"`.
public var kSecAttrKeyClass: CFString { "kcls" }
/// The key's size in bits, e.g. 256 for P-256 or 2048 for RSA-2048. Value: `"bsiz"`.
public var kSecAttrKeySizeInBits: CFString { "bsiz" }
/// The key's effective size in bits (the same as its size for EC and RSA). Value: `"esiz"`.
public var kSecAttrEffectiveKeySize: CFString { "esiz" }
/// Whether `SecKeyCreateRandomKey` also stores the key in the keychain. Value: `"perm"`.
public var kSecAttrIsPermanent: CFString { "perm" }
/// Whether the key cannot leave its token in the clear. Value: `"sens"`.
public var kSecAttrIsSensitive: CFString { "sens" }
/// Whether the key can be exported (wrapped). Value: `"extr"`.
public var kSecAttrIsExtractable: CFString { "extr" }
/// An application's own tag for the key, as data: how apps find their keys. Value: `"atag"`.
public var kSecAttrApplicationTag: CFString { "atag" }
/// The SHA-1 of the public key's external representation, set by the system. Value: `"klbl"`.
public var kSecAttrApplicationLabel: CFString { "klbl" }
/// Whether the key can encrypt. Value: `"encr"`.
public var kSecAttrCanEncrypt: CFString { "encr" }
/// Whether the key can decrypt. Value: `"decr"`.
public var kSecAttrCanDecrypt: CFString { "decr" }
/// Whether the key can derive other keys (key exchange). Value: `"drve"`.
public var kSecAttrCanDerive: CFString { "drve" }
/// Whether the key can sign. Value: `"sign"`.
public var kSecAttrCanSign: CFString { "sign" }
/// Whether the key can verify signatures. Value: `"vrfy"`.
public var kSecAttrCanVerify: CFString { "vrfy" }
/// Whether the key can wrap other keys. Value: `"wrap"`.
public var kSecAttrCanWrap: CFString { "wrap" }
/// Whether the key can unwrap other keys. Value: `"unwp"`.
public var kSecAttrCanUnwrap: CFString { "unwp" }

/// The Secure Enclave's token, the value of `kSecAttrTokenID` for enclave keys. Value: `"com.apple.setoken"`.
public var kSecAttrTokenIDSecureEnclave: CFString { "com.apple.setoken" }

/// `SecKeyCreateRandomKey`'s dictionary of attributes for the private key. Value: `"private"`.
public var kSecPrivateKeyAttrs: CFString { "private" }
/// `SecKeyCreateRandomKey`'s dictionary of attributes for the public key. Value: `"public"`.
public var kSecPublicKeyAttrs: CFString { "public" }

// MARK: Key types and classes

/// Elliptic-curve keys on the NIST prime curves P-256, P-384 and P-521. Value: `"73"`.
public var kSecAttrKeyTypeECSECPrimeRandom: CFString { "73" }
/// The older name of ``kSecAttrKeyTypeECSECPrimeRandom``, the same value. Value: `"73"`.
public var kSecAttrKeyTypeEC: CFString { "73" }
/// RSA keys. Value: `"42"`.
public var kSecAttrKeyTypeRSA: CFString { "42" }
/// DSA keys (refused by every SecKey function here, as on iOS). Value: `"43"`.
public var kSecAttrKeyTypeDSA: CFString { "43" }
/// AES keys (symmetric; not supported by SecKey here). Value: `"2147483649"`.
public var kSecAttrKeyTypeAES: CFString { "2147483649" }

/// A public key. Value: `"0"`.
public var kSecAttrKeyClassPublic: CFString { "0" }
/// A private key. Value: `"1"`.
public var kSecAttrKeyClassPrivate: CFString { "1" }
/// A symmetric key (not supported by SecKey here). Value: `"2"`.
public var kSecAttrKeyClassSymmetric: CFString { "2" }

// MARK: Key exchange parameters

/// `SecKeyCopyKeyExchangeResult`: the number of bytes the KDF variants derive. Value: `"requestedSize"`.
public var kSecKeyKeyExchangeParameterRequestedSize: CFString { "requestedSize" }
/// `SecKeyCopyKeyExchangeResult`: the KDF's shared info, as data. Value: `"sharedInfo"`.
public var kSecKeyKeyExchangeParameterSharedInfo: CFString { "sharedInfo" }
#endif
