#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import SystemPackage

/// One Codable value per access group and kind, sealed at rest under a key derived from the
/// home's master secret, read without a lock and replaced atomically under a cross-process lock.
///
/// This is the single storage mechanism of the keyring: items, keysets and the Vault's trust
/// ledger are all sealed documents of different kinds. The file format (docs/STORAGE.md):
///
/// ```
/// "GVKD" (4 bytes) | version 0x01 (1 byte) | nonce (24 bytes) | ciphertext + tag
/// additional data = "GVKD" | 0x01 | kind | 0x00 | access group
/// plaintext       = JSON of the value
/// ```
///
/// Binding the kind and the group in the additional data means a file copied to another group
/// or renamed to another kind fails authentication. A file that fails is reported as
/// ``KeyringStatus/decode`` and is never overwritten: updates refuse to run on top of it.
///
/// `Content` is required to be `Codable` and `Equatable` by the extension that reads and writes
/// it, not by the type: a process then builds the type's metadata without looking those
/// conformances up among every loaded library's, which the legacy imports each new process
/// checks for made it pay (about 0.6 million instructions per kind on a cold read).
package struct SealedDocument<Content: Sendable>: Sendable {
    /// The largest sealed document accepted, in bytes. Reading refuses anything larger before
    /// allocating for it; writing refuses to produce it.
    package static var maximumSize: Int { 16 * 1024 * 1024 }

    private static var format: SealedBox.Format { SealedBox.Format(magic: "GVKD", version: 1) }

    package let home: KeyringHome
    package let group: GroupIdentifier
    /// What the document holds, e.g. `items` or `keyset`; also its file name stem.
    package let kind: String

    /// The sealed file, for messages: it is used only relative to its held directory.
    package let path: FilePath
    /// The sealed file's name in the group's keychain directory.
    private let fileName: String
    /// Its lock file's name there; the lock file is never renamed.
    private let lockName: String

    package init(home: KeyringHome, group: GroupIdentifier, kind: String) {
        self.home = home
        self.group = group
        self.kind = kind
        fileName = "\(kind).sealed"
        lockName = "\(kind).lock"
        path = home.keychainDirectory(for: group).appending(fileName)
    }

    /// The sealed file `fileName` in `directory`: a regular file, not a link, bounded. Only its
    /// write bits are forbidden beyond the owner's: the content is authenticated, so reading it
    /// tells nobody anything; changing it in place is what must be impossible.
    private static func read(_ fileName: String, in directory: DirectoryHandle, sharing: FileSharing) throws(StorageError) -> [UInt8]? {
        try directory.read(fileName, maximumSize: maximumSize, forbiddenModeBits: sharing.forbiddenBits & 0o222)
    }
}

extension SealedDocument where Content: Codable & Equatable {
    /// The current value, or `nil` if the document was never written. Takes no lock.
    package func read() throws(KeyringError) -> Content? {
        // The group's directory is opened O_NOFOLLOW relative to the home's held keychains
        // directory and vetted, and the file relative to it: no level is looked up by path.
        guard let directory = try home.keychain(for: group, creating: false) else { return nil }
        let bytes = try home.mapStorage("read \(kind) of \(group)") { () throws(StorageError) -> [UInt8]? in
            try Self.read(fileName, in: directory, sharing: home.sharing.fileSharing)
        }
        guard let bytes else { return nil }
        return try open(bytes, key: try storageKey())
    }

    /// Runs `body` on the current value under the exclusive lock and writes the result back
    /// atomically if it changed. Concurrent updates from any process are serialized, so none
    /// is lost. If `body` throws, nothing is written.
    package func update<Result>(
        durability: Durability = .full,
        _ body: (inout Content?) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        try withLock { (document: Locked) throws(KeyringError) -> Result in
            let original = try document.read()
            var content = original
            let result = try body(&content)
            if content != original {
                try document.write(content, durability: durability)
            }
            return result
        }
    }

    /// The document while this process holds its lock: read and write it as often as needed
    /// until the enclosing ``SealedDocument/withLock(_:)`` returns. Do not keep it beyond that.
    package struct Locked: Sendable {
        /// The document this handle locks.
        package let document: SealedDocument
        fileprivate let key: SymmetricKey
        /// The group's keychain directory, held while the lock is.
        fileprivate let directory: DirectoryHandle

        /// The group the document belongs to.
        package var group: GroupIdentifier { document.group }

        /// The current value, read under the lock.
        package func read() throws(KeyringError) -> Content? {
            let bytes = try document.home.mapStorage("read \(document.kind) of \(group)") { () throws(StorageError) in
                try SealedDocument.read(document.fileName, in: directory, sharing: document.home.sharing.fileSharing)
            }
            return try bytes.map { bytes throws(KeyringError) in try document.open(bytes, key: key) }
        }

        /// Replaces the document with `content` (`nil` removes it), atomically.
        ///
        /// A failed directory fsync after the rename is retried once and then not reported: the
        /// change is in effect and visible, and keychain operations are not idempotent (a
        /// reported failure would make a retried add a duplicate, a retried rotation a second
        /// rotation). The file becomes durable at the next successful sync of its directory.
        package func write(_ content: Content?, durability: Durability = .full) throws(KeyringError) {
            do {
                try document.write(content, key: key, in: directory, durability: durability)
            } catch let error as StorageError {
                guard case .notDurable = error.kind else {
                    throw KeyringError(storage: error, while: "write \(document.kind) of \(group)")
                }
                // The one retry; its failure is not reported, as said above.
                try? directory.sync()
            } catch let error as KeyringError {
                throw error
            } catch {
                throw KeyringError(.ioError, "write \(document.kind) of \(group) failed: \(error)", underlyingError: error)
            }
        }
    }

    /// Runs `body` holding this document's exclusive cross-process lock.
    package func withLock<Result>(_ body: (Locked) throws(KeyringError) -> Result) throws(KeyringError) -> Result {
        guard let directory = try home.keychain(for: group, creating: true) else {
            throw KeyringError(.ioError, "lock \(kind) of \(group): its keychain directory could not be created")
        }
        let handle = Locked(document: self, key: try storageKey(), directory: directory)
        do {
            return try withExclusiveLock(in: directory, name: lockName) { () throws -> Result in
                // Leftovers of a writer killed mid-write: nobody else can own them while we hold the lock.
                directory.removeStaleTemporaries(for: fileName)
                return try body(handle)
            }
        } catch let error as KeyringError {
            throw error
        } catch let error as StorageError {
            throw KeyringError(storage: error, while: "lock \(kind) of \(group)")
        } catch {
            throw KeyringError(.ioError, "update \(kind) of \(group) failed: \(error)", underlyingError: error)
        }
    }

    private func write(_ content: Content?, key: SymmetricKey, in directory: DirectoryHandle, durability: Durability) throws {
        guard let content else {
            if try directory.removeIfPresent(fileName), durability == .full { try directory.sync() }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let plaintext = Array(try encoder.encode(content))
        let sealed = SealedBox.seal(plaintext, format: Self.format, using: key, authenticating: additionalData).combined
        guard sealed.count <= Self.maximumSize else {
            throw KeyringError(.dataTooLarge, "\(kind) of \(group) would be \(sealed.count) bytes; the limit is \(Self.maximumSize)")
        }
        try directory.replace(fileName, with: sealed, durability: durability)
    }

    fileprivate func open(_ bytes: [UInt8], key: SymmetricKey) throws(KeyringError) -> Content {
        let corrupted = { (detail: String) in
            KeyringError(.decode, "\(kind) file \(path) \(detail); it was not used and will not be overwritten: restore it from a backup or delete it to start over")
        }
        let box: SealedBox
        do {
            box = try SealedBox(combined: bytes, format: Self.format)
        } catch {
            switch error {
            case .truncated: throw corrupted("is truncated (\(bytes.count) bytes)")
            case .foreignMagic: throw corrupted("is not a GroupVault sealed file")
            case .unknownVersion(let version): throw corrupted("has unsupported format version \(version)")
            }
        }
        let plaintext: [UInt8]
        do {
            plaintext = try box.open(using: key, authenticating: additionalData)
        } catch {
            throw corrupted("failed authentication (altered, truncated, or moved from another group)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(Content.self, from: Data(plaintext))
        } catch {
            throw corrupted("authenticated but does not decode as \(kind)")
        }
    }

    private var additionalData: [UInt8] {
        Self.format.bytes + Array(kind.utf8) + [0] + Array(group.rawValue.utf8)
    }

    private func storageKey() throws(KeyringError) -> SymmetricKey {
        try home.documentKey()
    }
}
