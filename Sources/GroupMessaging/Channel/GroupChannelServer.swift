import CGroupIPC
import Foundation
import Keyring
import NIOCore
import NIOPosix
import SealedStorage
import SystemPackage

/// The listening end of a group's sealed message channel: a Unix domain stream socket in the
/// group container, served by SwiftNIO.
///
/// Every client proves it holds the group key before anything it sends is delivered (see
/// docs/MESSAGING.md for the handshake and the frame format). The server reads each client's
/// credentials from the kernel (`SO_PEERCRED`) and offers them to ``Handlers/accept`` before the
/// handshake. Messages are decoded only into the types in the allow-list; an unknown or
/// malformed message closes that one connection with a reason.
///
/// ```swift
/// let server = try await GroupChannelServer.start(
///     GroupIPCName(.socket, "sync", in: group, keyring: keyring), keyring: keyring,
///     accepting: GroupMessageTypes([Refresh.self]),
///     handlers: .init(message: { message, peer in print(message, peer) }))
/// try await server.broadcast(Refresh())
/// ```
public final class GroupChannelServer: Sendable {
    /// What the server's owner is told and asked. Every handler is optional; they run on the
    /// server's event loops, so they should return quickly.
    public struct Handlers: Sendable {
        /// Decides on a new connection from the kernel's credentials, before the handshake:
        /// return `nil` to go on, or a reason to refuse (the connection is closed at once).
        public var accept: @Sendable (PeerCredentials) -> String?
        /// A client proved it holds the group key.
        public var connected: @Sendable (ChannelPeer) -> Void
        /// A one-way message, in the order the client sent it.
        public var message: @Sendable (any GroupMessage, ChannelPeer) -> Void
        /// A request; the returned message is the response. A thrown error goes back to the
        /// client as a failure with the error's description. It starts on the connection's
        /// event loop and runs there until it first suspends, so a quick answer costs no thread
        /// hop; after that it runs on Swift's pool and the loop serves other connections. Start
        /// lengthy work by awaiting something that suspends (an actor of your own, say), not
        /// before, or the loop's other connections wait for it. (On Apple's systems before their
        /// 26 releases, which lack `Task.immediate`, it starts on Swift's pool.)
        public var request: @Sendable (any GroupMessage, ChannelPeer) async throws -> any GroupMessage
        /// A connection ended: `peer` is `nil` if it never completed the handshake (refused,
        /// without the key, not speaking the protocol). The reason says why.
        public var invalidated: @Sendable (ChannelPeer?, String) -> Void

        /// Handlers; omitted ones accept everyone, ignore messages, refuse requests.
        public init(
            accept: @escaping @Sendable (PeerCredentials) -> String? = { _ in nil },
            connected: @escaping @Sendable (ChannelPeer) -> Void = { _ in },
            message: @escaping @Sendable (any GroupMessage, ChannelPeer) -> Void = { _, _ in },
            request: @escaping @Sendable (any GroupMessage, ChannelPeer) async throws -> any GroupMessage = { message, _ in
                throw GroupMessagingError(.invalidMessage, "this server answers no requests (got \(type(of: message).messageType))")
            },
            invalidated: @escaping @Sendable (ChannelPeer?, String) -> Void = { _, _ in }
        ) {
            self.accept = accept
            self.connected = connected
            self.message = message
            self.request = request
            self.invalidated = invalidated
        }
    }

    /// The socket's name and path.
    public let name: GroupIPCName
    private let core: ServerCore
    private let listener: any Channel
    /// The group container, held open since the server started: the socket and its startup
    /// lock are reached relative to it, never by a path another member could redirect.
    private let container: DirectoryHandle
    /// The socket file this server bound, so that ``close()`` removes that file and no other.
    private let socketFile: SocketFileIdentity

    private init(name: GroupIPCName, core: ServerCore, listener: any Channel, container: DirectoryHandle, socketFile: SocketFileIdentity) {
        self.name = name
        self.core = core
        self.listener = listener
        self.container = container
        self.socketFile = socketFile
    }

    /// Binds `name` (a ``GroupIPCName/Kind/socket`` name) and starts accepting clients.
    ///
    /// A socket file already at the path is removed only if connecting to it is refused (its
    /// server is gone); if a server answers, this throws ``GroupMessagingError/Code/addressInUse``.
    /// Anything at the path that is not a socket is left alone and refused, and so is anything
    /// put at the name while the socket is being bound. The socket is bound in a private
    /// directory, given the group's file mode there and then linked into the container (see
    /// `DirectoryHandle.bindListeningSocket(named:backlog:)`), so no file swapped in at the name
    /// can have its mode changed.
    /// - Throws: ``GroupMessagingError``: ``GroupMessagingError/Code/notEntitled``,
    ///   ``GroupMessagingError/Code/invalidName`` (not a socket name, or one made for another
    ///   home than `keyring`'s), ``GroupMessagingError/Code/keyring`` (no group key), ``GroupMessagingError/Code/addressInUse``,
    ///   ``GroupMessagingError/Code/system`` when binding fails.
    /// - Parameters:
    ///   - name: the socket's name in the group container.
    ///   - keyring: the identity that serves, entitled to the group; its group key seals the channel.
    ///   - types: the message types clients may send; anything else closes that connection.
    ///   - handlers: the accept hook, and what to do with each connection, message and request.
    ///   - handshakeTimeout: how long a new connection may take to prove it holds the
    ///     group key; a silent or slow peer is closed after it.
    public static func start(
        _ name: GroupIPCName, keyring: Keyring, accepting types: GroupMessageTypes, handlers: Handlers = Handlers(),
        handshakeTimeout: Duration = .seconds(10)
    ) async throws(GroupMessagingError) -> GroupChannelServer {
        try await start(name, keyring: keyring, accepting: types, handlers: handlers, handshakeTimeout: handshakeTimeout, whileBinding: nil)
    }

    /// ``start(_:keyring:accepting:handlers:handshakeTimeout:)`` with a test seam:
    /// `whileBinding` runs once the socket is bound and before its mode is set and it is
    /// published, the moment another member of the group would swap something in.
    package static func start(
        _ name: GroupIPCName, keyring: Keyring, accepting types: GroupMessageTypes, handlers: Handlers = Handlers(),
        handshakeTimeout: Duration = .seconds(10), whileBinding: (() -> Void)?
    ) async throws(GroupMessagingError) -> GroupChannelServer {
        guard name.kind == .socket else {
            throw GroupMessagingError(.invalidName, "\(name) is a \(name.kind.rawValue) name; a channel needs GroupIPCName(.socket, ...)")
        }
        // The container as the keyring holds it, opened once from the home's held `Group
        // Containers/` one name at a time: every later step is relative to this descriptor.
        // Never reopened by the socket's path, which a member of a unixGroup home could
        // redirect (`Group Containers` swapped for a link to a private directory of this user's)
        // to make this server lock, bind and remove stale sockets there.
        let container: DirectoryHandle
        do {
            guard let held = try keyring.containerDirectory(for: name.group) else { throw GroupIPCName.notEntitled(name.group, keyring: keyring) }
            container = held
            _ = try keyring.groupKey(for: name.group)  // creates the keyset on first use
        } catch let error as KeyringError {
            throw .keyring(error, while: "start channel server \(name)")
        } catch {
            throw error as! GroupMessagingError
        }
        // The path is for clients, which connect by it: it must be this container's.
        guard FilePath(name.rawValue).removingLastComponent() == container.path else {
            throw GroupMessagingError(.invalidName, "\(name) is not in this keyring's container of \(name.group) (\(container.path)); make the name with the keyring that starts the server")
        }
        // Held from the probe until the bind is done: a second server starting at the same
        // moment waits here, then finds the first one answering instead of removing its file.
        let startupLock: FileLock
        do {
            startupLock = try Self.startupLock(of: name, in: container)
        } catch {
            throw .storage(error, while: "lock \(name) to start a server")
        }
        do {
            switch try container.socketOccupant(named: name.name) {
            case .nothing: break
            case .staleSocket(let stale): try container.removeSocket(named: name.name, ifStill: stale)
            case .liveServer:
                throw GroupMessagingError(.addressInUse, "a server is already answering on \(name); stop it first, or use another name")
            case .otherFile:
                throw GroupMessagingError(.addressInUse, "\(name) exists and is not a socket; it was left alone: move it away")
            }
        } catch let error as StorageError {
            throw .storage(error, while: "probe or remove the stale socket \(name)")
        } catch {
            throw error as! GroupMessagingError
        }
        // NIOCore clamps a duration past what TimeAmount holds (`.seconds(Int64.max)` for
        // "practically never") to Int64.max nanoseconds; a negative one means "at once".
        let timeout = TimeAmount(max(.zero, handshakeTimeout))
        let core = ServerCore(keyring: keyring, group: name.group, types: types, handlers: handlers, handshakeTimeout: timeout)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.writeBufferWaterMark, value: ChannelConnectionHandler.waterMark)
            .childChannelInitializer { channel in core.initialize(channel) }
        let socket: BoundSocket
        do {
            socket = try container.bindListeningSocket(named: name.name, backlog: 256, whileBound: whileBinding)
        } catch {
            if case .system(.fileExists) = error.kind {
                throw GroupMessagingError(.addressInUse, "\(name) was taken by another process while this server was binding it; it was left alone: \(error)", underlyingError: error)
            }
            throw GroupMessagingError(.system, "bind \(name): \(error)", underlyingError: error)
        }
        let listener: any Channel
        do {
            // NIO owns the descriptor from here, and closes it with the listener.
            listener = try await bootstrap.withBoundSocket(socket.descriptor.rawValue).get()
        } catch {
            // Bound by this call, under the lock: removed only if it is still that file.
            _ = try? container.removeSocket(named: name.name, ifStill: socket.identity)
            throw GroupMessagingError(.system, "listen on \(name): \(error)", underlyingError: error)
        }
        _ = consume startupLock  // the socket answers now: a server starting next will see it live
        return GroupChannelServer(name: name, core: core, listener: listener, container: container, socketFile: socket.identity)
    }

    /// The lock servers of `name` hold while they probe, bind or remove its socket file:
    /// `<socket>.lock`, beside it in the held container, with the group's sharing mode.
    private static func startupLock(of name: GroupIPCName, in container: DirectoryHandle) throws(StorageError) -> FileLock {
        try FileLock(exclusiveIn: container, name: name.name + ".lock")
    }

    /// The clients connected now, by id.
    public var peers: [ChannelPeer] { core.peers }

    /// Sends `message` to every connected client; returns how many it was sent to.
    @discardableResult
    public func broadcast(_ message: any GroupMessage) async throws(GroupMessagingError) -> Int {
        let channels = core.channels
        // Encoded once per format the clients read, all before any is sent: a message one
        // format refuses (JSON has no infinity, say) is refused whole, never sent to some.
        var envelopes: [ChannelBodyFormat: ChannelEnvelope] = [:]
        for format in Set(channels.map(\.format)).union(channels.isEmpty ? [.json] : []) {
            envelopes[format] = try ChannelEnvelope.encoding(message, kind: .message, id: 0, format: format)
        }
        for (channel, format) in channels { channel.writeAndFlush(envelopes[format]!, promise: nil) }
        return channels.count
    }

    /// Sends `message` to the client with id `peer`.
    /// - Throws: ``GroupMessagingError/Code/notConnected`` if it is not connected (any more).
    public func send(_ message: any GroupMessage, to peer: UInt64) async throws(GroupMessagingError) {
        guard let (channel, format) = core.channel(peer) else {
            _ = try ChannelEnvelope.encoding(message, kind: .message, id: 0, format: .json)  // an invalid message is refused as such first
            throw GroupMessagingError(.notConnected, "client #\(peer) is not connected")
        }
        let envelope = try ChannelEnvelope.encoding(message, kind: .message, id: 0, format: format)
        do {
            try await channel.writeAndFlush(envelope).get()
        } catch {
            throw GroupMessagingError(.notConnected, "client #\(peer) went away before the message was written", underlyingError: error)
        }
    }

    /// Stops listening and closes every connection but leaves the socket file, as a server
    /// that was killed would: for tests of stale-file handling.
    package func closeLeavingSocketFile() async throws {
        try await listener.close().get()
        for channel in core.openChannels { try? await channel.close().get() }
    }

    /// Stops listening, closes every connection and removes the socket file, if the file at
    /// the path is still the one this server bound.
    ///
    /// The file may have been removed and the path bound by another server meanwhile; removing
    /// that one would take a live server's socket away. So the file is compared with the one
    /// bound (device and inode, which the kernel keeps allocated while this server listens) and
    /// removed under the startup lock, before listening stops: a server starting at the same
    /// moment waits, then finds the path free. If the lock cannot be taken the file stays, and
    /// the next server finds it stale and removes it.
    public func close() async {
        if let lock = try? Self.startupLock(of: name, in: container) {
            // A failure leaves the file, which the next server finds stale and removes.
            _ = try? container.removeSocket(named: name.name, ifStill: socketFile)
            _ = consume lock
        }
        try? await listener.close().get()
        for channel in core.openChannels { try? await channel.close().get() }
    }
}

/// The server's state shared with its connection handlers.
final class ServerCore: ChannelConnectionDelegate, @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a `Locked`); the rest is immutable and Sendable.
    private struct State {
        var nextID: UInt64 = 1
        var peers: [UInt64: (peer: ChannelPeer, channel: any Channel, format: ChannelBodyFormat)] = [:]
        var pending: [UInt64: PeerCredentials] = [:]
        /// Every open connection, handshake done or not, so that closing the server closes all.
        var open: [UInt64: any Channel] = [:]
        /// Requests whose handler has not answered yet, by connection.
        var requestsInFlight: [UInt64: Int] = [:]
    }

    /// The most requests one connection may have awaiting their response. Each is a task
    /// holding its decoded message; without a bound, a client sending requests faster than the
    /// handler answers would make the server hold all of them.
    static let maximumRequestsInFlight = 1024

    let keyring: Keyring
    let group: GroupIdentifier
    let types: GroupMessageTypes
    let handlers: GroupChannelServer.Handlers
    let handshakeTimeout: TimeAmount
    private let state = Locked(State())

    init(keyring: Keyring, group: GroupIdentifier, types: GroupMessageTypes, handlers: GroupChannelServer.Handlers, handshakeTimeout: TimeAmount) {
        self.handshakeTimeout = handshakeTimeout
        self.keyring = keyring
        self.group = group
        self.types = types
        self.handlers = handlers
    }

    var peers: [ChannelPeer] { state.withLock { $0.peers.values.map(\.peer).sorted { $0.id < $1.id } } }
    /// Every established connection, with the format its client is sent bodies in.
    var channels: [(channel: any Channel, format: ChannelBodyFormat)] { state.withLock { $0.peers.values.map { ($0.channel, $0.format) } } }
    var openChannels: [any Channel] { state.withLock { Array($0.open.values) } }
    func channel(_ id: UInt64) -> (channel: any Channel, format: ChannelBodyFormat)? {
        state.withLock { $0.peers[id].map { ($0.channel, $0.format) } }
    }

    /// Reads the client's credentials, asks the accept hook, then installs the protocol.
    func initialize(_ channel: any Channel) -> EventLoopFuture<Void> {
        guard let provider = channel as? any SocketOptionProvider else {
            handlers.invalidated(nil, "refused: the connection has no socket to read SO_PEERCRED from")
            return channel.eventLoop.makeFailedFuture(GroupMessagingError(.system, "no socket for SO_PEERCRED"))
        }
        // struct ucred: what the kernel recorded when the client called connect(2).
        let credentials: EventLoopFuture<cgroupipc_peer_credentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return credentials.flatMapThrowing { raw in
            let credentials = PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid)
            if let refusal = self.handlers.accept(credentials) {
                self.handlers.invalidated(nil, "refused \(credentials) by the accept hook: \(refusal)")
                throw GroupMessagingError(.protocolViolation, refusal)
            }
            let id = self.state.withLock { state in
                let id = state.nextID
                state.nextID += 1
                state.pending[id] = credentials
                state.open[id] = channel
                return id
            }
            try channel.pipeline.syncOperations.addChannelServerHandlers(
                connectionID: id, group: self.group.rawValue, handshakeTimeout: self.handshakeTimeout, delegate: self)
        }
    }

    func groupKey(id: UInt32) -> SymmetricKey? {
        try? keyring.key(id: id, in: group).key
    }

    func established(connectionID: UInt64, channel: any Channel, peerReads: ChannelReadableFormats) {
        let peer: ChannelPeer? = state.withLock { state in
            guard let credentials = state.pending.removeValue(forKey: connectionID) else { return nil }
            let peer = ChannelPeer(id: connectionID, credentials: credentials)
            state.peers[connectionID] = (peer, channel, peerReads.preferred)
            return peer
        }
        if let peer { handlers.connected(peer) }
    }

    func received(_ envelope: ChannelEnvelope, connectionID: UInt64, channel: any Channel) throws(ChannelProtocolError) {
        guard let (peer, format) = state.withLock({ $0.peers[connectionID].map { ($0.peer, $0.format) } }) else { return }
        guard envelope.kind == .message || envelope.kind == .request else {
            throw ChannelProtocolError(.unexpectedFrame, "a client sent a \(envelope.kind) envelope, which only servers send")
        }
        let message = try types.decode(name: envelope.type, body: envelope.bodyData, format: envelope.bodyFormat)
        if envelope.kind == .message {
            handlers.message(message, peer)
            return
        }
        let admitted = state.withLock { state in
            let count = state.requestsInFlight[connectionID, default: 0]
            guard count < Self.maximumRequestsInFlight else { return false }
            state.requestsInFlight[connectionID] = count + 1
            return true
        }
        guard admitted else {
            throw ChannelProtocolError(
                .unexpectedFrame,
                "the client has \(Self.maximumRequestsInFlight) requests awaiting their response; it must wait for answers before sending more")
        }
        let request = handlers.request
        let id = envelope.id
        let answer: @Sendable () async -> Void = {
            let reply: ChannelEnvelope
            do {
                reply = try ChannelEnvelope.encoding(try await request(message, peer), kind: .response, id: id, format: format)
            } catch {
                reply = ChannelEnvelope(kind: .failure, id: id, body: Array(String(describing: error).utf8.prefix(1000)))
            }
            channel.writeAndFlush(reply, promise: nil)
            self.state.withLock { state in
                // Absent once the connection ended: nothing to count any more.
                if let count = state.requestsInFlight[connectionID] { state.requestsInFlight[connectionID] = count - 1 }
            }
        }
        // Started here, on the connection's event loop, and run on it until the handler first
        // suspends: a handler that answers without suspending is answered in this same read,
        // with no wake-up of a pool thread and none of the loop to write the response. One
        // that suspends goes on on Swift's pool, as any unstructured task does, and the loop
        // goes on serving its connections meanwhile (docs/ARCHITECTURE.md, "A request handler
        // starts on its connection's event loop"). Apple's systems have `Task.immediate` from
        // their 26 releases; before them the handler starts on the pool.
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            Task.immediate(operation: answer)
        } else {
            Task(operation: answer)
        }
    }

    func ended(connectionID: UInt64?, reason: String) {
        let peer: ChannelPeer? = state.withLock { state in
            guard let connectionID else { return nil }
            state.pending.removeValue(forKey: connectionID)
            state.open.removeValue(forKey: connectionID)
            state.requestsInFlight.removeValue(forKey: connectionID)
            return state.peers.removeValue(forKey: connectionID)?.peer
        }
        handlers.invalidated(peer, reason)
    }
}
