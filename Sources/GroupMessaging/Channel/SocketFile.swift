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

    /// Looks at `path`, and if it is a socket, tries to connect: `ECONNREFUSED` means no process
    /// listens any more. One non-blocking probe, not a socket loop.
    static func occupant(of path: String) -> Occupant {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .nothing }
        guard status.st_mode & S_IFMT == S_IFSOCK else { return .otherFile }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .liveServer }  // cannot tell: assume it is in use
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            sunPath.copyBytes(from: bytes.prefix(sunPath.count - 1))
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result == 0 { return .liveServer }
        // ECONNREFUSED: a socket file with no listener. Anything else (EAGAIN: a backlog that
        // is full) means someone may still be there.
        return errno == ECONNREFUSED ? .staleSocket : .liveServer
    }
}
