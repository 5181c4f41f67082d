import SystemPackage

/// Directories reached from a held ``DirectoryHandle`` by one name at a time, never by path.
///
/// Why: a tree another member of the group can write (a `unixGroup` home, a group container)
/// can have any of its directories renamed away and replaced by a symbolic link at any moment.
/// Vetting `a/b/c` by path and then using `a/b/c/file` by path follows whatever `b` has become
/// in between. Here each level is opened relative to the descriptor of the level above with
/// `O_DIRECTORY | O_NOFOLLOW` and vetted through `fstat` of what was opened, so the directory
/// that was checked is the one that is used, and a symbolic link at any level is refused
/// rather than followed. A directory this process creates gets its exact mode with `fchmod` on
/// its descriptor inside a staging directory nobody else can enter, before it is published
/// under its name (``NewDirectory``): no mode is ever changed by path, nor on a directory this
/// process did not make.
extension DirectoryHandle {
    /// Opens and vets `path`, creating it first (and, by path, its missing parents) when it
    /// does not exist: the root of a tree the caller then walks by descriptor.
    ///
    /// The directories *above* `path` are looked up by path and may be symbolic links: where
    /// the caller put its storage is its own choice (a home under a symlinked `$HOME`). From
    /// `path` down nothing is followed: `path` itself is opened `O_NOFOLLOW` relative to its
    /// parent and vetted like any subdirectory (``subdirectory(_:creating:)``).
    /// - Throws: ``StorageError`` as ``subdirectory(_:creating:)``, naming `path`.
    package static func ensure(_ path: FilePath, sharing: FileSharing) throws(StorageError) -> DirectoryHandle {
        guard let name = path.lastComponent?.string, name != ".", name != ".." else {
            // "/" or a path ending in ".." has no name in a parent: open it as it is.
            return try DirectoryHandle(opening: path, sharing: sharing)
        }
        let parentPath = path.removingLastComponent()
        let parentPathOrCurrent = parentPath.isEmpty ? FilePath(".") : parentPath
        if parentPath != path, !parentPath.isEmpty, try Syscall.typedStatus(parentPath) == nil {
            // Missing parents are created with the sharing mode, as SafeDirectory always has.
            try SafeDirectory.ensure(parentPath, sharing: sharing)
        }
        let parent: FileDescriptor
        do {
            // Not O_NOFOLLOW: the parent is above the root, the caller's own choice.
            parent = try Syscall.open(parentPathOrCurrent, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw StorageError(.system(error), operation: "open directory", path: parentPathOrCurrent)
        }
        defer { Syscall.close(parent) }
        guard let handle = try subdirectory(name, in: parent, path: path, sharing: sharing, creating: true) else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "open directory", path: path)
        }
        return handle
    }

    /// The subdirectory `name` (one path component) of this directory, opened relative to its
    /// descriptor with `O_DIRECTORY | O_NOFOLLOW` and vetted as ``init(opening:sharing:)``
    /// vets: owner and mode as this handle's sharing mode allows. When it does not exist:
    /// `nil`, or, when `creating`, it is made with the exact mode by ``NewDirectory``: in a
    /// private staging directory, then published without replacing anything. One that another
    /// process made first is vetted as found, and its mode never changed.
    /// - Throws: ``StorageError`` naming the subdirectory: ``StorageError/Kind/symbolicLink``
    ///   when it is a symbolic link, ``StorageError/Kind/wrongFileType`` when it is not a
    ///   directory, the owner and mode refusals of ``SafeDirectory/checkOwnerAndMode(_:path:sharing:operation:forbiddenBits:)``.
    package func subdirectory(_ name: String, creating: Bool) throws(StorageError) -> DirectoryHandle? {
        try checkName(name)
        return try Self.subdirectory(name, in: descriptor, path: path.appending(name), sharing: sharing, creating: creating)
    }

    /// ``subdirectory(_:creating:)`` creating it when missing: never `nil`.
    package func subdirectory(creating name: String) throws(StorageError) -> DirectoryHandle {
        guard let handle = try subdirectory(name, creating: true) else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "open directory", path: path.appending(name))
        }
        return handle
    }

    /// The directory at `relative` below this one, reached one component at a time with
    /// ``subdirectory(_:creating:)``: every level is opened `O_NOFOLLOW` relative to the one
    /// above and vetted, and created when missing if `creating`. `nil` when a level is
    /// missing and not `creating`. An empty `relative` is this directory's own reopening.
    /// - Throws: ``StorageError`` naming the first level refused; a component that is empty,
    ///   `.` or `..` is refused (``StorageError/Kind/wrongFileType``).
    package func chain(_ relative: [String], creating: Bool) throws(StorageError) -> DirectoryHandle? {
        guard let first = relative.first else { return try reopened() }
        guard var current = try subdirectory(first, creating: creating) else { return nil }
        for name in relative.dropFirst() {
            guard let next = try current.subdirectory(name, creating: creating) else { return nil }
            current = next
        }
        return current
    }

    /// ``chain(_:creating:)`` for a relative path such as `Library/Caches`.
    package func chain(_ relative: FilePath, creating: Bool) throws(StorageError) -> DirectoryHandle? {
        guard !relative.isAbsolute else {
            throw StorageError(.wrongFileType, operation: "open directory", path: path.string + "/" + UntrustedText.printable(relative.string),
                               hint: "a path below a directory handle must be relative")
        }
        return try chain(relative.components.map(\.string), creating: creating)
    }

    /// Whether this directory's descriptor still passes the vetting it was opened with (owner
    /// and mode, by `fstat`), and is still linked somewhere: `false` when it was removed (no
    /// name reaches it any more, so nothing written there could ever be read again).
    /// - Throws: ``StorageError`` when its owner or mode no longer pass, or `fstat` fails.
    package func isStillLinked() throws(StorageError) -> Bool {
        let status = try Self.status(of: descriptor, path: path)
        try SafeDirectory.checkOwnerAndMode(status, path: path, sharing: sharing, operation: "check directory")
        return status.linkCount > 0
    }

    /// Whether `path` (looked up by path now) names this very directory: same device and inode.
    /// For a caller that must hand a path to an API that takes only paths (a watch), to refuse
    /// when the path has been redirected since the directory was opened. `false` when `path`
    /// is missing, a symbolic link, or another file.
    package func isNamed(by path: FilePath) throws(StorageError) -> Bool {
        let named: Stat?
        let held: Stat
        do {
            named = try Syscall.statusIfPresent(path)
            held = try Syscall.status(descriptor)
        } catch {
            throw StorageError(.system(error), operation: "stat directory", path: path)
        }
        guard let named, named.type == .directory else { return false }
        return named.deviceID == held.deviceID && named.inode == held.inode
    }

    /// Removes the file `name` in this directory (`unlinkat`); `false` when there was none.
    /// - Throws: ``StorageError`` naming the file for any other failure.
    @discardableResult
    package func removeIfPresent(_ name: String) throws(StorageError) -> Bool {
        try checkName(name)
        do {
            try Syscall.unlink(name, in: descriptor)
            return true
        } catch .noSuchFileOrDirectory {
            return false
        } catch {
            throw StorageError(.system(error), operation: "unlink", path: path.appending(name))
        }
    }

    /// Removes the entry `name` of this directory and, when it is a directory, everything
    /// below it, without following any symbolic link (a link is removed, never its target);
    /// nothing when there is no such entry.
    /// - Throws: ``StorageError`` naming the first entry that could not be removed.
    package func removeTree(_ name: String) throws(StorageError) {
        try checkName(name)
        try Self.removeEntry(name, in: descriptor, path: path.appending(name))
    }

    /// Removes `path` and everything below it, as ``removeTree(_:)`` does. The directories
    /// above `path` are looked up by path (the caller's choice, as for ``ensure(_:sharing:)``);
    /// from `path` down, everything is reached by descriptor and no link is followed.
    package static func removeTree(at path: FilePath) throws(StorageError) {
        guard let name = path.lastComponent?.string, name != ".", name != ".." else {
            throw StorageError(.wrongFileType, operation: "remove", path: path, hint: "only a named directory can be removed")
        }
        let parentPath = path.removingLastComponent().isEmpty ? FilePath(".") : path.removingLastComponent()
        let parent: FileDescriptor
        do {
            parent = try Syscall.open(parentPath, .readOnly, options: [.directory, .closeOnExec])
        } catch .noSuchFileOrDirectory {
            return
        } catch {
            throw StorageError(.system(error), operation: "open directory", path: parentPath)
        }
        defer { Syscall.close(parent) }
        try removeEntry(name, in: parent, path: path)
    }

    /// Removes `name` in `directory`: its contents first when it is a real directory.
    private static func removeEntry(_ name: String, in directory: FileDescriptor, path: FilePath) throws(StorageError) {
        do {
            guard let status = try Syscall.statusIfPresent(name, in: directory) else { return }
            guard status.type == .directory else {
                try Syscall.unlink(name, in: directory)
                return
            }
            // Opened O_NOFOLLOW: swapped for a link since the lstat, it is refused, not entered.
            let child = try Syscall.open(name, in: directory, .readOnly, options: [.directory, .noFollow, .closeOnExec])
            defer { Syscall.close(child) }
            for entry in try Syscall.listDirectory(child) {
                try removeEntry(entry, in: child, path: path.appending(entry))
            }
            try Syscall.removeDirectory(name, in: directory)
        } catch let error as StorageError {
            throw error
        } catch let error as Errno {
            throw StorageError(.system(error), operation: "remove", path: path)
        } catch {
            throw StorageError(.system(.ioError), operation: "remove", path: path)
        }
    }

    // MARK: Parts

    /// This directory opened again through `"."` and vetted anew, for ``chain(_:creating:)``
    /// with no component: a handle of its own, as every other answer of it is.
    private func reopened() throws(StorageError) -> DirectoryHandle? {
        try Self.subdirectory(".", in: descriptor, path: path, sharing: sharing, creating: false)
    }

    /// Opens (creating when `creating`) and vets `name` in the directory `parent`; `path`
    /// names it in refusals and in the handle.
    private static func subdirectory(
        _ name: String, in parent: FileDescriptor, path: FilePath, sharing: FileSharing, creating: Bool
    ) throws(StorageError) -> DirectoryHandle? {
        if let existing = try openExisting(name, in: parent, path: path) {
            return try vetted(existing, path: path, sharing: sharing)
        }
        guard creating else { return nil }
        // Made where nobody else can rename anything, given its mode there, then published
        // without replacing anything (NewDirectory): a directory another member renames to
        // this name meanwhile is never given the sharing mode.
        if let made = try NewDirectory.make(name, in: parent, path: path, mode: sharing.directoryMode) {
            return try vetted(made, path: path, sharing: sharing)
        }
        // Another process made it first: vetted as found, never changed.
        guard let existing = try openExisting(name, in: parent, path: path) else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "open directory", path: path,
                               hint: "it was made by another process and removed again before it could be opened")
        }
        return try vetted(existing, path: path, sharing: sharing)
    }

    /// Opens `name` in `parent` with `O_DIRECTORY | O_NOFOLLOW`; `nil` when there is no such entry.
    private static func openExisting(_ name: String, in parent: FileDescriptor, path: FilePath) throws(StorageError) -> FileDescriptor? {
        do {
            return try Syscall.open(name, in: parent, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .tooManySymbolicLinkLevels {
            throw StorageError(.symbolicLink, operation: "open directory", path: path)
        } catch .notDirectory {
            let isLink = (try? Syscall.statusIfPresent(name, in: parent))??.type == .symbolicLink
            throw StorageError(isLink ? .symbolicLink : .wrongFileType, operation: "open directory", path: path)
        } catch {
            throw StorageError(.system(error), operation: "open directory", path: path)
        }
    }

    /// The handle of the opened directory `descriptor` once `fstat` shows a directory whose
    /// owner and mode `sharing` allows; closed when refused.
    private static func vetted(_ descriptor: FileDescriptor, path: FilePath, sharing: FileSharing) throws(StorageError) -> DirectoryHandle {
        try vet(descriptor, path: path, sharing: sharing)
        return DirectoryHandle(vetted: descriptor, path: path, sharing: sharing)
    }

}
