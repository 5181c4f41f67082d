/// Who is on the other end of a server's connection, as the kernel says (never as the peer
/// says): `SO_PEERCRED`, recorded when the client called `connect(2)`.
public struct PeerCredentials: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The client's process id at connect time.
    public var pid: Int32
    /// Its effective user id.
    public var uid: UInt32
    /// Its effective group id.
    public var gid: UInt32

    /// Credentials as given (for tests and accept hooks that build their own).
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// `pid 123 uid 1000 gid 1000`.
    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// One authenticated client connection of a ``GroupChannelServer``.
public struct ChannelPeer: Sendable, Hashable, CustomStringConvertible {
    /// Unique among the connections of one server run, counting up from 1; a client that
    /// reconnects gets a new id.
    public let id: UInt64
    /// The kernel's word on the client process.
    public let credentials: PeerCredentials

    /// `#3 (pid 123 uid 1000 gid 1000)`.
    public var description: String { "#\(id) (\(credentials))" }
}
