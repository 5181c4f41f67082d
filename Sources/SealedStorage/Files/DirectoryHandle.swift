import SystemPackage

/// A directory opened once, by descriptor, and used for every file in it afterwards.
///
/// Why: a path is looked up again on every use, so a process that vetted `.../records` and
/// later opened `.../records/auth-state.gvr` would follow a symbolic link swapped in for
/// `records` (or any directory above it) in between. A ``DirectoryHandle`` is opened with
/// `O_DIRECTORY | O_NOFOLLOW` and vetted once (owner and mode, through `fstat` of the
/// descriptor, so what is checked is what is used); every file is then opened, renamed and
/// removed relative to the descriptor (`openat`, `renameat`, `unlinkat`) by a single name that
/// cannot contain `/`. A directory swapped after the open is not followed: the handle keeps
/// addressing the directory it vetted. Every file read is itself vetted: a regular file (not
/// a link, FIFO or device), owned and moded as the sharing mode allows, bounded in size.
package final class DirectoryHandle: Sendable {
    /// The directory's descriptor, open for the handle's lifetime.
    package let descriptor: FileDescriptor
    /// The path it was opened by; for messages only, never opened again.
    package let path: FilePath
    /// What owner and mode the directory and its files must have.
    package let sharing: FileSharing

    /// Opens and vets the existing directory at `path`.
    /// - Throws: ``StorageError``: ``StorageError/Kind/symbolicLink`` when `path` is a symbolic
    ///   link, ``StorageError/Kind/wrongFileType`` when it is not a directory, or the owner and
    ///   mode refusals of ``SafeDirectory/check(_:sharing:)``.
    package init(opening path: FilePath, sharing: FileSharing) throws(StorageError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try Syscall.open(path, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch .tooManySymbolicLinkLevels {
            throw StorageError(.symbolicLink, operation: "open directory", path: path)
        } catch .notDirectory {
            // ENOTDIR from the path itself (a link, or another kind of file), or from a
            // component above it that is not a directory: only the first is the path's kind.
            let kind: StorageError.Kind
            switch Result(catching: { () throws(Errno) in try Syscall.statusIfPresent(path) }) {
            case .success(let status?) where status.type == .symbolicLink: kind = .symbolicLink
            case .success(let status?) where status.type != .directory: kind = .wrongFileType
            default: kind = .system(.notDirectory)
            }
            throw StorageError(kind, operation: "open directory", path: path)
        } catch {
            throw StorageError(.system(error), operation: "open directory", path: path)
        }
        try Self.vet(descriptor, path: path, sharing: sharing)
        self.descriptor = descriptor
        self.path = path
        self.sharing = sharing
    }

    /// Adopts `descriptor`, a directory the caller opened `O_DIRECTORY | O_NOFOLLOW` and vetted
    /// as ``init(opening:sharing:)`` does; the handle closes it. Only for
    /// DirectoryHandle+Subdirectories.swift, which opens directories relative to a handle.
    init(vetted descriptor: FileDescriptor, path: FilePath, sharing: FileSharing) {
        self.descriptor = descriptor
        self.path = path
        self.sharing = sharing
    }

    deinit {
        Syscall.close(descriptor)
    }

    /// The whole of the file `name` in this directory, or `nil` when there is none.
    /// - Throws: ``StorageError`` when `name` is a symbolic link, not a regular file, owned or
    ///   moded outside the sharing mode, larger than `maximumSize`, or cannot be read.
    ///
    /// `forbiddenModeBits` are the permission bits the file must not have; by default the
    /// sharing mode's ``FileSharing/forbiddenBits``. A caller whose files are authenticated
    /// (sealed records) may forbid only the write bits: reading such a file tells nobody
    /// anything, changing it in place is what must be impossible.
    package func read(_ name: String, maximumSize: Int, forbiddenModeBits: UInt16? = nil) throws(StorageError) -> [UInt8]? {
        try checkName(name)
        // The full path only names the file in a refusal: a read that succeeds builds none.
        func filePath() -> FilePath { path.appending(name) }
        // O_NONBLOCK so that a FIFO planted in place of the file cannot hang the reader.
        let options: FileDescriptor.OpenOptions = [.noFollow, .closeOnExec, .nonBlocking]
        let forbidden = forbiddenModeBits ?? sharing.forbiddenBits
        let file: FileDescriptor
        let status: Stat
        switch sharing {
        case .unixGroup:
            // Another member can plant a hard link of a file this process holds record locks on
            // (keyring.db) under this name; closing a descriptor of it after refusing it, or
            // even after reading it, would drop those locks. So the name is vetted before
            // anything is opened (Syscalls+VettedOpen.swift): a regular file with one link,
            // owned and moded as the sharing allows, within the size limit.
            let vetted = try Syscall.openVetted(name, in: descriptor, .readOnly, options: options, path: filePath(), operation: "read") {
                status throws(StorageError) in try Self.check(status, path: filePath(), sharing: sharing, forbiddenBits: forbidden, maximumSize: maximumSize)
            }
            guard let vetted else { return nil }
            (file, status) = vetted
        case .ownerOnly:
            // Only this user can name a file here, and the warm read path (issue 19) keeps its
            // one open and one fstat.
            do {
                file = try Syscall.open(name, in: descriptor, .readOnly, options: options)
            } catch .noSuchFileOrDirectory {
                return nil
            } catch .tooManySymbolicLinkLevels {
                throw StorageError(.symbolicLink, operation: "read", path: filePath())
            } catch {
                throw StorageError(.system(error), operation: "open", path: filePath())
            }
            do {
                status = try Syscall.status(file)
            } catch {
                Syscall.close(file)
                throw StorageError(.system(error), operation: "stat", path: filePath())
            }
            do throws(StorageError) {
                guard status.type == .regular else { throw StorageError(.wrongFileType, operation: "read", path: filePath()) }
                try Self.check(status, path: filePath(), sharing: sharing, forbiddenBits: forbidden, maximumSize: maximumSize)
            } catch {
                Syscall.close(file)
                throw error
            }
        }
        defer { Syscall.close(file) }
        // One byte past the limit, so a file that grew after fstat is caught.
        let expected = Int(status.size)
        var bytes = [UInt8](repeating: 0, count: expected + 1)
        let total: Int
        do {
            total = try Syscall.typed {
                try bytes.withUnsafeMutableBytes { buffer throws(Errno) in
                    // Usually one read: asked for one byte more than the file's size, a regular
                    // file returns fewer only because it ended there. Anything else (a short
                    // read, a file that changed size) reads on until the buffer is full or the
                    // file ends, as before.
                    let first = try Syscall.read(file, into: buffer)
                    guard first != expected, first != 0 else { return first }
                    return first + (try Syscall.readAll(file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[first...])))
                }
            }
        } catch {
            throw StorageError(.system(error), operation: "read", path: filePath())
        }
        guard total < bytes.count else {
            // The file grew after fstat: refuse rather than return a prefix of it. Files in
            // shared storage are replaced by rename, never written in place, so this is not
            // a writer at work.
            throw StorageError(.system(.resourceTemporarilyUnavailable), operation: "read", path: filePath(),
                               hint: "the file grew while it was read, which GroupVault's writers never do; retry")
        }
        bytes.removeSubrange(total...)
        return bytes
    }

    /// The owner, mode and size checks of a file ``read(_:maximumSize:forbiddenModeBits:)`` reads
    /// (and ``openForAppending(_:maximumSize:)`` opens).
    static func check(
        _ status: Stat, path: @autoclosure () -> FilePath, sharing: FileSharing, forbiddenBits: UInt16, maximumSize: Int
    ) throws(StorageError) {
        try SafeDirectory.checkOwnerAndMode(status, path: path(), sharing: sharing, operation: "read", forbiddenBits: forbiddenBits)
        guard status.size <= Int64(maximumSize) else {
            throw StorageError(.tooLarge(limit: maximumSize), operation: "read", path: path())
        }
    }

    /// Replaces the file `name` in this directory atomically: a temporary file beside it,
    /// written, `fsync`ed, renamed over it, then the directory `fsync`ed for
    /// ``Durability/full``; the same steps and fault points as ``AtomicFile``.
    package func replace(_ name: String, with bytes: [UInt8], durability: Durability) throws(StorageError) {
        let temporary = try writeTemporary(for: name, bytes)
        try publishTemporary(temporary, as: name)
        if durability == .full { try sync() }
    }

    /// The first half of ``replace(_:with:durability:)``, for writers that replace many files
    /// and sync their directory once: writes `bytes` to a new temporary file beside `name`,
    /// `fsync`s and closes it, and returns the temporary's name. Nothing is published; on
    /// failure nothing is left behind. Publish it with ``publishTemporary(_:as:)``.
    package func writeTemporary(for name: String, _ bytes: [UInt8]) throws(StorageError) -> String {
        let temporary = try writeUnsyncedTemporary(for: name, bytes)
        defer { temporary.close() }
        try syncTemporary(temporary)
        return temporary.name
    }

    /// A temporary file written by ``writeUnsyncedTemporary(for:_:)`` and not yet proven
    /// durable. Its descriptor stays open until ``close()``: an `fsync` through a descriptor
    /// opened before the write reports that write's errors, which one opened later might not.
    package final class UnsyncedTemporary: Sendable {
        /// The temporary file's name in the directory.
        package let name: String
        /// The name it will replace.
        package let target: String
        fileprivate let descriptor: FileDescriptor

        fileprivate init(name: String, target: String, descriptor: FileDescriptor) {
            self.name = name
            self.target = target
            self.descriptor = descriptor
        }

        /// Closes the descriptor; the file stays. Call once, after its fate is settled.
        package func close() {
            Syscall.close(descriptor)
        }
    }

    /// Creates `name` in this directory, exclusively (`O_CREAT | O_EXCL`, never through a link)
    /// and with exactly the sharing's file mode: `openat` applies the umask (a 0660 file would
    /// come out 0640 under the usual 022, and the other members could not open it), so the new
    /// descriptor is given the mode with `fchmod`. A file this call made but could not give its
    /// mode is closed and removed: nothing half-made is left.
    ///
    /// Used for the unsynced temporaries of a reseal, a new database file and a group
    /// database's commit signal. Two creators keep their own sequence: ``AtomicFile``, whose new
    /// descriptor is checked with `fstat` before its mode is set (a step order its tests pin),
    /// and ``FileLock``, which vets a lock file that may already exist before it uses it.
    /// - Parameter step: the write step the `openat` performs, for fault injection.
    package func createFile(_ name: String, _ access: FileDescriptor.AccessMode, step: FaultPoint? = nil) throws(Errno) -> FileDescriptor {
        let file = try Syscall.open(
            name, in: descriptor, access, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
            permissions: FilePermissions(rawValue: CModeT(sharing.fileMode)), step: step)
        do {
            try Syscall.changeMode(file, to: sharing.fileMode)
        } catch {
            Syscall.close(file)
            try? Syscall.unlink(name, in: descriptor)
            throw error
        }
        return file
    }

    /// Writes `bytes` to a new temporary file beside `name` without `fsync`ing it, for a writer
    /// that makes many files durable at once (``syncFileSystem()``) or, failing that, one by one
    /// (``syncTemporary(_:)``). Nothing is published; on failure nothing is left behind.
    package func writeUnsyncedTemporary(for name: String, _ bytes: [UInt8]) throws(StorageError) -> UnsyncedTemporary {
        try checkName(name)
        let temporary = AtomicFile.temporaryPrefix(for: FilePath(name)) + SecureRandom.hex(count: 8)
        let file: FileDescriptor
        do {
            file = try createFile(temporary, .writeOnly, step: .createTemporary)
        } catch {
            throw StorageError(.system(error), operation: "create temporary file", path: path.appending(temporary))
        }
        do {
            try Syscall.writeAll(file, bytes, step: .writeTemporary)
        } catch {
            Syscall.close(file)
            try? Syscall.unlink(temporary, in: descriptor)
            throw StorageError(.system(error), operation: "replace", path: path.appending(name))
        }
        return UnsyncedTemporary(name: temporary, target: name, descriptor: file)
    }

    /// `fsync`s `temporary` through the descriptor it was written by. On failure the temporary
    /// is removed (its descriptor stays open until ``UnsyncedTemporary/close()``): what cannot be
    /// proven durable is never published.
    package func syncTemporary(_ temporary: UnsyncedTemporary) throws(StorageError) {
        do {
            try Syscall.sync(temporary.descriptor, step: .syncTemporary)
        } catch {
            try? Syscall.unlink(temporary.name, in: descriptor)
            throw StorageError(.system(error), operation: "replace", path: path.appending(temporary.target))
        }
    }

    /// Removes a temporary file that will not be published.
    package func discardTemporary(_ temporary: UnsyncedTemporary) {
        try? Syscall.unlink(temporary.name, in: descriptor)
    }

    /// `syncfs(2)` of the filesystem holding this directory: every file written there so far
    /// reaches stable storage, at the cost of one device flush instead of one per file. A
    /// failure, `ENOSYS` included (no `syncfs`, or a kernel too old to report writeback errors;
    /// see ``Syscall/syncFileSystem(_:)``), proves nothing about any file: sync them one by one.
    package func syncFileSystem() throws(StorageError) {
        do {
            try Syscall.syncFileSystem(descriptor)
        } catch {
            throw StorageError(.notDurable(error), operation: "sync filesystem", path: path)
        }
    }

    /// Renames a temporary file made by ``writeTemporary(for:_:)`` over `name`: from here on
    /// readers see it. Not yet durable until ``sync()``. On failure the temporary is removed.
    package func publishTemporary(_ temporary: String, as name: String) throws(StorageError) {
        try checkName(name)
        do {
            try Syscall.rename(temporary, to: name, in: descriptor, step: .rename)
        } catch {
            try? Syscall.unlink(temporary, in: descriptor)
            throw StorageError(.system(error), operation: "replace", path: path.appending(name))
        }
    }

    /// `fsync`s the directory, making the renames done in it durable. A failure is
    /// ``StorageError/Kind/notDurable``: what was renamed is already what readers see.
    package func sync() throws(StorageError) {
        do {
            try FaultInjection.check(.syncDirectory)
            try Syscall.sync(descriptor)
        } catch {
            throw StorageError(.notDurable(error), operation: "sync directory", path: path)
        }
    }

    /// The entry names of this directory, sorted (hidden ones and temporaries included).
    /// - Throws: ``StorageError`` naming the directory when it cannot be listed.
    package func names() throws(StorageError) -> [String] {
        do {
            return try Syscall.listDirectory(descriptor).sorted()
        } catch {
            throw StorageError(.system(error), operation: "list directory", path: path)
        }
    }

    /// `lstat` of the entry `name`, relative to the descriptor, or `nil` when there is none.
    package func status(of name: String) throws(StorageError) -> Stat? {
        try checkName(name)
        do {
            return try Syscall.statusIfPresent(name, in: descriptor)
        } catch {
            throw StorageError(.system(error), operation: "stat", path: path.appending(name))
        }
    }

    /// Removes temporary files that a killed ``replace(_:with:durability:)`` of `name` left
    /// behind. Call only while holding the writer lock for `name`: then no live writer owns
    /// such a file. Returns how many were removed.
    @discardableResult
    package func removeStaleTemporaries(for name: String) -> Int {
        let prefix = AtomicFile.temporaryPrefix(for: FilePath(name))
        return removeTemporaries(((try? names()) ?? []).filter { AtomicFile.isTemporary($0, prefix: prefix) })
    }

    /// The temporary files of killed ``replace(_:with:durability:)`` calls among `entries` (a
    /// listing of this directory, from ``names()``), by the name each would have replaced. For a
    /// pass over many files: one listing instead of one per file.
    package static func temporaries(among entries: [String]) -> [String: [String]] {
        let marker = ".tmp-"
        var found: [String: [String]] = [:]
        for entry in entries where entry.hasPrefix(".") && entry.utf8.count > 1 + marker.utf8.count + AtomicFile.suffixLength {
            let target = String(entry.dropFirst().dropLast(marker.count + AtomicFile.suffixLength))
            guard !target.isEmpty, AtomicFile.isTemporary(entry, prefix: AtomicFile.temporaryPrefix(for: FilePath(target))) else { continue }
            found[target, default: []].append(entry)
        }
        return found
    }

    /// ``removeStaleTemporaries(for:)`` for temporaries already found by
    /// ``temporaries(among:)``, without listing the directory again. Call only while holding
    /// the writer lock of the name they would have replaced. Returns how many were removed.
    @discardableResult
    package func removeTemporaries(_ temporaries: [String]) -> Int {
        var removed = 0
        for entry in temporaries {
            if (try? Syscall.unlink(entry, in: descriptor)) != nil { removed += 1 }
        }
        return removed
    }

    /// Refuses a `name` that is not one path component (a file's or, in
    /// DirectoryHandle+Subdirectories.swift, a subdirectory's). Callers build the file's full
    /// path (`path.appending(name)`) only for a refusal: a `FilePath` with its separators
    /// normalised costs as much as the system call, and warm keyring calls make several.
    func checkName(_ name: String) throws(StorageError) {
        guard Self.isOneComponent(name) else {
            throw StorageError(.wrongFileType, operation: "open", path: path.string + "/" + UntrustedText.printable(name),
                               hint: "a name in a directory handle must be one path component")
        }
    }

    /// Whether `name` is one path component: not empty, `.` or `..`, without `/` or NUL. One
    /// pass over the bytes: four separate looks at the string cost a warm read a thousand
    /// instructions per file it checks.
    static func isOneComponent(_ name: String) -> Bool {
        var name = name
        // Over the string's own bytes: iterating its UTF-8 view cost a synced write 1,500
        // instructions for a journal's 44-byte name.
        return name.withUTF8 { bytes in
            switch bytes.count {
            case 0: return false
            case 1: if bytes[0] == UInt8(ascii: ".") { return false }
            case 2: if bytes[0] == UInt8(ascii: "."), bytes[1] == UInt8(ascii: ".") { return false }
            default: break
            }
            for byte in bytes where byte == UInt8(ascii: "/") || byte == 0 {
                return false
            }
            return true
        }
    }
}
