#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import SystemPackage

extension Keyring {
    /// The subdirectories of `Library/` created in every new group container, as macOS creates
    /// them.
    static let librarySubdirectories = ["Caches", "Application Support", "Preferences"]

    /// The group container of the application group `group`: the directory every app of the
    /// group shares, `<home>/Group Containers/<group>/` (the macOS layout).
    ///
    /// Like `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` on iOS, it returns
    /// `nil` when the identity is not entitled to `group` (it is not in
    /// `com.apple.security.application-groups`). On first use the directory is created with
    /// `Library/Caches`, `Library/Application Support` and `Library/Preferences` inside.
    ///
    /// Directories are owner-only (0700), or setgid 2770 when the home's sharing is
    /// ``StorageSharing/unixGroup``, whatever the umask. Each directory on the way, whether
    /// found or created, must be a real directory (not a symbolic link), owned by this user and
    /// closed to users outside the sharing mode: anything else could redirect or expose what
    /// the group shares, so it is refused, never repaired silently.
    ///
    /// ```swift
    /// guard let container = try keyring.containerURL(for: GroupIdentifier(validating: "group.com.example")) else {
    ///     fatalError("add group.com.example to com.apple.security.application-groups")
    /// }
    /// let settings = container.appendingPathComponent("Library/Preferences/settings.plist")
    /// ```
    ///
    /// - Throws: ``KeyringError``: ``KeyringStatus/notAvailable`` when a directory is a symbolic
    ///   link, not a directory, owned by another user or open to other users (the reason says
    ///   how to fix it); ``KeyringStatus/writePermission`` when a directory cannot be created;
    ///   ``KeyringStatus/ioError`` for other system failures.
    public func containerURL(for group: GroupIdentifier) throws(KeyringError) -> URL? {
        guard let container = try containerDirectory(for: group) else { return nil }
        // The caller gets a path, and will use it: it must lead to the container that was
        // made and vetted, not through a directory swapped for a link since the home opened it.
        let leadsThere: Bool
        do {
            leadsThere = try container.isNamed(by: container.path)
        } catch {
            throw Self.containerFailure(error, operation: "open group container \(group)", sharing: home.sharing)
        }
        guard leadsThere else {
            throw KeyringError(.notAvailable, "open group container \(group): \(container.path) no longer leads to the container this keyring made and vetted: a directory on the way was moved or replaced by a symbolic link, which could send the group's files somewhere else. Remove the link (GroupVault recreates the directory) and open the keyring again")
        }
        return URL(fileURLWithPath: container.path.string, isDirectory: true)
    }

    /// The group container of `group`, as ``containerURL(for:)`` makes and vets it, held open:
    /// for a caller inside the library that goes on to use files in it (relative to the
    /// handle, so a container swapped for a symbolic link afterwards is not followed).
    /// `nil` when the identity is not entitled to `group`.
    ///
    /// Every level, from the home's held `Group Containers/` down to `Library/Caches`, is
    /// created or opened `O_NOFOLLOW` relative to the level above and vetted through its
    /// descriptor (``DirectoryHandle/subdirectory(_:creating:)``): in the `unixGroup` mode any
    /// member can swap a directory of the container for a link between one step and the next.
    /// - Throws: as ``containerURL(for:)``.
    package func containerDirectory(for group: GroupIdentifier) throws(KeyringError) -> DirectoryHandle? {
        guard identity.isEntitled(toApplicationGroup: group) else { return nil }
        do {
            let container = try home.directories.containers().subdirectory(creating: group.rawValue)
            // A member may make the container first, with an ACL its 2770 mode would not show.
            try container.checkNoAccessControlList()
            // `Library/` opened once for its three: every `Vault` and every cold read opens the
            // container, and walking each path from the container opened `Library/` four times.
            let library = try container.subdirectory(creating: "Library")
            for subdirectory in Self.librarySubdirectories {
                _ = try library.subdirectory(creating: subdirectory)
            }
            return container
        } catch {
            throw Self.containerFailure(error, operation: "open group container \(group)", sharing: home.sharing)
        }
    }

    /// Where the group container of `group` is, without touching the file system: `nil` when
    /// the identity is not entitled to `group`. For showing an identity (`vaultcli identity`),
    /// which reads and so must not create: ``containerURL(for:)`` creates the container.
    ///
    /// ```swift
    /// for group in keyring.identity.applicationGroups {
    ///     print(group, keyring.containerLocation(for: group)?.path ?? "(not entitled)")
    /// }
    /// ```
    public func containerLocation(for group: GroupIdentifier) -> URL? {
        guard identity.isEntitled(toApplicationGroup: group) else { return nil }
        return URL(fileURLWithPath: home.containerDirectory(for: group).string, isDirectory: true)
    }

    /// A storage refusal on the way to a container, with the command that fixes it.
    static func containerFailure(_ error: StorageError, operation: String, sharing: StorageSharing) -> KeyringError {
        let path = error.path
        let mode = String(sharing.fileSharing.directoryMode, radix: 8)
        switch error.kind {
        case .symbolicLink:
            return KeyringError(.notAvailable, "\(operation): \(path) is a symbolic link; group containers and the directories above them must be real directories, because a link could send the group's files somewhere else. Remove the link (GroupVault recreates the directory), or point GROUPVAULT_HOME at the real location", underlyingError: error, remedy: error.remedy)
        case .wrongFileType:
            return KeyringError(.notAvailable, "\(operation): \(path) exists but is not a directory; move it away so GroupVault can create the directory", underlyingError: error, remedy: error.remedy)
        case .wrongOwner(let owner, let expected):
            return KeyringError(.notAvailable, "\(operation): \(path) is owned by uid \(owner), not by this user (uid \(expected)), who could change what the group shares; run `chown \(expected) '\(path)'` or remove it so GroupVault recreates it", underlyingError: error, remedy: error.remedy)
        case .outsideSharedGroup where error.hint != nil, .insecurePermissions where error.hint != nil:
            // The home's group rule and the ACL refusal say exactly what is wrong, and the fix.
            return KeyringError(.notAvailable, "\(operation): \(path): \(error.hint ?? "")", underlyingError: error, remedy: error.remedy)
        case .outsideSharedGroup(let owner, let group):
            return KeyringError(.notAvailable, "\(operation): \(path) belongs to uid \(owner) and gid \(group), and this process is in neither; add this user to group \(group) (the group the app and its widget share), or run `chgrp <shared group> '\(path)'`", underlyingError: error, remedy: error.remedy)
        case .insecurePermissions(let current):
            let who = sharing == .ownerOnly ? "users other than its owner" : "users outside its owner and Unix group"
            return KeyringError(.notAvailable, "\(operation): \(path) has mode \(String(current, radix: 8)), which lets \(who) in; run `chmod \(mode) '\(path)'`", underlyingError: error, remedy: error.remedy)
        case .system, .notDurable, .tooLarge:
            return KeyringError(storage: error, while: operation)
        }
    }
}
