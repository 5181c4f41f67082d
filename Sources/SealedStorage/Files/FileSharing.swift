/// Who besides the owner may use a directory and the files in it.
///
/// The real boundary between users on Linux is file ownership and mode bits, so every
/// directory and file GroupVault creates gets an explicit mode, whatever the umask says.
package enum FileSharing: Sendable, Equatable {
    /// Owner only: directories 0700, files 0600. The default.
    case ownerOnly
    /// Shared with the directory's Unix group: setgid directories 2770 (new files inherit the
    /// group), files 0660. For an app and a widget running as different users in one group.
    case unixGroup

    /// The mode for directories.
    package var directoryMode: UInt16 { self == .ownerOnly ? 0o700 : 0o2770 }
    /// The mode for files.
    package var fileMode: UInt16 { self == .ownerOnly ? 0o600 : 0o660 }
    /// Permission bits that must not be set on anything this sharing mode trusts.
    package var forbiddenBits: UInt16 { self == .ownerOnly ? 0o077 : 0o007 }
}
