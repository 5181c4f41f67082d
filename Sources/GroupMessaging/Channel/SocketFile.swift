import SealedStorage
import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket file of a channel, as tests and tools see it by path. The server itself works
/// relative to the container it holds open (``DirectoryHandle/socketOccupant(named:)``,
/// ``DirectoryHandle/bindListeningSocket(named:backlog:)``); this is the same probe for a path.
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

    /// Looks at `path` through its directory, opened and vetted with `sharing`, and if it is a
    /// socket, tries once to connect (see ``DirectoryHandle/socketOccupant(named:)``). A
    /// directory that cannot be opened or vetted counts as in use: nothing there is removed.
    static func occupant(of path: String, sharing: FileSharing = .ownerOnly) -> Occupant {
        let file = FilePath(path)
        guard let name = file.lastComponent?.string,
              let directory = try? DirectoryHandle(opening: file.removingLastComponent(), sharing: sharing),
              let occupant = try? directory.socketOccupant(named: name) else { return .liveServer }
        switch occupant {
        case .nothing: return .nothing
        case .staleSocket: return .staleSocket
        case .liveServer: return .liveServer
        case .otherFile: return .otherFile
        }
    }

    /// Calls `body` with `path` as a Unix socket address and that address's length, and returns
    /// what it returns; `nil`, without calling it, when the path and its terminating NUL do not
    /// fit `sun_path`. For tests that play a peer by hand.
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
