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
    private static let format = SealedBox.Format(magic: "GVSE", version: 1)

    /// `keyBytes` sealed for the key whose application label is `label`.
    static func seal(_ keyBytes: Data, label: Data, key: SymmetricKey) -> Data {
        Data(SealedBox.seal(Array(keyBytes), format: format, using: key, authenticating: additionalData(label)).combined)
    }

    /// The key bytes of a blob made by ``seal(_:label:key:)``.
    /// - Throws: ``KeyringStatus/decode`` for a blob that is malformed or fails authentication.
    static func open(_ blob: Data, label: Data, key: SymmetricKey, item: String) throws(KeyringError) -> Data {
        let box: SealedBox
        do {
            box = try SealedBox(combined: Array(blob), format: format)
        } catch {
            throw KeyringError(.decode, "the Secure Enclave key of \(item) is not a sealed key blob of version \(format.version); delete the key and create it again")
        }
        do {
            return Data(try box.open(using: key, authenticating: additionalData(label)))
        } catch {
            throw KeyringError(.decode, "the Secure Enclave key of \(item) fails authentication (altered, or copied from another key or home); delete the key and create it again")
        }
    }

    private static func additionalData(_ label: Data) -> [UInt8] {
        format.bytes + Array(label)
    }
}
