import SystemPackage

/// Creating and vetting directories in shared storage.
///
/// Both work through descriptors: the parent is opened once (`O_DIRECTORY | O_NOFOLLOW`), the
/// directory is opened from it with `openat(O_NOFOLLOW)` or, when missing, made in it by
/// ``NewDirectory`` (in a private staging directory, given its mode there, then published
/// without replacing anything), and what is vetted is the `fstat` of that descriptor, so a
/// directory swapped for a symbolic link between two steps is neither created through nor
/// accepted, and no directory but the one this call made is ever given a mode.
package enum SafeDirectory {
    /// Creates `path` (and missing parents) with the mode `sharing` prescribes, then checks it:
    /// a real directory, not a symbolic link, owned by this user, and not open to others beyond
    /// what `sharing` allows. Returns `true` if the final component was created by this call.
    @discardableResult
    package static func ensure(_ path: FilePath, sharing: FileSharing) throws(StorageError) -> Bool {
        let (descriptor, created) = try openEnsuring(path, sharing: sharing)
        Syscall.close(descriptor)
        return created
    }

    /// ``ensure(_:sharing:)``, handing back the vetted directory's descriptor (open for
    /// lookups only unless this call created it), which the caller closes. Each missing parent
    /// is made inside the descriptor of the one above it, never by its path again.
    private static func openEnsuring(_ path: FilePath, sharing: FileSharing) throws(StorageError) -> (FileDescriptor, created: Bool) {
        let parent: ParentDirectory
        do {
            parent = try ParentDirectory(of: path, lookupOnly: true, operation: "create directory")
        } catch let error where error.kind == .system(.noSuchFileOrDirectory) {
            let above = path.removingLastComponent()
            guard !above.isEmpty, above != path else { throw error }
            let (descriptor, _) = try openEnsuring(above, sharing: sharing)
            parent = ParentDirectory(holding: descriptor, path: above, name: path.lastComponent?.string ?? "")
        }
        var created = false
        var opened = try open(parent, created: false, operation: "check directory")
        if opened == nil {
            // Made where nobody else can rename anything, given its mode there, then published
            // without replacing anything (NewDirectory): a directory another member renames to
            // this name meanwhile is never given the sharing mode.
            opened = try NewDirectory.make(parent.name, in: parent.descriptor, path: path, mode: sharing.directoryMode)
            created = opened != nil
            if opened == nil {
                // Another process made it first: it is vetted below as found, never changed.
                opened = try open(parent, created: false, operation: "check directory")
            }
        }
        guard let directory = opened else {
            // Made by another process, then removed before it could be opened: nothing to vet.
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "create directory", path: path)
        }
        do throws(StorageError) {
            let status = try vettedStatus(directory, path: path, operation: "create directory")
            try checkOwnerAndMode(status, path: path, sharing: sharing, operation: "check directory")
        } catch {
            Syscall.close(directory)
            throw error
        }
        return (directory, created)
    }

    /// Refuses a directory that is a symbolic link, not a directory, owned by someone else,
    /// or writable (or readable) by users outside what `sharing` allows.
    ///
    /// What is vetted is the `fstat` of the directory opened with `O_NOFOLLOW` from its
    /// parent's descriptor: a link swapped in for it is refused, not followed.
    package static func check(_ path: FilePath, sharing: FileSharing) throws(StorageError) {
        let parent: ParentDirectory
        do {
            parent = try ParentDirectory(of: path, lookupOnly: true, operation: "check directory")
        } catch let error where error.kind == .system(.noSuchFileOrDirectory) {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "check directory", path: path)
        }
        guard let directory = try open(parent, created: false, operation: "check directory") else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "check directory", path: path)
        }
        defer { Syscall.close(directory) }
        let status = try vettedStatus(directory, path: path, operation: "check directory")
        try checkOwnerAndMode(status, path: path, sharing: sharing, operation: "check directory")
    }

    /// Opens the directory `parent.name` inside `parent` without following a link: for lookups
    /// only, unless it was just created and its mode is to be set through the descriptor.
    /// `nil` when there is no such entry.
    private static func open(_ parent: borrowing ParentDirectory, created: Bool, operation: String) throws(StorageError) -> FileDescriptor? {
        do {
            return try Syscall.openDirectory(parent.name, in: parent.descriptor, lookupOnly: !created)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .tooManySymbolicLinkLevels {
            throw StorageError(.symbolicLink, operation: operation, path: parent.entryPath)
        } catch .notDirectory {
            // ENOTDIR where ELOOP would be on Linux: tell a link from a file, relative to the
            // held parent (for the message only).
            let isLink = (try? Syscall.statusIfPresent(parent.name, in: parent.descriptor))?.type == .symbolicLink
            throw StorageError(isLink ? .symbolicLink : .wrongFileType, operation: operation, path: parent.entryPath)
        } catch {
            throw StorageError(.system(error), operation: operation, path: parent.entryPath)
        }
    }

    /// The `fstat` of an opened directory, refused unless it is one.
    private static func vettedStatus(_ directory: FileDescriptor, path: FilePath, operation: String) throws(StorageError) -> Stat {
        let status: Stat
        do {
            status = try Syscall.status(directory)
        } catch {
            throw StorageError(.system(error), operation: operation, path: path)
        }
        guard status.type == .directory else { throw StorageError(.wrongFileType, operation: "check directory", path: path) }
        return status
    }

    /// Refuses an entry owned or moded outside what `sharing` allows. `path` names the entry in
    /// a refusal, and is made only for one.
    ///
    /// Group sharing whose group is known (``FileSharing/unixGroup(expectedGroup:)``) also
    /// refuses, by ``checkHomeGroup(_:expected:path:operation:)``, a directory not in the
    /// home's group or without the setgid bit, and a file not in the home's group (unless it is
    /// this user's and grants its group nothing).
    package static func checkOwnerAndMode(
        _ status: Stat, path: @autoclosure () -> FilePath, sharing: FileSharing, operation: String, forbiddenBits: UInt16? = nil
    ) throws(StorageError) {
        let owner = UInt32(status.userID.rawValue)
        let group = UInt32(status.groupID.rawValue)
        switch sharing {
        case .ownerOnly:
            guard owner == Syscall.effectiveUserID else {
                throw StorageError(.wrongOwner(owner: owner, expected: Syscall.effectiveUserID), operation: operation, path: path())
            }
        case .unixGroup(let expected):
            if let expected { try checkHomeGroup(status, expected: expected, path: path(), operation: operation) }
            // The app and its widget may run as different users: what one member created, the
            // other must accept, as long as it belongs to a group both are in (the home's, when
            // it is known: checked above).
            guard owner == Syscall.effectiveUserID || Syscall.isMember(ofGroup: group) else {
                throw StorageError(.outsideSharedGroup(owner: owner, group: group), operation: operation, path: path())
            }
        }
        let mode = UInt16(status.permissions.rawValue) & 0o777
        guard mode & (forbiddenBits ?? sharing.forbiddenBits) == 0 else {
            throw StorageError(.insecurePermissions(mode: mode), operation: operation, path: path())
        }
    }

    /// The home's group rule of a `unixGroup` home whose group, `expected`, is known.
    ///
    /// A directory must have that group and the setgid bit: its group is what every file made
    /// in it gets, so a member's directory in another group they share with the victim
    /// (`users`) would give the victim's new 0660 files to all of that group, and one without
    /// setgid would give them the creator's primary group. (Except a directory the group cannot
    /// write, where this process either cannot create entries or creates them in the home's
    /// group anyway, its primary group: the private root of the user whose group it is.)
    ///
    /// Anything else must have that group, with one exception: an entry of this user's that
    /// grants its group nothing (no group bits) is accepted whatever its group, since nobody but
    /// this user can use it (a same-user attacker is out of scope). Another user's entry in the
    /// home's group is one a member made (only a member can give a file that group, or create
    /// it in the home's setgid directories); in any other group it is refused, even when this
    /// process is in that group, because so may be users outside the app's.
    private static func checkHomeGroup(_ status: Stat, expected: UInt32, path: @autoclosure () -> FilePath, operation: String) throws(StorageError) {
        let owner = UInt32(status.userID.rawValue)
        let group = UInt32(status.groupID.rawValue)
        let mode = UInt16(status.permissions.rawValue) & 0o7777
        if status.type == .directory {
            guard group == expected else {
                throw StorageError(.outsideSharedGroup(owner: owner, group: group), operation: operation, path: path(),
                                   hint: "the directory belongs to group \(group), not to the home's group \(expected), so every file made in it would be open to group \(group); run `chgrp \(expected)` and `chmod g+s` on it, or remove it and GroupVault recreates it")
            }
            // Without setgid a new entry gets its creator's primary group. That is harmless only
            // where the group cannot create entries (no group write bit) and this process either
            // cannot either (not its owner, not root) or gets the home's group anyway (its
            // primary group is the home's): a home's root made as a private or read-only
            // directory (0700, 0750) by the user whose group it is. An entry its owner made in
            // another group is then refused when it is reached, like any other.
            let writableByThisProcess = owner == Syscall.effectiveUserID || Syscall.effectiveUserID == 0
            let newEntriesGetTheHomesGroup = mode & 0o020 == 0 && (!writableByThisProcess || Syscall.effectiveGroupID == expected)
            guard mode & 0o2000 != 0 || newEntriesGetTheHomesGroup else {
                throw StorageError(.insecurePermissions(mode: mode), operation: operation, path: path(),
                                   hint: "the directory lacks the setgid bit (mode \(String(mode, radix: 8))), so files made in it would get their creator's primary group instead of the home's group \(expected); run `chmod g+s` on it")
            }
            return
        }
        guard group == expected || (owner == Syscall.effectiveUserID && mode & 0o070 == 0) else {
            throw StorageError(.outsideSharedGroup(owner: owner, group: group), operation: operation, path: path(),
                               hint: "it belongs to group \(group), not to the home's group \(expected), so it is open to users outside the app group; run `chgrp \(expected)` on it, or remove it and GroupVault recreates it")
        }
    }

    /// Refuses the file or directory open as `descriptor` (whose `fstat` is `status`) when it
    /// carries a POSIX ACL: its access ACL and, for a directory, its default ACL (inherited by
    /// every file made in it).
    /// Mode bits cannot show an ACL's named entries (the group bits then show its mask), so a
    /// directory reading 2770 could grant a user outside the group access. One `fgetxattr`
    /// per attribute; `descriptor` must not be `O_PATH`.
    package static func checkNoAccessControlList(_ descriptor: FileDescriptor, status: Stat, path: @autoclosure () -> FilePath, operation: String) throws(StorageError) {
        let isDirectory = status.type == .directory
        let attributes = isDirectory ? [Syscall.accessControlListAttribute, Syscall.defaultAccessControlListAttribute] : [Syscall.accessControlListAttribute]
        for attribute in attributes {
            let present: Bool
            do {
                present = try Syscall.hasExtendedAttribute(attribute, on: descriptor)
            } catch {
                throw StorageError(.system(error), operation: operation, path: path(), hint: "reading its \(attribute) failed, so whether an ACL opens it to others is unknown")
            }
            guard !present else {
                throw StorageError(.insecurePermissions(mode: UInt16(status.permissions.rawValue) & 0o7777), operation: operation, path: path(),
                                   hint: "it carries a POSIX ACL (\(attribute)), which can let users outside the group in whatever the mode bits say; remove it with `setfacl -b\(isDirectory ? " -k" : "")` on it and retry")
            }
        }
    }
}
