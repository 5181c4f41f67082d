import SystemPackage

/// The directory that holds a path's last component, opened once by descriptor, and that
/// component's name: how the path-based helpers (``SafeFile``, ``AtomicFile``,
/// ``SafeDirectory``, ``FileLock``) keep their signatures and still do everything after the open
/// relative to the descriptor (`openat`, `mkdirat`, `fstatat`, `renameat`, `unlinkat`).
///
/// Why: a path is resolved again on every use, so an operation of two steps by path (a check
/// and a read, a listing and a removal, a creation and a rename) follows a symbolic link that a
/// member of the group swapped in for the directory between the steps. The directory is opened
/// with `O_DIRECTORY | O_NOFOLLOW`, so it is not itself a link when opened; the components
/// above it are the caller's to trust, as they are for ``DirectoryHandle``.
struct ParentDirectory: ~Copyable {
    /// The directory's descriptor, closed when this value goes away.
    let descriptor: FileDescriptor
    /// The path the directory was opened by; for messages only, never opened again.
    let path: FilePath
    /// The last component of the path, a single name inside the directory.
    let name: String

    /// Opens the directory of `path` (the current directory for a path of one component).
    ///
    /// `lookupOnly`: see ``Syscall/openDirectory(_:lookupOnly:)``; a caller that lists, syncs or
    /// changes the directory passes `false`.
    /// - Throws: ``StorageError`` naming the directory: ``StorageError/Kind/symbolicLink`` when it
    ///   is a link, ``StorageError/Kind/wrongFileType`` when it is not a directory or `path` has
    ///   no last name (`/`, `..`), or the open's own failure (ENOENT when it is missing).
    init(of path: FilePath, lookupOnly: Bool, operation: String) throws(StorageError) {
        guard let last = path.lastComponent?.string, last != ".", last != ".." else {
            throw StorageError(.wrongFileType, operation: operation, path: path, hint: "the path must end in a file or directory name")
        }
        let directory = path.removingLastComponent()
        let opened = directory.isEmpty ? FilePath(".") : directory
        do {
            descriptor = try Syscall.openDirectory(opened, lookupOnly: lookupOnly)
        } catch {
            throw Self.refusal(error, opening: opened, operation: operation)
        }
        self.path = opened
        self.name = last
    }

    /// Takes over `descriptor`, the open directory at `path`, for the entry `name` in it.
    init(holding descriptor: FileDescriptor, path: FilePath, name: String) {
        self.descriptor = descriptor
        self.path = path
        self.name = name
    }

    deinit {
        Syscall.close(descriptor)
    }

    /// The full path of the entry, for messages.
    var entryPath: FilePath { path.appending(name) }

    /// The error for a failed `open(O_DIRECTORY | O_NOFOLLOW)` of `path`: Linux says ELOOP for a
    /// symbolic link, other systems ENOTDIR, which a link-free `lstat` then tells apart from a
    /// file that is simply not a directory (the `lstat` is for the message only).
    static func refusal(_ error: Errno, opening path: FilePath, operation: String) -> StorageError {
        switch error {
        case .tooManySymbolicLinkLevels:
            return StorageError(.symbolicLink, operation: operation, path: path)
        case .notDirectory:
            let isLink = (try? Syscall.statusIfPresent(path))?.type == .symbolicLink
            return StorageError(isLink ? .symbolicLink : .wrongFileType, operation: operation, path: path)
        default:
            return StorageError(.system(error), operation: operation, path: path)
        }
    }
}
