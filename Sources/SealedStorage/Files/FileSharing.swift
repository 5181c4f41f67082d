import SystemPackage

/// Who besides the owner may use a directory and the files in it.
///
/// The real boundary between users on Linux is file ownership and mode bits, so every
/// directory and file GroupVault creates gets an explicit mode, whatever the umask says.
package enum FileSharing: Sendable, Equatable {
    /// Owner only: directories 0700, files 0600. The default.
    case ownerOnly
    /// Shared with the home's Unix group: setgid directories 2770 (new files inherit the
    /// group), files 0660. For an app and a widget running as different users in one group.
    ///
    /// `expectedGroup` is the home's group, the gid of the home's root as it was vetted when
    /// the home was opened (``DirectoryHandle/boundToItsGroup()``). Once it is known, every
    /// directory must carry it and the setgid bit, and every file must carry it unless it is
    /// this user's and grants its group nothing: being in *some* group of the entry (`users`,
    /// shared with people outside the app group) is not enough. `nil` before the home is
    /// known (a caller handed only a path), where any group of this process is accepted.
    case unixGroup(expectedGroup: UInt32?)

    /// Shared with a Unix group not known yet: ``unixGroup(expectedGroup:)`` with `nil`, the
    /// form for a caller that has no home's root to learn the group from.
    package static var unixGroup: FileSharing { .unixGroup(expectedGroup: nil) }

    /// Whether anyone besides the owner shares the files: `true` for every group sharing,
    /// whether or not its group is known yet (`== .unixGroup` compares the group too).
    package var isGroupShared: Bool {
        if case .unixGroup = self { return true }
        return false
    }

    /// The home's group, when this is group sharing whose group is known.
    package var expectedGroup: UInt32? {
        if case .unixGroup(let group) = self { return group }
        return nil
    }

    /// The mode for directories.
    package var directoryMode: UInt16 { isGroupShared ? 0o2770 : 0o700 }
    /// The mode for files.
    package var fileMode: UInt16 { isGroupShared ? 0o660 : 0o600 }
    /// Permission bits that must not be set on anything this sharing mode trusts.
    package var forbiddenBits: UInt16 { isGroupShared ? 0o007 : 0o077 }
}
