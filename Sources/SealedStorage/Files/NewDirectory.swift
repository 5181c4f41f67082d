import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Making a directory in a directory other members of the group can write, such that the mode
/// it is given lands on the directory this call made and on nothing else.
///
/// Why not `mkdirat(name)`, then `openat(name, O_NOFOLLOW)`, then `fchmod` when `fstat` shows a
/// directory this user owns: between the `mkdirat` and the `openat` a member who can rename
/// entries of the shared directory can rename *another* directory of this user's, in the same
/// directory, to `name` (renaming within a directory needs no permission on what is renamed),
/// and the `fchmod` then opens that private directory to the group. A random name does not help:
/// a member watching the directory learns it as soon as it exists. So the directory is made
/// where nobody else can rename anything:
/// 1. a staging directory `.mkdir-<random>` is made in the shared directory (`mkdirat`, 0700)
///    and opened `O_DIRECTORY | O_NOFOLLOW`; it is only used if `fstat` shows a directory this
///    user owns that nobody else can enter or write. Its mode is never changed: if a member
///    swapped another private directory of this user's in, that one is used as it is, and
///    stays private;
/// 2. the new directory is made inside it and opened from its descriptor: nobody else can
///    enter there, so what is opened is what was made. It must have the group a directory
///    made directly in the shared one would have had, and gets the exact mode with `fchmod`;
/// 3. it is published under its name with `renameat2(RENAME_NOREPLACE)`, which never replaces
///    anything: when the name is taken (another process made it first, or a member put
///    something there), the new directory is removed and the caller opens and vets what is
///    there, changing nothing;
/// 4. the staging directory is removed, if its name still names the one that was opened.
enum NewDirectory {
    /// Staging directories are named this prefix and 16 random hexadecimal digits.
    static let stagingPrefix = ".mkdir-"

    /// Makes the directory `name` (one path component) in `parent` with exactly `mode` and
    /// returns its descriptor (opened `O_DIRECTORY | O_NOFOLLOW`, for reading), or `nil` when
    /// `name` was taken before it could be published: then nothing was made, and what is at
    /// `name` is the caller's to open and vet, never to change. `path` names it in refusals.
    ///
    /// Without `RENAME_NOREPLACE` (`EINVAL` from the file system, `ENOSYS` from an old kernel)
    /// the new directory is published with `renameat` once `fstatat` shows `name` free. In the
    /// moment between the two another process can make `name`; an *empty* directory made
    /// there then is replaced (whoever made it holds a directory no name reaches), one that is
    /// not empty or not a directory makes the rename fail, and the caller opens it. No mode is
    /// changed either way.
    /// - Throws: ``StorageError`` naming `path`: the failed call, or
    ///   ``StorageError/Kind/wrongFileType`` / ``StorageError/Kind/outsideSharedGroup(owner:group:)``
    ///   when the staging directory is not one nobody else can enter, or the new directory did
    ///   not get the group it should have. Everything this call made is removed first.
    static func make(_ name: String, in parent: FileDescriptor, path: FilePath, mode: UInt16) throws(StorageError) -> FileDescriptor? {
        let stagingName = stagingPrefix + SecureRandom.hex(count: 8)
        let staging = try openStaging(stagingName, in: parent, path: path)
        defer {
            removeStaging(stagingName, in: parent, ifStill: staging.status)
            Syscall.close(staging.descriptor)
        }

        do {
            try Syscall.makeDirectory(name, in: staging.descriptor, mode: 0o700)
        } catch {
            throw StorageError(.system(error), operation: "create directory", path: path)
        }
        let made: FileDescriptor
        do {
            made = try Syscall.open(name, in: staging.descriptor, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch {
            try? Syscall.removeDirectory(name, in: staging.descriptor)
            throw StorageError(.system(error), operation: "open directory", path: path)
        }
        do throws(StorageError) {
            try checkGroup(of: made, parent: parent, path: path)
            do {
                // mkdirat applied the umask: the exact mode, set on what was made.
                try Syscall.changeMode(made, to: mode)
            } catch {
                throw StorageError(.system(error), operation: "set directory mode", path: path)
            }
            guard try publish(name, from: staging.descriptor, to: parent, path: path) else {
                try? Syscall.removeDirectory(name, in: staging.descriptor)
                Syscall.close(made)
                return nil
            }
        } catch {
            try? Syscall.removeDirectory(name, in: staging.descriptor)
            Syscall.close(made)
            throw error
        }
        return made
    }

    // MARK: Parts

    /// Makes and opens the staging directory; refused (and left alone) unless `fstat` shows a
    /// directory this user owns with no permission for anyone else.
    private static func openStaging(_ name: String, in parent: FileDescriptor, path: FilePath) throws(StorageError) -> (descriptor: FileDescriptor, status: Stat) {
        do {
            try Syscall.makeDirectory(name, in: parent, mode: 0o700)
        } catch {
            throw StorageError(.system(error), operation: "create directory", path: path)
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try Syscall.open(name, in: parent, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch {
            // Removed by name, best effort: rmdir takes only an empty directory, never a file
            // or a link another process may have put there.
            try? Syscall.removeDirectory(name, in: parent)
            throw StorageError(.system(error), operation: "open directory", path: path)
        }
        let status: Stat
        do {
            status = try Syscall.status(descriptor)
        } catch {
            Syscall.close(descriptor)
            try? Syscall.removeDirectory(name, in: parent)
            throw StorageError(.system(error), operation: "stat directory", path: path)
        }
        guard status.type == .directory, UInt32(status.userID.rawValue) == Syscall.effectiveUserID,
              UInt16(status.permissions.rawValue) & 0o077 == 0 else {
            Syscall.close(descriptor)
            throw StorageError(.wrongFileType, operation: "create directory", path: path,
                               hint: "the private directory made to create it was replaced by another process's; nothing was created")
        }
        return (descriptor, status)
    }

    /// Refuses the new directory `made` unless its group is one a directory made directly in
    /// `parent` could have: the parent's when the parent is setgid, else the parent's or this
    /// process's effective group (which one depends on the file system's rules). It was made
    /// in the staging directory, whose group and setgid bit it took; a staging directory that
    /// was swapped for another of this user's could give it another group, which the sharing
    /// mode would then open it to.
    private static func checkGroup(of made: FileDescriptor, parent: FileDescriptor, path: FilePath) throws(StorageError) {
        let madeStatus: Stat
        let parentStatus: Stat
        do {
            madeStatus = try Syscall.status(made)
            parentStatus = try Syscall.status(parent)
        } catch {
            throw StorageError(.system(error), operation: "stat directory", path: path)
        }
        guard madeStatus.type == .directory, UInt32(madeStatus.userID.rawValue) == Syscall.effectiveUserID else {
            throw StorageError(.wrongFileType, operation: "create directory", path: path,
                               hint: "the directory made is not a directory of this user's; nothing was created")
        }
        let group = UInt32(madeStatus.groupID.rawValue)
        let parentGroup = UInt32(parentStatus.groupID.rawValue)
        let parentIsSetgid = UInt16(parentStatus.permissions.rawValue) & 0o2000 != 0
        guard group == parentGroup || (!parentIsSetgid && group == UInt32(getegid())) else {
            throw StorageError(.outsideSharedGroup(owner: UInt32(madeStatus.userID.rawValue), group: group), operation: "create directory", path: path,
                               hint: "the directory made did not get the group of the directory it is made in (the private directory made to create it was replaced by another process's); nothing was created")
        }
    }

    /// Renames `name` from `staging` to `name` in `parent` without replacing anything: `false`
    /// when the name is taken.
    private static func publish(_ name: String, from staging: FileDescriptor, to parent: FileDescriptor, path: FilePath) throws(StorageError) -> Bool {
        do {
            do {
                try Syscall.renameNoReplace(name, in: staging, to: name, in: parent)
            } catch .invalidArgument, .noFunction {
                // No RENAME_NOREPLACE here: look, then rename (the window is in make's documentation).
                guard try Syscall.statusIfPresent(name, in: parent) == nil else { return false }
                try Syscall.rename(name, in: staging, to: name, in: parent)
            }
            return true
        } catch .fileExists, .directoryNotEmpty, .notDirectory {
            // Taken: EEXIST from RENAME_NOREPLACE; from renameat, ENOTEMPTY for a directory
            // with entries, ENOTDIR for a file.
            return false
        } catch {
            throw StorageError(.system(error), operation: "publish directory", path: path)
        }
    }

    /// Removes the staging directory `name` if it is still the one opened (same device and
    /// inode): a member may have renamed it away and put something else at its name. Best
    /// effort: a staging directory left behind (not empty because a member swapped another
    /// directory of this user's in, or removed after a crash) is only a name.
    private static func removeStaging(_ name: String, in parent: FileDescriptor, ifStill opened: Stat) {
        guard let status = try? Syscall.statusIfPresent(name, in: parent), status.type == .directory,
              status.deviceID == opened.deviceID, status.inode == opened.inode else { return }
        try? Syscall.removeDirectory(name, in: parent)
    }
}
