import SealedStorage
import SystemPackage

/// A directory of the home that `doctor` looks at and may repair, held by descriptor.
///
/// Unlike ``DirectoryHandle`` it does not refuse a directory with the wrong owner or mode:
/// reporting those is the point. Everything else is as careful: the directory is opened once
/// with `O_DIRECTORY | O_NOFOLLOW` (a symbolic link in its place is reported, never followed),
/// its entries are examined with `fstatat(..., AT_SYMLINK_NOFOLLOW)` relative to the
/// descriptor, and a repair opens the entry relative to it again and checks that it is still
/// the file that was examined before changing anything (``DoctorRepair``).
final class InspectedDirectory {
    /// The descriptor, open for the object's lifetime.
    let descriptor: FileDescriptor
    /// The path it was opened by: for messages and printed commands, never opened again.
    let path: String

    private init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        Syscall.close(descriptor)
    }

    /// Opens the directory at `path` without following a symbolic link.
    static func open(_ path: String) throws(Errno) -> InspectedDirectory {
        let descriptor = try Syscall.open(FilePath(path), .readOnly, options: [.directory, .noFollow, .closeOnExec])
        return InspectedDirectory(descriptor: descriptor, path: path)
    }

    /// Opens the subdirectory `name` relative to this one, without following a symbolic link.
    func open(_ name: String) throws(Errno) -> InspectedDirectory {
        let descriptor = try Syscall.open(name, in: self.descriptor, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        return InspectedDirectory(descriptor: descriptor, path: child(name))
    }

    /// `fstat` of the directory itself.
    func status() throws(Errno) -> Stat {
        try Syscall.status(descriptor)
    }

    /// `fstatat(name, AT_SYMLINK_NOFOLLOW)`, or `nil` when there is no such entry.
    func status(of name: String) throws(Errno) -> Stat? {
        try Syscall.statusIfPresent(name, in: descriptor)
    }

    /// The entry names, sorted.
    func names() throws(Errno) -> [String] {
        try Syscall.listDirectory(descriptor).sorted()
    }

    /// The path of the entry `name`, for messages.
    func child(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }
}
