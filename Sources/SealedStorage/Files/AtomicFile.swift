import SystemPackage

/// How far a replacement must have reached when ``AtomicFile/replace(_:with:sharing:durability:)`` returns.
package enum Durability: Sendable, Equatable {
    /// fsync the file, rename, fsync the directory: the new content survives power loss.
    case full
    /// fsync the file and rename, without the directory fsync: never torn, but after a crash
    /// the directory may still name the previous version.
    case atomic
}

/// Whole-file replacement by way of a temporary file in the same directory.
///
/// Readers that open the target see either the old or the new content, never a mix, because
/// `rename(2)` swaps the directory entry atomically. Every failure up to the rename removes the
/// temporary file and leaves the old content, and an error from the file's fsync aborts the
/// replacement (a failed fsync may have lost data, so renaming afterwards could publish a file
/// the disk does not hold). The directory fsync comes after the rename, which cannot be undone:
/// its failure is reported as ``StorageError/Kind/notDurable(_:)``, so callers can tell "nothing
/// happened" from "published, but not yet durable".
package enum AtomicFile {
    /// The prefix of temporary files: hidden, and named after their target so a sweep under
    /// the writer lock can find the leftovers of a killed writer.
    package static func temporaryPrefix(for target: FilePath) -> String {
        ".\(target.lastComponent?.string ?? "file").tmp-"
    }

    /// Replaces `target` with `bytes`, with the mode `sharing` prescribes.
    ///
    /// The directory is opened once (`O_DIRECTORY | O_NOFOLLOW`) and every step after that is
    /// relative to its descriptor: the temporary is created with `openat(O_CREAT | O_EXCL |
    /// O_NOFOLLOW)`, renamed with `renameat`, removed with `unlinkat`, and the directory synced
    /// through the same descriptor. A directory swapped for a symbolic link during the
    /// replacement is not followed: the new content lands in the directory that was opened.
    package static func replace(
        _ target: FilePath,
        with bytes: [UInt8],
        sharing: FileSharing,
        durability: Durability
    ) throws(StorageError) {
        let directory = try ParentDirectory(of: target, lookupOnly: false, operation: "create temporary file")
        let temporaryName = temporaryPrefix(for: target) + SecureRandom.hex(count: suffixLength / 2)
        let temporary = directory.path.appending(temporaryName)

        let descriptor: FileDescriptor
        do {
            descriptor = try Syscall.open(
                temporaryName, in: directory.descriptor, .writeOnly,
                options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                permissions: FilePermissions(rawValue: CModeT(sharing.fileMode)),
                step: .createTemporary)
        } catch {
            throw StorageError(.system(error), operation: "create temporary file", path: temporary)
        }

        var published = false
        defer {
            // Best effort: the replacement has already failed and its error is what the caller
            // needs; a temporary left behind is hidden, never read as the target, and removed by
            // the next writer's removeStaleTemporaries under the lock.
            if !published { try? Syscall.unlink(temporaryName, in: directory.descriptor) }
        }
        do {
            defer { Syscall.close(descriptor) }
            // O_EXCL made this file, but the directory is shared: change the mode only of what
            // fstat shows is still this user's regular file with its one name (a second name,
            // a hard link someone made meanwhile, would keep the content after the rename).
            var status: Stat?
            try step("set mode of temporary file", temporary) { () throws(Errno) in status = try Syscall.status(descriptor) }
            guard let status, status.type == .regular, UInt32(status.userID.rawValue) == Syscall.effectiveUserID, status.linkCount == 1 else {
                throw StorageError(.wrongFileType, operation: "set mode of temporary file", path: temporary,
                                   hint: "the new temporary file was linked or replaced by another process; nothing was replaced")
            }
            try step("set mode of temporary file", temporary) { () throws(Errno) in
                try Syscall.changeMode(descriptor, to: sharing.fileMode)
            }
            try step("write temporary file", temporary) { () throws(Errno) in
                try Syscall.writeAll(descriptor, bytes, step: .writeTemporary)
            }
            try step("sync temporary file", temporary) { () throws(Errno) in
                try Syscall.sync(descriptor, step: .syncTemporary)
            }
        }
        try step("rename temporary file over", target) { () throws(Errno) in
            try Syscall.rename(temporaryName, to: directory.name, in: directory.descriptor, step: .rename)
        }
        published = true
        if durability == .full {
            do {
                try Syscall.sync(directory.descriptor, step: .syncDirectory)
            } catch {
                throw StorageError(.notDurable(error), operation: "sync directory", path: directory.path)
            }
        }
    }

    /// fsyncs a directory so that a rename in it survives power loss. The directory is opened
    /// with `O_NOFOLLOW`: a symbolic link in its place is refused, not synced through.
    /// - Throws: ``StorageError/Kind/notDurable(_:)``: whatever was renamed is already visible.
    package static func syncDirectory(_ directory: FilePath) throws(StorageError) {
        do {
            let descriptor = try Syscall.open(directory, .readOnly, options: [.directory, .noFollow, .closeOnExec], step: .syncDirectory)
            defer { Syscall.close(descriptor) }
            try Syscall.sync(descriptor)
        } catch {
            throw StorageError(.notDurable(error), operation: "sync directory", path: directory)
        }
    }

    /// Removes temporary files that a killed writer left beside `target`. Call only while
    /// holding the writer lock for `target`: then no live writer owns such a file.
    /// Returns how many were removed.
    ///
    /// The directory is opened once; it is listed and the temporaries removed through that
    /// descriptor (`unlinkat`), so a directory swapped for a link after the listing does not
    /// make this remove same-named files elsewhere.
    @discardableResult
    package static func removeStaleTemporaries(for target: FilePath) -> Int {
        let prefix = temporaryPrefix(for: target)
        // Best effort throughout: a sweep of leftovers that cannot look (no directory yet, no
        // permission) or cannot remove one has nothing to undo; the leftovers are hidden, never
        // read as records, and the next sweep under the lock tries again.
        guard let directory = try? ParentDirectory(of: target, lookupOnly: false, operation: "remove temporary files"),
              let names = try? Syscall.listDirectory(directory.descriptor) else { return 0 }
        var removed = 0
        // Exactly the prefix and the random suffix: a record named "a.gvr.tmp-x" has temporaries
        // that start with ".a.gvr.tmp-", and they belong to its writer, not to a's.
        for name in names.sorted() where isTemporary(name, prefix: prefix) {
            if (try? Syscall.unlink(name, in: directory.descriptor)) != nil { removed += 1 }
        }
        return removed
    }

    /// The random suffix of a temporary name: 8 random bytes as 16 lowercase hex digits.
    package static let suffixLength = 16

    /// Whether `name` is a temporary file of the target whose prefix is `prefix`.
    package static func isTemporary(_ name: String, prefix: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let suffix = name.utf8.dropFirst(prefix.utf8.count)
        return suffix.count == suffixLength && suffix.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func step(_ operation: String, _ path: FilePath, _ body: () throws(Errno) -> Void) throws(StorageError) {
        do {
            try body()
        } catch {
            throw StorageError(.system(error), operation: operation, path: path)
        }
    }
}
