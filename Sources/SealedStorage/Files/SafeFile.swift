import SystemPackage

/// Reading and checking files in shared storage, which is untrusted input: no symbolic links
/// are followed, only regular files are read, and every read is bounded.
///
/// The file's directory is opened once (`O_DIRECTORY | O_NOFOLLOW`) and the file looked up
/// relative to it, so neither the file nor its directory may be a symbolic link: a directory
/// swapped for one after a caller checked it is refused, not followed.
package enum SafeFile {
    /// Reads the whole of `path`, or returns `nil` if it does not exist.
    ///
    /// - Throws: ``StorageError`` if the path or its directory is a symbolic link, the path is
    ///   not a regular file or has more than one link, holds more than `maximumSize` bytes, or
    ///   if reading fails.
    package static func readIfPresent(_ path: FilePath, maximumSize: Int) throws(StorageError) -> [UInt8]? {
        guard let parent = try parentIfPresent(of: path, operation: "read") else { return nil }
        // Vetted before it is opened (Syscalls+VettedOpen.swift): this knows no sharing mode, so
        // it assumes the directory may be shared, where another name of a file this process
        // holds record locks on (a SQLite database) may have been planted at `path`, and
        // closing a descriptor of it would drop those locks. O_NONBLOCK so that a FIFO planted
        // in place of the file cannot hang the reader.
        let opened = try Syscall.openVetted(parent.name, in: parent.descriptor, .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking],
                                            path: path, operation: "read") { status throws(StorageError) in
            guard status.size <= Int64(maximumSize) else {
                throw StorageError(.tooLarge(limit: maximumSize), operation: "read", path: path)
            }
        }
        guard let (descriptor, status) = opened else { return nil }
        defer { Syscall.close(descriptor) }

        // Size the buffer from fstat, not from the limit (a 16 MiB limit must not cost a 16 MiB
        // allocation per read), and read one byte past it so a file that grew after fstat is
        // caught: the buffer then grows, but never beyond one byte past the limit.
        var bytes = [UInt8](repeating: 0, count: Int(status.size) + 1)
        var total = 0
        do {
            while true {
                if total == bytes.count {
                    guard bytes.count <= maximumSize else { break }
                    bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, maximumSize + 1 - bytes.count)))
                }
                // withUnsafeMutableBytes rethrows untyped; typed restores the Errno.
                let count = try Syscall.typed {
                    try bytes.withUnsafeMutableBytes { buffer throws(Errno) in
                        try Syscall.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...]))
                    }
                }
                if count == 0 { break }
                total += count
            }
        } catch {
            throw StorageError(.system(error), operation: "read", path: path)
        }
        guard total <= maximumSize else { throw StorageError(.tooLarge(limit: maximumSize), operation: "read", path: path) }
        bytes.removeSubrange(total...)
        return bytes
    }

    /// Checks that an existing file is a regular file (not a link), owned by this user, and
    /// not readable or writable beyond what `sharing` allows. A missing file passes; a
    /// directory that is a symbolic link is refused.
    package static func checkOwnership(_ path: FilePath, sharing: FileSharing) throws(StorageError) {
        guard let parent = try parentIfPresent(of: path, operation: "check") else { return }
        let found: Stat?
        do {
            found = try Syscall.statusIfPresent(parent.name, in: parent.descriptor)
        } catch {
            throw StorageError(.system(error), operation: "stat", path: path)
        }
        guard let status = found else { return }
        guard status.type == .regular else {
            throw StorageError(status.type == .symbolicLink ? .symbolicLink : .wrongFileType, operation: "check", path: path)
        }
        try SafeDirectory.checkOwnerAndMode(status, path: path, sharing: sharing, operation: "check file")
    }

    /// The directory of `path`, opened for lookups; `nil` when it does not exist (so neither
    /// does the file).
    private static func parentIfPresent(of path: FilePath, operation: String) throws(StorageError) -> ParentDirectory? {
        do {
            return try ParentDirectory(of: path, lookupOnly: true, operation: operation)
        } catch let error where error.kind == .system(.noSuchFileOrDirectory) {
            return nil
        }
    }
}
