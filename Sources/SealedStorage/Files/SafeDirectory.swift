import SystemPackage

/// Creating and vetting directories in shared storage.
package enum SafeDirectory {
    /// Creates `path` (and missing parents) with the mode `sharing` prescribes, then checks it:
    /// a real directory, not a symbolic link, owned by this user, and not open to others beyond
    /// what `sharing` allows. Returns `true` if the final component was created by this call.
    @discardableResult
    package static func ensure(_ path: FilePath, sharing: FileSharing) throws(StorageError) -> Bool {
        var created = false
        if try Syscall.typedStatus(path) == nil {
            let parent = path.removingLastComponent()
            if parent != path, !parent.isEmpty, try Syscall.typedStatus(parent) == nil {
                try ensure(parent, sharing: sharing)
            }
            do {
                try Syscall.makeDirectory(path, mode: sharing.directoryMode)
                created = true
            } catch .fileExists {
                // Another process created it first: fine, it is checked below like any other.
            } catch {
                throw StorageError(.system(error), operation: "create directory", path: path)
            }
            if created {
                // mkdir applies the umask and never sets setgid; set the exact mode explicitly.
                try setMode(path, sharing.directoryMode)
            }
        }
        try check(path, sharing: sharing)
        return created
    }

    /// Refuses a directory that is a symbolic link, not a directory, owned by someone else,
    /// or writable (or readable) by users outside what `sharing` allows.
    package static func check(_ path: FilePath, sharing: FileSharing) throws(StorageError) {
        guard let status = try Syscall.typedStatus(path) else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "check directory", path: path)
        }
        if status.type == .symbolicLink { throw StorageError(.symbolicLink, operation: "check directory", path: path) }
        guard status.type == .directory else { throw StorageError(.wrongFileType, operation: "check directory", path: path) }
        try checkOwnerAndMode(status, path: path, sharing: sharing, operation: "check directory")
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


    private static func setMode(_ path: FilePath, _ mode: UInt16) throws(StorageError) {
        do {
            let descriptor = try Syscall.open(path, .readOnly, options: [.directory, .noFollow, .closeOnExec])
            defer { Syscall.close(descriptor) }
            try Syscall.changeMode(descriptor, to: mode)
        } catch {
            throw StorageError(.system(error), operation: "set directory mode", path: path)
        }
    }
}
