import Foundation
import SealedStorage
// Types only (FileDescriptor, FilePath, Stat, Errno): every call goes through `Syscall`.
// Package.swift should list SystemPackage among SharedDefaults' dependencies, as it does for
// the other modules that import it.
import SystemPackage

/// A plaintext preferences file being imported (``PreferencesImport``), opened once through
/// the file layer (`Syscall`), and removed after the import only if it is still the file that
/// was read.
///
/// Why not by path: the import reads a file, stores its values as sealed settings, then
/// deletes it. Done by path, a symbolic link in place of the file was followed (its target
/// imported, the link removed), a FIFO hung the reader, and the path was looked up again for
/// the removal, which removed whatever was there by then. So:
/// - the directory is opened once and the file opened relative to it with `O_NOFOLLOW` and
///   `O_NONBLOCK`: a symbolic link, FIFO or device in its place is refused, not followed;
/// - the opened file must be a regular file owned by this user, with a single link, and
///   writable by nobody else: a file another user could write (or link here) holds values
///   they chose, and importing them would seal them as this user's trusted settings;
/// - it is read once, bounded by `maximumSize`, and one byte past its `fstat` size is an
///   error, so a file that grew while it was read is caught;
/// - the removal is relative to the same directory descriptor, and only if the name still
///   refers to the file read (same device and inode): a newer file written in its place is kept.
///
/// The directory is the one the caller named, reached through its path (which may go
/// through symbolic links, as a home directory's often does); it is the user's own
/// preferences directory, not storage a group shares, so it is not vetted like one.
enum PreferencesFile {
    /// Opens, vets and reads the file at `path`, and runs `body` with its bytes and a function
    /// that removes it (if it is still the file read); returns `whenAbsent()` instead when
    /// there is no file at `path` (neither it nor its directory exists): nothing to import is
    /// not an error.
    /// - Throws: ``SharedDefaultsError/Code/malformedPreferences`` when the file is larger than
    ///   `maximumSize`; ``SharedDefaultsError/Code/storage`` when it cannot be opened or read,
    ///   or is not a regular file of this user, with one link, that only this user can write;
    ///   what `body` throws.
    static func withContents<Result>(
        of path: String,
        maximumSize: Int,
        whenAbsent: () -> Result,
        _ body: (_ bytes: [UInt8], _ remove: () throws(SharedDefaultsError) -> Void) throws(SharedDefaultsError) -> Result
    ) throws(SharedDefaultsError) -> Result {
        let shown = printable(path)
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard !name.isEmpty, name != ".", name != "..", name != "/", !path.hasSuffix("/") else {
            throw SharedDefaultsError(.storage, "\(shown) does not name a file")
        }
        let directory: FileDescriptor
        do {
            directory = try Syscall.open(FilePath(url.deletingLastPathComponent().path), .readOnly, options: [.directory, .closeOnExec])
        } catch .noSuchFileOrDirectory {
            return whenAbsent()
        } catch {
            throw SharedDefaultsError(.storage, "could not open the directory of \(shown): \(error)", underlyingError: error)
        }
        defer { Syscall.close(directory) }

        let file: FileDescriptor
        do {
            // O_NONBLOCK so that a FIFO planted in place of the file cannot hang the import.
            file = try Syscall.open(name, in: directory, .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking])
        } catch .tooManySymbolicLinkLevels {
            throw SharedDefaultsError(.storage, "\(shown) is a symbolic link, which is not followed: import the file it points to by its own path")
        } catch .noSuchFileOrDirectory {
            return whenAbsent()
        } catch {
            throw SharedDefaultsError(.storage, "could not open \(shown): \(error)", underlyingError: error)
        }
        let identity: (device: UInt64, inode: UInt64)
        let bytes: [UInt8]
        do {
            defer { Syscall.close(file) }
            let status: Stat
            do {
                status = try Syscall.status(file)
            } catch {
                throw SharedDefaultsError(.storage, "could not read \(shown): \(error)", underlyingError: error)
            }
            try vet(type: status.type == .regular, owner: UInt32(status.userID.rawValue), mode: UInt16(status.permissions.rawValue) & 0o777,
                    links: Int(status.linkCount), size: Int64(status.size), maximumSize: maximumSize, shown: shown)
            identity = (UInt64(truncatingIfNeeded: status.deviceID.rawValue), UInt64(truncatingIfNeeded: status.inode.rawValue))
            // One byte past the size, so a file that grew after fstat is caught.
            var buffer = [UInt8](repeating: 0, count: Int(status.size) + 1)
            let total: Int
            do {
                total = try Syscall.typed { try buffer.withUnsafeMutableBytes { try Syscall.readAll(file, into: $0) } }
            } catch {
                throw SharedDefaultsError(.storage, "could not read \(shown): \(error)", underlyingError: error)
            }
            guard total < buffer.count else {
                throw SharedDefaultsError(.storage, "\(shown) grew while it was read; import it again once nothing writes it")
            }
            buffer.removeSubrange(total...)
            bytes = buffer
        }

        return try body(bytes) { () throws(SharedDefaultsError) in
            do {
                guard let status = try Syscall.statusIfPresent(name, in: directory) else {
                    throw SharedDefaultsError(.storage, "\(shown) was removed by someone else after it was read")
                }
                guard UInt64(truncatingIfNeeded: status.deviceID.rawValue) == identity.device,
                      UInt64(truncatingIfNeeded: status.inode.rawValue) == identity.inode else {
                    throw SharedDefaultsError(.storage, "\(shown) was replaced after it was read, so it was not removed: the file there now is not the one imported; import again to move its values")
                }
                try Syscall.unlink(name, in: directory)
            } catch let error as SharedDefaultsError {
                throw error
            } catch {
                throw SharedDefaultsError(.storage, "could not remove \(shown): \(error)", underlyingError: error)
            }
        }
    }

    /// Refuses a file that is not a regular file of this user with one link, writable only by
    /// this user, within the size limit.
    private static func vet(type isRegular: Bool, owner: UInt32, mode: UInt16, links: Int, size: Int64, maximumSize: Int, shown: String) throws(SharedDefaultsError) {
        guard isRegular else {
            throw SharedDefaultsError(.storage, "\(shown) is not a regular file, so it is not a preferences file")
        }
        guard owner == Syscall.effectiveUserID else {
            throw SharedDefaultsError(.storage, "\(shown) is owned by user \(owner), not by this user (\(Syscall.effectiveUserID)): its values are not this user's to import")
        }
        guard mode & 0o022 == 0 else {
            throw SharedDefaultsError(.storage, "\(shown) has mode \(String(mode, radix: 8)): others can write it, so its values may be theirs; check its content, remove the group and others write permission (mode go-w), then import it")
        }
        guard links == 1 else {
            throw SharedDefaultsError(.storage, "\(shown) has \(links) hard links, so it may be another file's other name; copy it to a file of its own to import it")
        }
        guard size <= Int64(maximumSize) else {
            throw SharedDefaultsError(.malformedPreferences, "\(shown) is \(size) bytes, over the \(maximumSize)-byte limit for a preferences file")
        }
    }
}
