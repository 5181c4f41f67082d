import SystemPackage

/// Vetting an opened directory: one sequence for every directory a handle holds, whether it
/// was opened by path, relative to another handle, or reopened as a home's root.
extension DirectoryHandle {
    /// Vets the opened directory `descriptor` (a directory whose owner and mode `sharing`
    /// allows, without a POSIX ACL when it is group-shared); closes it when refused. `status`
    /// is its `fstat` when the caller already has it.
    static func vet(_ descriptor: FileDescriptor, path: FilePath, sharing: FileSharing, status known: Stat? = nil) throws(StorageError) {
        do throws(StorageError) {
            let status: Stat
            if let known { status = known } else { status = try Self.status(of: descriptor, path: path) }
            guard status.type == .directory else { throw StorageError(.wrongFileType, operation: "open directory", path: path) }
            try SafeDirectory.checkOwnerAndMode(status, path: path, sharing: sharing, operation: "open directory")
            // A POSIX ACL can grant a user outside the group what the mode bits do not show;
            // a default ACL passes that on to every file made here. Group sharing only: an
            // owner-only directory is this user's, who may set what they like.
            if sharing.isGroupShared {
                try SafeDirectory.checkNoAccessControlList(descriptor, status: status, path: path, operation: "open directory")
            }
        } catch {
            Syscall.close(descriptor)
            throw error
        }
    }

    /// `fstat` of the directory open as `descriptor`, its failure named for `path`.
    static func status(of descriptor: FileDescriptor, path: FilePath) throws(StorageError) -> Stat {
        do {
            return try Syscall.status(descriptor)
        } catch {
            throw StorageError(.system(error), operation: "stat directory", path: path)
        }
    }

    /// This directory opened again (through `"."` relative to its descriptor, so the very same
    /// directory), with its own group as the expected group of everything below it: the root
    /// of a `unixGroup` home, whose gid defines "the group". Vetted as the root of such a home
    /// must be: its group, the setgid bit (without it new files would get their creator's
    /// primary group), no bits for others, and no POSIX ACL. An owner-only handle is returned
    /// as it is.
    /// - Throws: ``StorageError`` naming the directory, with the command that fixes it.
    package func boundToItsGroup() throws(StorageError) -> DirectoryHandle {
        guard sharing.isGroupShared else { return self }
        let reopened: FileDescriptor
        do {
            reopened = try Syscall.open(".", in: descriptor, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch {
            throw StorageError(.system(error), operation: "open directory", path: path)
        }
        let status: Stat
        do {
            status = try Self.status(of: reopened, path: path)
        } catch {
            Syscall.close(reopened)
            throw error
        }
        let bound = FileSharing.unixGroup(expectedGroup: UInt32(status.groupID.rawValue))
        try Self.vet(reopened, path: path, sharing: bound, status: status)
        return DirectoryHandle(vetted: reopened, path: path, sharing: bound)
    }

    /// Refuses this group-shared directory when it carries a POSIX ACL (access or default):
    /// see ``SafeDirectory/checkNoAccessControlList(_:status:path:operation:)``. Two
    /// `fgetxattr`s; for a directory when it is first opened, not on every use.
    package func checkNoAccessControlList() throws(StorageError) {
        guard sharing.isGroupShared else { return }
        let status = try Self.status(of: descriptor, path: path)
        try SafeDirectory.checkNoAccessControlList(descriptor, status: status, path: path, operation: "open directory")
    }
}
