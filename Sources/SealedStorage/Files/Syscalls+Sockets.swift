import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Unix domain sockets in shared directories, and the directory-relative calls a safe bind needs.
//
// A socket file cannot be opened (open(2) of a socket fails with ENXIO) and fchmod of a socket's
// descriptor changes the socket, not the file bind(2) made, so the file layer's usual rule (open
// with O_NOFOLLOW, fstat, then fchmod) cannot set a socket file's mode. What can: bind inside a
// directory nobody else can enter, set the mode there by name (nothing can be swapped in), and
// only then give the finished file its public name (``DirectoryHandle/bindListeningSocket(named:backlog:)``).

extension Syscall {
    /// A new Unix domain stream socket, non-blocking and close-on-exec.
    package static func unixStreamSocket() throws(Errno) -> FileDescriptor {
        try checkFaults(.socket, step: nil)
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let descriptor = socket(AF_UNIX, type, 0)
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        return FileDescriptor(rawValue: descriptor)
    }

    /// `bind(2)` of `socket` to the path `path`, which must fit `sun_path` with its NUL
    /// (``Errno/fileNameTooLong`` otherwise). The last component of `path` is created, never
    /// followed (bind fails with EADDRINUSE on anything already there, a symbolic link included);
    /// the directories before it are looked up by path, so give a path no one else can redirect
    /// (see ``DirectoryHandle/bindListeningSocket(named:backlog:)``).
    package static func bind(_ socket: FileDescriptor, toPath path: String) throws(Errno) {
        try checkFaults(.bind, step: nil)
        let result = try withSocketAddress(path) { address, length in Glibc_or_Darwin_bind(socket.rawValue, address, length) }
        guard result == 0 else { throw Errno(rawValue: errno) }
    }

    /// `listen(2)`.
    package static func listen(_ socket: FileDescriptor, backlog: Int32) throws(Errno) {
        try checkFaults(.bind, step: nil)
        guard Glibc_or_Darwin_listen(socket.rawValue, backlog) == 0 else { throw Errno(rawValue: errno) }
    }

    /// `connect(2)` of `socket` to the socket file at `path`. Not retried on EINTR: the
    /// connection then continues in the background, and a second call would report EALREADY.
    ///
    /// connect(2) follows a symbolic link at `path`; a caller that must know what it reached
    /// compares the entry before and after (as ``DirectoryHandle/socketOccupant(named:)`` does).
    package static func connect(_ socket: FileDescriptor, toPath path: String) throws(Errno) {
        try checkFaults(.connect, step: nil)
        let result = try withSocketAddress(path) { address, length in Glibc_or_Darwin_connect(socket.rawValue, address, length) }
        guard result == 0 else { throw Errno(rawValue: errno) }
    }

    /// `unlinkat(name, AT_REMOVEDIR)`: removes the empty directory `name` in `directory`.
    package static func removeDirectory(_ name: String, in directory: FileDescriptor) throws(Errno) {
        try checkFaults(.unlink, step: nil)
        try retrying { name.withCString { unlinkat(directory.rawValue, $0, AT_REMOVEDIR) } }
    }

    /// `linkat(2)` without following: `newName` in `destination` becomes another name of the
    /// entry `name` in `source`. Fails with EEXIST when `newName` exists: unlike a rename, it
    /// never replaces what another process put there.
    package static func link(_ name: String, in source: FileDescriptor, as newName: String, in destination: FileDescriptor) throws(Errno) {
        try checkFaults(.link, step: nil)
        try retrying {
            name.withCString { from in newName.withCString { to in linkat(source.rawValue, from, destination.rawValue, to, 0) } }
        }
    }

    /// `fchmodat(2)` of the entry `name` in `directory`, by name. Only for an entry that cannot
    /// be opened (a socket file) in a directory that only this user can enter and write: there,
    /// nothing can replace `name` between its check and this call. Everywhere else set a mode
    /// with ``changeMode(_:to:)`` on an opened, vetted descriptor.
    package static func changeMode(of name: String, inPrivateDirectory directory: FileDescriptor, to mode: UInt16) throws(Errno) {
        try checkFaults(.changeMode, step: nil)
        try retrying { name.withCString { fchmodat(directory.rawValue, $0, mode_t(mode), 0) } }
    }

    /// A path that reaches the open directory `directory` itself, whatever has happened to the
    /// path it was opened by: `/proc/self/fd/<n>` (Linux). For the calls that take only a path
    /// (`bind`, `connect`), with one more component after it.
    package static func pinnedPath(of directory: FileDescriptor) -> String {
        "/proc/self/fd/\(directory.rawValue)"
    }

    /// Calls `body` with `path` as a Unix socket address and its length; throws
    /// ``Errno/fileNameTooLong``, without calling it, when the path and its NUL do not fit `sun_path`.
    private static func withSocketAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) throws(Errno) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.contains(0), bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .fileNameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// Which file a socket is: its device and inode. While a server's socket is open the kernel
/// keeps that inode allocated, so no other file can have it meanwhile.
package struct SocketFileIdentity: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init(_ status: Stat) {
        device = UInt64(status.deviceID.rawValue)
        inode = UInt64(status.inode.rawValue)
    }
}

/// A listening socket bound by ``DirectoryHandle/bindListeningSocket(named:backlog:)``.
package struct BoundSocket: Sendable {
    /// The listening socket; the caller owns it.
    package var descriptor: FileDescriptor
    /// The socket file it was bound to, now at its name in the directory.
    package var identity: SocketFileIdentity
}

/// What a socket name in a directory holds, as a starting server sees it.
package enum SocketOccupant: Equatable, Sendable {
    case nothing
    /// A socket nobody answers on (left by a server that died): this one.
    case staleSocket(SocketFileIdentity)
    /// A server accepted the connection, or it cannot be told (assume it is in use).
    case liveServer
    /// Something that is not a socket; never removed.
    case otherFile
}

extension DirectoryHandle {
    /// Binds a new listening Unix stream socket and publishes it as `name` in this directory,
    /// with the sharing mode's file mode, such that no swap can redirect the mode change.
    ///
    /// Why not `bind` then `chmod` the path: between the two, another member of the group (who
    /// can rename entries in a shared directory) could put a symbolic link or a hard link at the
    /// name, and the chmod would change the mode of any file this user owns. So:
    /// 1. a fresh directory `.<name>.bind-<random>` is made here (mkdirat, 0700 and only ever
    ///    less under the umask) and opened with `O_DIRECTORY | O_NOFOLLOW`; its fstat must show
    ///    a directory this user owns with no bits for its group or others, as made;
    /// 2. the socket is bound inside it through `/proc/self/fd/<that directory>/<name>`, a path
    ///    pinned to the opened directory whatever is renamed meanwhile;
    /// 3. its fstatat must show a socket this user owns with one link; its mode is set there
    ///    by name, where nobody else can enter to swap anything in;
    /// 4. it gets its public name with `linkat` (never replacing: a name taken meanwhile is
    ///    refused with EEXIST, not overwritten), the private name is unlinked and the private
    ///    directory removed.
    ///
    /// - Parameter whileBound: a test seam, run after the bind and before the mode is set and
    ///   the socket published: where tests put another member's move.
    /// - Throws: ``StorageError``: EEXIST (``StorageError/Kind/system``) when `name` appeared
    ///   while binding; ENAMETOOLONG when the pinned path does not fit `sun_path`.
    package func bindListeningSocket(named name: String, backlog: Int32, whileBound: (() -> Void)? = nil) throws(StorageError) -> BoundSocket {
        let target = path.appending(name)
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")), !name.utf8.contains(0) else {
            throw StorageError(.wrongFileType, operation: "bind socket", path: path.string + "/" + UntrustedText.printable(name),
                               hint: "a socket name in a directory handle must be one path component")
        }
        let privateName = ".\(name).bind-" + SecureRandom.hex(count: 8)
        func failure(_ error: Errno, _ operation: String, hint: String? = nil) -> StorageError {
            StorageError(.system(error), operation: operation, path: target, hint: hint)
        }
        do {
            try Syscall.makeDirectory(privateName, in: descriptor, mode: 0o700)
        } catch {
            throw failure(error, "create the private directory to bind a socket")
        }
        let privateDirectory: FileDescriptor
        do {
            privateDirectory = try Syscall.open(privateName, in: descriptor, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch {
            // Replaced between mkdirat and openat: not ours to remove.
            throw failure(error, "open the private directory to bind a socket")
        }
        defer { Syscall.close(privateDirectory) }
        let privateIdentity: SocketFileIdentity
        do {
            let status = try Syscall.status(privateDirectory)
            guard status.type == .directory, UInt32(status.userID.rawValue) == Syscall.effectiveUserID,
                  UInt16(status.permissions.rawValue) & 0o077 == 0 else {
                throw StorageError(.wrongFileType, operation: "bind socket", path: target,
                                   hint: "the private directory made to bind it was replaced by another process's; nothing was bound")
            }
            // mkdirat applied the umask, which may have taken the owner's own bits too. The
            // setgid bit inherited from a unixGroup directory stays: through it the socket gets
            // the directory's group, the one the other members connect through.
            try Syscall.changeMode(privateDirectory, to: 0o700 | UInt16(status.permissions.rawValue) & 0o2000)
            privateIdentity = SocketFileIdentity(status)
        } catch let error as StorageError {
            throw error
        } catch {
            throw failure(error as? Errno ?? .ioError, "check the private directory to bind a socket")
        }
        // Whatever happens next, the private directory goes; only if it is still the one made.
        defer { removePrivateDirectory(privateName, identity: privateIdentity) }

        let socket: FileDescriptor
        do {
            socket = try Syscall.unixStreamSocket()
        } catch {
            throw failure(error, "create socket")
        }
        do throws(StorageError) {
            let pinned = Syscall.pinnedPath(of: privateDirectory) + "/" + name
            do {
                try Syscall.bind(socket, toPath: pinned)
            } catch .fileNameTooLong {
                throw failure(.fileNameTooLong, "bind socket",
                              hint: "the pinned path \(pinned) does not fit sun_path (\(MemoryLayout.size(ofValue: sockaddr_un().sun_path)) bytes with its NUL); use a shorter socket name")
            } catch {
                throw failure(error, "bind socket")
            }
            whileBound?()
            let identity = try vetAndSetMode(socketNamed: name, in: privateDirectory, target: target)
            do {
                try Syscall.listen(socket, backlog: backlog)
            } catch {
                throw failure(error, "listen")
            }
            do {
                try Syscall.link(name, in: privateDirectory, as: name, in: descriptor)
            } catch .fileExists {
                try? Syscall.unlink(name, in: privateDirectory)
                throw failure(.fileExists, "publish socket",
                              hint: "something was put at the name while the socket was being bound; it was left alone")
            } catch {
                try? Syscall.unlink(name, in: privateDirectory)
                throw failure(error, "publish socket")
            }
            do {
                try Syscall.unlink(name, in: privateDirectory)
            } catch {
                // Published under its name already; the second name would keep the private
                // directory from being removed, so say so rather than leave it silently.
                _ = try? removeSocket(named: name, ifStill: identity)
                throw failure(error, "remove the socket's private name")
            }
            return BoundSocket(descriptor: socket, identity: identity)
        } catch {
            Syscall.close(socket)
            throw error
        }
    }

    /// The socket `name` just bound in `privateDirectory`: refused unless it is a socket this
    /// user owns with one link; then given the sharing mode's file mode.
    private func vetAndSetMode(socketNamed name: String, in privateDirectory: FileDescriptor, target: FilePath) throws(StorageError) -> SocketFileIdentity {
        do {
            guard let status = try Syscall.statusIfPresent(name, in: privateDirectory), status.type == .socket,
                  UInt32(status.userID.rawValue) == Syscall.effectiveUserID, status.linkCount == 1 else {
                throw StorageError(.wrongFileType, operation: "bind socket", path: target,
                                   hint: "the file bound in the private directory is not the socket this process made")
            }
            try Syscall.changeMode(of: name, inPrivateDirectory: privateDirectory, to: sharing.fileMode)
            return SocketFileIdentity(status)
        } catch let error as StorageError {
            try? Syscall.unlink(name, in: privateDirectory)
            throw error
        } catch {
            try? Syscall.unlink(name, in: privateDirectory)
            throw StorageError(.system(error as? Errno ?? .ioError), operation: "set mode of socket", path: target)
        }
    }

    /// Removes the private bind directory `name` if it is still the one made (by identity): in
    /// a shared directory another member may have renamed it away and put something else there.
    private func removePrivateDirectory(_ name: String, identity: SocketFileIdentity) {
        guard let status = try? Syscall.statusIfPresent(name, in: descriptor), status.type == .directory,
              SocketFileIdentity(status) == identity else { return }
        try? Syscall.removeDirectory(name, in: descriptor)
    }

    /// What is at `name` in this directory, for a server about to bind it: a socket is probed
    /// with one non-blocking connect through the pinned path. connect(2) follows a symbolic
    /// link, so the entry is looked at before and after: if it changed meanwhile, what answered
    /// (or refused) may have been something else, and the name counts as in use.
    package func socketOccupant(named name: String) throws(StorageError) -> SocketOccupant {
        guard let before = try status(of: name) else { return .nothing }
        guard before.type == .socket else { return .otherFile }
        let probe: FileDescriptor
        do {
            probe = try Syscall.unixStreamSocket()
        } catch {
            return .liveServer  // cannot tell: assume it is in use
        }
        defer { Syscall.close(probe) }
        let refused: Bool
        do {
            try Syscall.connect(probe, toPath: Syscall.pinnedPath(of: descriptor) + "/" + name)
            refused = false
        } catch {
            // ECONNREFUSED: a socket file with no listener. Anything else (EAGAIN: a full
            // backlog; a path too long to probe) means someone may still be there.
            refused = error == .connectionRefused
        }
        guard refused, let after = try status(of: name), after.type == .socket,
              SocketFileIdentity(after) == SocketFileIdentity(before) else { return .liveServer }
        return .staleSocket(SocketFileIdentity(before))
    }

    /// The identity of the socket at `name`, or `nil` when there is none (or something else).
    package func socketIdentity(named name: String) throws(StorageError) -> SocketFileIdentity? {
        guard let status = try status(of: name), status.type == .socket else { return nil }
        return SocketFileIdentity(status)
    }

    /// Removes `name` from this directory if it is still the socket `identity`; returns whether
    /// it did. Unlinking removes a name, never a file's contents, so what another process might
    /// swap in between the check and the unlink loses only its name in this directory.
    @discardableResult
    package func removeSocket(named name: String, ifStill identity: SocketFileIdentity) throws(StorageError) -> Bool {
        guard try socketIdentity(named: name) == identity else { return false }
        do {
            try Syscall.unlink(name, in: descriptor)
        } catch .noSuchFileOrDirectory {
            return false
        } catch {
            throw StorageError(.system(error), operation: "remove socket", path: path.appending(name))
        }
        return true
    }
}

// The C functions share names with the Swift wrappers above; these aliases say which is meant.
@inline(__always) private func Glibc_or_Darwin_bind(_ socket: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    bind(socket, address, length)
}

@inline(__always) private func Glibc_or_Darwin_listen(_ socket: Int32, _ backlog: Int32) -> Int32 {
    listen(socket, backlog)
}

@inline(__always) private func Glibc_or_Darwin_connect(_ socket: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(socket, address, length)
}
