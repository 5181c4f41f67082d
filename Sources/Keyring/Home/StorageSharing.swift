import SealedStorage

/// Who besides the owner may use a keyring home and the group containers in it.
///
/// Linux enforces no entitlements; file ownership and mode bits are the real boundary between
/// users. See SECURITY.md for what each mode protects against.
public enum StorageSharing: String, Sendable, Hashable, Codable {
    /// Directories 0700, files 0600: only the owning user. The default.
    case ownerOnly
    /// Setgid directories 2770 and files 0660: the owner and the directory's Unix group, for an
    /// app and a widget that run as different users sharing one Unix group.
    case unixGroup

    package var fileSharing: FileSharing { self == .ownerOnly ? .ownerOnly : .unixGroup }
}
