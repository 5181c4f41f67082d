import SealedStorage
import SystemPackage

/// A directory tree made for one user's own use (a test keychain's temporary home), created,
/// written and removed through the file layer: for library code such as KeyringTestSupport that
/// must not call the file system itself, and has no other need of SealedStorage's types.
package enum PrivateDirectory {
    /// Creates the owner-only (0700) directory at `path`, and its missing parents, or opens and
    /// vets it when it exists: a directory of this user, not a link, closed to others.
    /// - Throws: ``KeyringError`` with the storage refusal's reason.
    package static func create(atPath path: String) throws(KeyringError) {
        do {
            _ = try DirectoryHandle.ensure(FilePath(path), sharing: .ownerOnly)
        } catch {
            throw KeyringError(storage: error, while: "create directory")
        }
    }

    /// Replaces the file `name` in the owner-only directory at `path` with `bytes`, atomically
    /// (mode 0600), relative to the directory opened `O_NOFOLLOW` and vetted.
    package static func write(_ bytes: [UInt8], named name: String, inDirectoryAtPath path: String) throws(KeyringError) {
        do {
            try DirectoryHandle(opening: FilePath(path), sharing: .ownerOnly).replace(name, with: bytes, durability: .atomic)
        } catch {
            throw KeyringError(storage: error, while: "write \(name)")
        }
    }

    /// Removes the directory at `path` and everything below it, following no link below it.
    package static func removeTree(atPath path: String) throws(KeyringError) {
        do {
            try DirectoryHandle.removeTree(at: FilePath(path))
        } catch {
            throw KeyringError(storage: error, while: "remove directory")
        }
    }
}
