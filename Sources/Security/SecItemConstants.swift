#if !canImport(Darwin)
import Foundation
import Keyring

// The Security framework's dictionary keys and values, with exactly Apple's string values
// (docs/SECITEM.md; Apple's open-source `SecItemConstants.c`). Apple code logs,
// compares and persists these strings, so a different spelling would be a behaviour change.
//
// They are read-only computed properties rather than `let`s: `NSString` is not `Sendable`, and
// a computed constant needs no `nonisolated(unsafe)` to be safe in Swift 6. Reading one is
// source-identical to reading Apple's `let`, and the values compare equal (`==`, `isEqual`,
// `as String`) every time; only object identity (`===`), which Apple code does not rely on,
// differs between reads.

// MARK: Item classes (`kSecClass` and its values)

/// The dictionary key naming an item's class; required by every SecItem call. Value: `"class"`.
public var kSecClass: CFString { "class" }

/// Generic password items: the class this emulator is built for. Value: `"genp"`.
public var kSecClassGenericPassword: CFString { "genp" }

/// Internet password items (server, protocol, port, path, authentication type, security domain). Value: `"inet"`.
public var kSecClassInternetPassword: CFString { "inet" }

/// Cryptographic keys (`SecKey`): EC and RSA, public and private, Secure Enclave keys emulated. Value: `"keys"`.
public var kSecClassKey: CFString { "keys" }

/// Certificates (`SecCertificate`, DER). Value: `"cert"`.
public var kSecClassCertificate: CFString { "cert" }

/// Identities: a stored certificate whose public key hash equals a stored private key's application label. Value: `"idnt"`.
public var kSecClassIdentity: CFString { "idnt" }

// MARK: Item attributes

/// The service a generic password belongs to (part of its primary key). Value: `"svce"`.
public var kSecAttrService: CFString { "svce" }

/// The account name (part of the primary key). Value: `"acct"`.
public var kSecAttrAccount: CFString { "acct" }

/// The keychain access group (part of the primary key); must be one of the caller's access groups. Value: `"agrp"`.
public var kSecAttrAccessGroup: CFString { "agrp" }

/// A user-visible label. Value: `"labl"`.
public var kSecAttrLabel: CFString { "labl" }

/// Application-defined bytes (`Data`), not secret. Value: `"gena"`.
public var kSecAttrGeneric: CFString { "gena" }

/// A user-visible description of the kind of item. Value: `"desc"`.
public var kSecAttrDescription: CFString { "desc" }

/// A user-editable comment. Value: `"icmt"`.
public var kSecAttrComment: CFString { "icmt" }

/// The creator code of a password (a four-character code as a number, e.g. `0x61437274` for `aCrt`); stored and matched, not part of the primary key. Value: `"crtr"`.
public var kSecAttrCreator: CFString { "crtr" }

/// The type code of a password (a four-character code as a number); stored and matched, not part of the primary key. On a key the same string is ``kSecAttrKeyType``. Value: `"type"`.
public var kSecAttrType: CFString { "type" }

/// When the item was added; returned with attributes, set by the keyring. Value: `"cdat"`.
public var kSecAttrCreationDate: CFString { "cdat" }

/// When the item was last changed; returned with attributes, set by the keyring. Value: `"mdat"`.
public var kSecAttrModificationDate: CFString { "mdat" }

/// Whether the item is hidden from keychain browsers, a Boolean; stored and matched. Value: `"invi"`.
public var kSecAttrIsInvisible: CFString { "invi" }

/// Whether the item is a negative entry (no valid password, "never ask again"), a Boolean; stored and matched. Value: `"nega"`.
public var kSecAttrIsNegative: CFString { "nega" }

/// Whether the item syncs through iCloud (part of the primary key); `kSecAttrSynchronizableAny` in queries. Value: `"sync"`.
public var kSecAttrSynchronizable: CFString { "sync" }

/// The value of `kSecAttrSynchronizable` in a query that matches synchronizable and local items alike. Value: `"syna"`.
public var kSecAttrSynchronizableAny: CFString { "syna" }

/// When the item can be read; one of the `kSecAttrAccessible...` values (default `kSecAttrAccessibleWhenUnlocked`). Value: `"pdmn"`.
public var kSecAttrAccessible: CFString { "pdmn" }

/// A ``SecAccessControl`` from ``SecAccessControlCreateWithFlags(_:_:_:_:)``; excludes `kSecAttrAccessible`. Value: `"accc"`.
public var kSecAttrAccessControl: CFString { "accc" }

/// The server of an internet password. Value: `"srvr"`.
public var kSecAttrServer: CFString { "srvr" }

/// The protocol of an internet password; one of the `kSecAttrProtocol...` values. Value: `"ptcl"`.
public var kSecAttrProtocol: CFString { "ptcl" }

/// The port of an internet password (a number). Value: `"port"`.
public var kSecAttrPort: CFString { "port" }

/// The path of an internet password. Value: `"path"`.
public var kSecAttrPath: CFString { "path" }

/// The authentication scheme of an internet password; one of the `kSecAttrAuthenticationType...` values. Value: `"atyp"`.
public var kSecAttrAuthenticationType: CFString { "atyp" }

/// The security domain (realm) of an internet password. Value: `"sdmn"`.
public var kSecAttrSecurityDomain: CFString { "sdmn" }

/// The token that holds a key: only ``kSecAttrTokenIDSecureEnclave`` (emulated). Value: `"tkid"`.
public var kSecAttrTokenID: CFString { "tkid" }

/// The item's persistent reference, as returned with its attributes. Value: `"persistref"`.
public var kSecAttrPersistentReference: CFString { "persistref" }

// MARK: Certificate attributes (`kSecClassCertificate`)

/// The certificate's type, a number (part of a certificate's primary key; X.509 v3 is 3). Value: `"ctyp"`.
public var kSecAttrCertificateType: CFString { "ctyp" }

/// The certificate's encoding, a number (DER is 3). Value: `"cenc"`.
public var kSecAttrCertificateEncoding: CFString { "cenc" }

/// The DER of the certificate's subject name, `Data`. Value: `"subj"`.
public var kSecAttrSubject: CFString { "subj" }

/// The DER of the certificate's issuer name, `Data` (part of a certificate's primary key). Value: `"issr"`.
public var kSecAttrIssuer: CFString { "issr" }

/// The certificate's serial number, `Data` (its DER integer's content bytes; part of a
/// certificate's primary key). Value: `"slnr"`.
public var kSecAttrSerialNumber: CFString { "slnr" }

/// The certificate's subject key identifier extension, `Data`. Value: `"skid"`.
public var kSecAttrSubjectKeyID: CFString { "skid" }

/// The SHA-1 of the certificate's public key, `Data`: equal to its private key's
/// ``kSecAttrApplicationLabel``. Value: `"pkhh"`.
public var kSecAttrPublicKeyHash: CFString { "pkhh" }

// MARK: Accessibility values (`kSecAttrAccessible`); the same strings as `Accessibility`

/// Readable only while the device is unlocked: the default. Value: `"ak"`.
public var kSecAttrAccessibleWhenUnlocked: CFString { "ak" }

/// As `kSecAttrAccessibleWhenUnlocked`, never migrated to another device. Value: `"aku"`.
public var kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString { "aku" }

/// Readable once the device has been unlocked after boot: what widgets and background work need. Value: `"ck"`.
public var kSecAttrAccessibleAfterFirstUnlock: CFString { "ck" }

/// As `kSecAttrAccessibleAfterFirstUnlock`, never migrated to another device. Value: `"cku"`.
public var kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString { "cku" }

/// Readable only while unlocked, on a device with a passcode. Value: `"akpu"`.
public var kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString { "akpu" }

/// Always readable. Deprecated by Apple (not marked deprecated here, so code under test compiles without new warnings). Value: `"dk"`.
public var kSecAttrAccessibleAlways: CFString { "dk" }

/// Always readable, never migrated. Deprecated by Apple. Value: `"dku"`.
public var kSecAttrAccessibleAlwaysThisDeviceOnly: CFString { "dku" }

// MARK: Search keys and values

/// How many items a search returns: `kSecMatchLimitOne` (the default), `kSecMatchLimitAll`, or a number. Value: `"m_Limit"`.
public var kSecMatchLimit: CFString { "m_Limit" }

/// Return the first match only. Value: `"m_LimitOne"`.
public var kSecMatchLimitOne: CFString { "m_LimitOne" }

/// Return every match, as an array. Value: `"m_LimitAll"`.
public var kSecMatchLimitAll: CFString { "m_LimitAll" }

/// Compare string attributes without regard to case (a Boolean). Value: `"m_CaseInsensitive"`.
public var kSecMatchCaseInsensitive: CFString { "m_CaseInsensitive" }

// MARK: Return-type keys (each takes a Boolean)

/// Return the secret (`Data`). Value: `"r_Data"`.
public var kSecReturnData: CFString { "r_Data" }

/// Return the attributes (`[String: Any]`). Value: `"r_Attributes"`.
public var kSecReturnAttributes: CFString { "r_Attributes" }

/// Return a reference object. Accepted as on Apple platforms; a password has no reference
/// object, so the result holds none (it still counts as a return key for the result's shape). Value: `"r_Ref"`.
public var kSecReturnRef: CFString { "r_Ref" }

/// Return an opaque `Data` that later addresses the item as `kSecValuePersistentRef`. Value: `"r_PersistentRef"`.
public var kSecReturnPersistentRef: CFString { "r_PersistentRef" }

// MARK: Value keys

/// The secret (`Data`). Value: `"v_Data"`.
public var kSecValueData: CFString { "v_Data" }

/// A reference object to add (`SecKey`, `SecCertificate` or `SecIdentity`). Value: `"v_Ref"`.
public var kSecValueRef: CFString { "v_Ref" }

/// A persistent reference returned earlier: addresses exactly that item. Value: `"v_PersistentRef"`.
public var kSecValuePersistentRef: CFString { "v_PersistentRef" }

// MARK: Other keys

/// On macOS, selects the iOS-style keychain; this keyring always is one, so a Boolean is accepted and has no further effect. Value: `"nleg"`.
public var kSecUseDataProtectionKeychain: CFString { "nleg" }

/// A LocalAuthentication context. Not emulated (`errSecUnimplemented`): set `UserPresence.response` instead. Value: `"u_AuthCtx"`.
public var kSecUseAuthenticationContext: CFString { "u_AuthCtx" }

/// Whether a user-presence prompt may be shown: `kSecUseAuthenticationUIAllow`, `...Fail` or `...Skip`. Value: `"u_AuthUI"`.
public var kSecUseAuthenticationUI: CFString { "u_AuthUI" }

/// The text of the user-presence prompt (a string); accepted, as there is no prompt to show. Value: `"u_OpPrompt"`.
public var kSecUseOperationPrompt: CFString { "u_OpPrompt" }

/// Deprecated by Apple for `kSecUseAuthenticationUI`, still accepted: `true` fails with
/// `errSecInteractionNotAllowed` instead of prompting (as `kSecUseAuthenticationUIFail`),
/// `false` allows the prompt. Value: `"u_NoAuthUI"`.
public var kSecUseNoAuthenticationUI: CFString { "u_NoAuthUI" }

/// Prompt when an item needs user presence (the default). Value: `"u_AuthUIA"`.
public var kSecUseAuthenticationUIAllow: CFString { "u_AuthUIA" }

/// Fail with `errSecInteractionNotAllowed` instead of prompting. Value: `"u_AuthUIF"`.
public var kSecUseAuthenticationUIFail: CFString { "u_AuthUIF" }

/// Silently skip items that would need a prompt. Value: `"u_AuthUIS"`.
public var kSecUseAuthenticationUISkip: CFString { "u_AuthUIS" }

// MARK: Protocol values (`kSecAttrProtocol`)
/// Value: `"ftp "`.
public var kSecAttrProtocolFTP: CFString { "ftp " }
/// Value: `"ftpa"`.
public var kSecAttrProtocolFTPAccount: CFString { "ftpa" }
/// Value: `"http"`.
public var kSecAttrProtocolHTTP: CFString { "http" }
/// Value: `"irc "`.
public var kSecAttrProtocolIRC: CFString { "irc " }
/// Value: `"nntp"`.
public var kSecAttrProtocolNNTP: CFString { "nntp" }
/// Value: `"pop3"`.
public var kSecAttrProtocolPOP3: CFString { "pop3" }
/// Value: `"smtp"`.
public var kSecAttrProtocolSMTP: CFString { "smtp" }
/// Value: `"sox "`.
public var kSecAttrProtocolSOCKS: CFString { "sox " }
/// Value: `"imap"`.
public var kSecAttrProtocolIMAP: CFString { "imap" }
/// Value: `"ldap"`.
public var kSecAttrProtocolLDAP: CFString { "ldap" }
/// Value: `"atlk"`.
public var kSecAttrProtocolAppleTalk: CFString { "atlk" }
/// Value: `"afp "`.
public var kSecAttrProtocolAFP: CFString { "afp " }
/// Value: `"teln"`.
public var kSecAttrProtocolTelnet: CFString { "teln" }
/// Value: `"ssh "`.
public var kSecAttrProtocolSSH: CFString { "ssh " }
/// Value: `"ftps"`.
public var kSecAttrProtocolFTPS: CFString { "ftps" }
/// Value: `"htps"`.
public var kSecAttrProtocolHTTPS: CFString { "htps" }
/// Value: `"htpx"`.
public var kSecAttrProtocolHTTPProxy: CFString { "htpx" }
/// Value: `"htsx"`.
public var kSecAttrProtocolHTTPSProxy: CFString { "htsx" }
/// Value: `"ftpx"`.
public var kSecAttrProtocolFTPProxy: CFString { "ftpx" }
/// Value: `"smb "`.
public var kSecAttrProtocolSMB: CFString { "smb " }
/// Value: `"rtsp"`.
public var kSecAttrProtocolRTSP: CFString { "rtsp" }
/// Value: `"rtsx"`.
public var kSecAttrProtocolRTSPProxy: CFString { "rtsx" }
/// Value: `"daap"`.
public var kSecAttrProtocolDAAP: CFString { "daap" }
/// Value: `"eppc"`.
public var kSecAttrProtocolEPPC: CFString { "eppc" }
/// Value: `"ipp "`.
public var kSecAttrProtocolIPP: CFString { "ipp " }
/// Value: `"ntps"`.
public var kSecAttrProtocolNNTPS: CFString { "ntps" }
/// Value: `"ldps"`.
public var kSecAttrProtocolLDAPS: CFString { "ldps" }
/// Value: `"tels"`.
public var kSecAttrProtocolTelnetS: CFString { "tels" }
/// Value: `"imps"`.
public var kSecAttrProtocolIMAPS: CFString { "imps" }
/// Value: `"ircs"`.
public var kSecAttrProtocolIRCS: CFString { "ircs" }
/// Value: `"pops"`.
public var kSecAttrProtocolPOP3S: CFString { "pops" }

// MARK: Authentication type values (`kSecAttrAuthenticationType`)
/// Value: `"ntlm"`.
public var kSecAttrAuthenticationTypeNTLM: CFString { "ntlm" }
/// Value: `"msna"`.
public var kSecAttrAuthenticationTypeMSN: CFString { "msna" }
/// Value: `"dpaa"`.
public var kSecAttrAuthenticationTypeDPA: CFString { "dpaa" }
/// Value: `"rpaa"`.
public var kSecAttrAuthenticationTypeRPA: CFString { "rpaa" }
/// Value: `"http"`.
public var kSecAttrAuthenticationTypeHTTPBasic: CFString { "http" }
/// Value: `"httd"`.
public var kSecAttrAuthenticationTypeHTTPDigest: CFString { "httd" }
/// Value: `"form"`.
public var kSecAttrAuthenticationTypeHTMLForm: CFString { "form" }
/// Value: `"dflt"`.
public var kSecAttrAuthenticationTypeDefault: CFString { "dflt" }
#endif
