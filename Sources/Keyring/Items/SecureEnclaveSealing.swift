#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// How an emulated Secure Enclave private key is kept: its bytes are sealed a second time,
/// inside the item row that is itself sealed, under a key derived from the home's master
/// secret for this purpose alone (``KeyringDatabase/secureEnclaveKey``).
///
/// There is no enclave on Linux. What this emulates is the device's contract, not its
/// hardware: the key's bytes are never returned through any API (`kSecReturnData` gives this
/// opaque blob, as a device gives its token's wrapped key), never exported by `keys export`
/// (which exports group keysets only), and never written to a file in the clear. The signing
/// code in the `Security` module gets the bytes through ``Keyring/itemsForKeyUse(matching:limit:)``,
/// a package-only entry point. A process that can read the home's master secret can still
/// derive the key: the boundary is the API, as documented in docs/SECITEM.md.
///
/// A blob: `"GVSE"` | version 1 | nonce (24 bytes) | XChaCha20-Poly1305 of the key bytes,
/// authenticating `"GVSE"`, the version and the key's application label (so a blob copied into
/// another key's item fails to open).
enum SecureEnclaveSealing {
    private static let magic = Array("GVSE".utf8)
    private static let version: UInt8 = 1
    private static var headerSize: Int { magic.count + 1 + XChaCha20Poly1305.nonceByteCount }

    /// `keyBytes` sealed for the key whose application label is `label`.
    static func seal(_ keyBytes: Data, label: Data, key: SymmetricKey) -> Data {
        let nonce = XChaCha20Poly1305.Nonce.random()
        let sealed = XChaCha20Poly1305.seal(Array(keyBytes), using: key, nonce: nonce, authenticating: additionalData(label))
        return Data(magic + [version] + nonce.bytes + sealed)
    }

    /// The key bytes of a blob made by ``seal(_:label:key:)``.
    /// - Throws: ``KeyringStatus/decode`` for a blob that is malformed or fails authentication.
    static func open(_ blob: Data, label: Data, key: SymmetricKey, item: String) throws(KeyringError) -> Data {
        let bytes = Array(blob)
        guard bytes.count >= headerSize + XChaCha20Poly1305.tagByteCount, Array(bytes[0..<magic.count]) == magic,
              bytes[magic.count] == version else {
            throw KeyringError(.decode, "the Secure Enclave key of \(item) is not a sealed key blob of version \(version); delete the key and create it again")
        }
        let nonce = try! XChaCha20Poly1305.Nonce(bytes: bytes[(magic.count + 1)..<headerSize])  // length checked above
        do {
            return Data(try XChaCha20Poly1305.open(Array(bytes[headerSize...]), using: key, nonce: nonce, authenticating: additionalData(label)))
        } catch {
            throw KeyringError(.decode, "the Secure Enclave key of \(item) fails authentication (altered, or copied from another key or home); delete the key and create it again")
        }
    }

    private static func additionalData(_ label: Data) -> [UInt8] {
        magic + [version] + Array(label)
    }
}
