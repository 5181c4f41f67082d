import Foundation
import SystemPackage

/// The socket file of a channel: checked before a server binds, so that a live server's file
/// is never taken away.
enum SocketFile {
    /// What is at the socket path.
    enum Occupant: Equatable {
        case nothing
        /// A socket nobody answers on: left by a server that died.
        case staleSocket
        /// A server accepted a connection on it.
        case liveServer
        /// Something that is not a socket; never removed.
        case otherFile
    }

    /// Which socket file a server bound: its device and inode. While the server's socket is
    /// open, the kernel keeps that inode allocated, so no other file at the path can have it.
    struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    /// The identity of the socket at `path`, or `nil` if there is none (or something else).
    static func identity(of path: String) -> Identity? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Looks at `path`, and if it is a socket, tries to connect: `ECONNREFUSED` means no process
    /// listens any more. One non-blocking probe, not a socket loop: a blocking `connect(2)` to
    /// a server whose backlog is full (stopped, or not accepting) would wait for a slot, and a
    /// server starting up would hang here holding the startup lock.
    static func occupant(of path: String) -> Occupant {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .nothing }
        guard status.st_mode & S_IFMT == S_IFSOCK else { return .otherFile }
        let descriptor = streamSocket()
        guard descriptor >= 0 else { return .liveServer }  // cannot tell: assume it is in use
        defer { close(descriptor) }
        // A path too long for an address cannot be probed: assume it is in use.
        guard let result = withAddress(of: path, { connect(descriptor, $0, $1) }) else { return .liveServer }
        if result == 0 { return .liveServer }
        // ECONNREFUSED: a socket file with no listener. Anything else (EAGAIN: a backlog that
        // is full; a Unix stream connect never answers EINPROGRESS) means someone may still be there.
        return errno == ECONNREFUSED ? .staleSocket : .liveServer
    }

    /// A stream socket bound to `path` and listening, for `ServerBootstrap.withBoundSocket`.
    ///
    /// The server binds it itself rather than letting SwiftNIO bind the path: a listener NIO
    /// bound removes whatever socket is at its path when it closes, which may by then be
    /// another, live server's (the file was replaced meanwhile). A socket handed to NIO already
    /// bound is left to its owner, and ``GroupChannelServer/close()`` removes only its own file.
    static func bindListening(_ path: String, backlog: Int32) throws(Errno) -> CInt {
        let descriptor = streamSocket()
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        guard let bound = withAddress(of: path, { bind(descriptor, $0, $1) }) else {
            close(descriptor)
            throw Errno.fileNameTooLong
        }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            let error = Errno(rawValue: errno)
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// A new non-blocking Unix stream socket (close-on-exec), or -1 with errno set.
    private static func streamSocket() -> CInt {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    }

    /// Calls `body` with `path` as a Unix socket address and that address's length, and returns
    /// what it returns; `nil`, without calling it, when the path and its terminating NUL do not
    /// fit `sun_path`.
    static func withAddress<Result>(of path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
