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

    /// `path` names the file in a refusal, and is made only for one.
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
        case .unixGroup:
            // The app and its widget may run as different users: what one member created, the
            // other must accept, as long as it belongs to a group both are in.
            guard owner == Syscall.effectiveUserID || Syscall.isMember(ofGroup: group) else {
                throw StorageError(.outsideSharedGroup(owner: owner, group: group), operation: operation, path: path())
            }
        }
        let mode = UInt16(status.permissions.rawValue) & 0o777
        guard mode & (forbiddenBits ?? sharing.forbiddenBits) == 0 else {
            throw StorageError(.insecurePermissions(mode: mode), operation: operation, path: path())
        }
    }
}
