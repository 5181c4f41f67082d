import CoreMetrics
import Foundation
import Keyring
import Logging
import NIOCore
import NIOPosix
import SealedStorage

/// The connecting end of a group's sealed message channel.
///
/// After ``start()`` the client connects to the server's socket, retrying with exponential
/// backoff until a server is up, and reconnects the same way whenever the connection is lost
/// (server restarted, killed, or closed the connection). Each connection has fresh keys.
///
/// Delivery is at most once: a message is written on one connection only and never resent, so
/// it cannot be delivered twice; a message in flight when a connection dies may be lost. Use
/// ``request(_:timeout:)`` when the sender must know the server got it.
public final class GroupChannelClient: Sendable {
    /// What the client's owner is told. Handlers run on the client's event loop, in order.
    public struct Handlers: Sendable {
        /// A connection was established; the id is the one the server gave it.
        public var connected: @Sendable (UInt64) -> Void
        /// A message from the server (broadcast or sent to this client).
        public var message: @Sendable (any GroupMessage) -> Void
        /// The connection ended, with the reason; the client reconnects unless closed.
        public var invalidated: @Sendable (String) -> Void

        /// Handlers; omitted ones do nothing.
        public init(
            connected: @escaping @Sendable (UInt64) -> Void = { _ in },
            message: @escaping @Sendable (any GroupMessage) -> Void = { _ in },
            invalidated: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.connected = connected
            self.message = message
            self.invalidated = invalidated
        }
    }

    /// How long to wait between connection attempts: `initial`, doubling up to `maximum`.
    public struct Backoff: Sendable {
        /// The first wait.
        public var initial: Duration
        /// The longest wait.
        public var maximum: Duration

        /// A backoff from `initial` to `maximum`.
        public init(initial: Duration = .milliseconds(20), maximum: Duration = .seconds(1)) {
            self.initial = initial
            self.maximum = maximum
        }
    }

    /// The server's socket name.
    public let name: GroupIPCName
    /// Internal, not private: tests check that nothing keeps it alive after close().
    let core: ClientCore

    /// A client of the server at `name`, decoding only `types`; nothing happens until ``start()``.
    /// - Throws: ``GroupMessagingError/Code/invalidName`` when `name` is not a socket name,
    ///   ``GroupMessagingError/Code/notEntitled`` when the identity is not in the group.
    public convenience init(
        _ name: GroupIPCName, keyring: Keyring, accepting types: GroupMessageTypes,
        handlers: Handlers = Handlers(), backoff: Backoff = Backoff()
    ) throws(GroupMessagingError) {
        try self.init(name, keyring: keyring, accepting: types, handlers: handlers, backoff: backoff, keyOverride: nil)
    }

    /// As the public initializer; `keyOverride` replaces the keyring's group key (tests play a
    /// process without the key with it).
    package init(
        _ name: GroupIPCName, keyring: Keyring, accepting types: GroupMessageTypes,
        handlers: Handlers, backoff: Backoff, keyOverride: (id: UInt32, key: SymmetricKey)?
    ) throws(GroupMessagingError) {
        guard name.kind == .socket else {
            throw GroupMessagingError(.invalidName, "\(name) is a \(name.kind.rawValue) name; a channel needs GroupIPCName(.socket, ...)")
        }
        guard keyring.identity.isEntitled(toApplicationGroup: name.group) else {
            throw GroupIPCName.notEntitled(name.group, keyring: keyring)
        }
        self.name = name
        core = ClientCore(name: name, keyring: keyring, types: types, handlers: handlers, backoff: backoff, keyOverride: keyOverride)
    }

    /// Starts connecting (and reconnecting) in the background.
    public func start() {
        core.start()
    }

    /// Waits until a connection is established (or the client is closed), and returns its id.
    /// - Throws: ``GroupMessagingError/Code/closed`` if the client is closed first,
    ///   ``GroupMessagingError/Code/notConnected`` if the waiting task is cancelled.
    public func connected() async throws(GroupMessagingError) -> UInt64 {
        try await core.connected()
    }

    /// Sends a one-way message on the current connection.
    /// - Throws: ``GroupMessagingError/Code/notConnected`` when there is no connection now (the
    ///   message is not queued for a later one), ``GroupMessagingError/Code/invalidMessage``
    ///   when it does not encode or is larger than a frame.
    public func send(_ message: any GroupMessage) async throws(GroupMessagingError) {
        let envelope = try ChannelEnvelope.encoding(message, kind: .message, id: 0, format: core.format)
        try await core.write(envelope)
    }

    /// Sends `message` as a request and waits for the server's response, decoded with this
    /// client's allow-list.
    ///
    /// `timeout` covers the whole wait, connecting included: a request made right after
    /// ``start()``, or while the client reconnects, waits for the connection first (so the
    /// first request needs no ``connected()`` before it), and fails with `timedOut` if no
    /// server answers the connection and the request within `timeout`.
    /// - Throws: ``GroupMessagingError/Code/timedOut`` after `timeout`,
    ///   ``GroupMessagingError/Code/closed`` when the client is closed first,
    ///   ``GroupMessagingError/Code/notConnected`` when the connection is lost after the request
    ///   was sent, or the waiting task is cancelled,
    ///   ``GroupMessagingError/Code/protocolViolation`` when the server's handler failed (its
    ///   reason is given).
    public func request(_ message: any GroupMessage, timeout: Duration) async throws(GroupMessagingError) -> any GroupMessage {
        try await core.request(message, timeout: timeout)
    }

    /// Stops reconnecting and closes the connection; pending requests fail with ``GroupMessagingError/Code/closed``.
    public func close() async {
        await core.close()
    }
}

/// A request waiting for its response: who to resume, and the timer that fails it at its
/// timeout. The timer is cancelled when the request ends otherwise, so an answered request
/// leaves nothing scheduled (a timer holds the client until it fires, and a busy client would
/// otherwise keep one per request for the whole timeout).
private struct PendingRequest {
    var continuation: CheckedContinuation<ChannelEnvelope, any Error>
    var timeout: Scheduled<Void>?

    func end(with result: Result<ChannelEnvelope, any Error>) {
        timeout?.cancel()
        continuation.resume(with: result)
    }
}

/// The client's state, shared with its connection handlers.
final class ClientCore: ChannelConnectionDelegate, @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a `Locked`); the rest is immutable and Sendable.
    private struct State {
        var started = false
        var closed = false
        var channel: (any Channel)?
        var connectionID: UInt64?
        /// How bodies are written on the current connection: what the server's ready listed.
        var format = ChannelBodyFormat.json
        /// Connections established so far: tells the connect loop whether to reset its backoff.
        var establishedCount = 0
        var nextRequestID: UInt64 = 1
        var pending: [UInt64: PendingRequest] = [:]
        var connectWaiters: [UInt64: CheckedContinuation<UInt64, any Error>] = [:]
        var nextWaiterID: UInt64 = 0
        var loop: Task<Void, Never>?
    }

    let name: GroupIPCName
    let keyring: Keyring
    let types: GroupMessageTypes
    let handlers: GroupChannelClient.Handlers
    let backoff: GroupChannelClient.Backoff
    let keyOverride: (id: UInt32, key: SymmetricKey)?
    private let state = Locked(State())

    init(name: GroupIPCName, keyring: Keyring, types: GroupMessageTypes, handlers: GroupChannelClient.Handlers,
         backoff: GroupChannelClient.Backoff, keyOverride: (id: UInt32, key: SymmetricKey)?) {
        self.name = name
        self.keyring = keyring
        self.types = types
        self.handlers = handlers
        self.backoff = backoff
        self.keyOverride = keyOverride
    }

    func start() {
        state.withLock { state in
            guard !state.started, !state.closed else { return }
            state.started = true
            state.loop = Task { await self.connectLoop() }
        }
    }

    /// Connects, waits for the connection to end, and does it again, until closed.
    private func connectLoop() async {
        var delay = backoff.initial
        while !state.withLock({ $0.closed }) {
            let before = state.withLock { $0.establishedCount }
            do {
                let key = try keyOverride ?? {
                    let groupKey = try keyring.groupKey(for: name.group)
                    return (groupKey.id, groupKey.key)
                }()
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelOption(.writeBufferWaterMark, value: ChannelConnectionHandler.waterMark)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addChannelClientHandlers(
                                key: key.1, keyID: key.0, group: self.name.group.rawValue, delegate: self)
                        }
                    }
                    .connect(unixDomainSocketPath: name.rawValue).get()
                // Kept from now on, not only once established, so that close() also ends a
                // connection still in its handshake (this loop waits on it below).
                let closedMeanwhile = state.withLock { state in
                    if !state.closed { state.channel = channel }
                    return state.closed
                }
                if closedMeanwhile { channel.close(promise: nil) }
                try? await channel.closeFuture.get()
                state.withLock { state in
                    state.channel = nil
                    state.connectionID = nil
                }
            } catch {
                // Not listening yet (ENOENT, ECONNREFUSED) or the key is unavailable: retry.
            }
            if state.withLock({ $0.establishedCount }) > before { delay = backoff.initial }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, backoff.maximum)
        }
    }

    func connected() async throws(GroupMessagingError) -> UInt64 {
        let waiter = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    state.withLock { state in
                        if state.closed {
                            continuation.resume(throwing: GroupMessagingError(.closed, "the client is closed"))
                        } else if let id = state.connectionID {
                            continuation.resume(returning: id)
                        } else if Task.isCancelled {
                            continuation.resume(throwing: GroupMessagingError(.notConnected, "stopped waiting for a connection: the task was cancelled"))
                        } else {
                            state.connectWaiters[waiter] = continuation
                        }
                    }
                }
            } onCancel: {
                let continuation = state.withLock { $0.connectWaiters.removeValue(forKey: waiter) }
                continuation?.resume(throwing: GroupMessagingError(.notConnected, "stopped waiting for a connection: the task was cancelled"))
            }
        } catch {
            throw error as! GroupMessagingError
        }
    }

    /// The format bodies are written in on the current connection (JSON without one, so that
    /// a message is refused by the same rules whatever the connection).
    var format: ChannelBodyFormat { state.withLock { $0.format } }

    func write(_ envelope: ChannelEnvelope) async throws(GroupMessagingError) {
        guard let channel = state.withLock({ $0.connectionID == nil ? nil : $0.channel }) else {
            throw GroupMessagingError(.notConnected, "not connected to \(name); the client is (re)connecting")
        }
        do {
            try await channel.writeAndFlush(envelope).get()
        } catch {
            throw GroupMessagingError(.notConnected, "the connection to \(name) was lost before the message was written", underlyingError: error)
        }
    }

    func request(_ message: any GroupMessage, timeout: Duration) async throws(GroupMessagingError) -> any GroupMessage {
        let deadline = ContinuousClock.now + timeout
        if state.withLock({ $0.connectionID == nil }) {
            try await awaitConnection(until: deadline, timeout: timeout)
        }
        return try await requestOnCurrentConnection(message, timeout: max(.zero, deadline - .now), total: timeout)
    }

    /// Waits for a connection until `deadline`; `timedOut` (saying what to check) after it.
    private func awaitConnection(until deadline: ContinuousClock.Instant, timeout: Duration) async throws(GroupMessagingError) {
        do {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { _ = try await self.connected(); return true }
                // Clamped: a timeout "beyond what the clock holds" must not trap in the sleep.
                let wakeUp = min(deadline, .now + .seconds(365 * 86_400))
                group.addTask { try await Task.sleep(until: wakeUp, clock: .continuous); return false }
                let connectedFirst = try await group.next() ?? false
                // The loser is cancelled; its error (a cancelled wait or sleep) is discarded.
                group.cancelAll()
                guard connectedFirst else {
                    throw GroupMessagingError(.timedOut, "no connection to \(self.name) within \(timeout): is a server listening there, and was start() called on this client?")
                }
            }
        } catch let error as GroupMessagingError {
            throw error
        } catch {
            throw GroupMessagingError(.notConnected, "stopped waiting for a connection to \(name): the task was cancelled", underlyingError: error)
        }
    }

    private func requestOnCurrentConnection(_ message: any GroupMessage, timeout: Duration, total: Duration) async throws(GroupMessagingError) -> any GroupMessage {
        let id = state.withLock { state in
            defer { state.nextRequestID += 1 }
            return state.nextRequestID
        }
        let envelope = try ChannelEnvelope.encoding(message, kind: .request, id: id, format: format)
        let reply: ChannelEnvelope
        do {
            reply = try await withCheckedThrowingContinuation { continuation in
                let channel: (any Channel)? = state.withLock { state in
                    guard state.connectionID != nil, let channel = state.channel else { return nil }
                    state.pending[id] = PendingRequest(continuation: continuation)
                    return channel
                }
                guard let channel else {
                    continuation.resume(throwing: GroupMessagingError(.notConnected, "not connected to \(name); the client is (re)connecting"))
                    return
                }
                // The write, its failure callback and the timer, handed to the loop in one
                // task: each of them called from this thread would be a task of its own.
                let loop = channel.eventLoop
                loop.execute {
                    let written = loop.makePromise(of: Void.self)
                    written.futureResult.whenFailure { error in
                        self.resume(id, with: .failure(GroupMessagingError(.notConnected, "the connection to \(self.name) was lost before the request was written", underlyingError: error)))
                    }
                    channel.writeAndFlush(envelope, promise: written)
                    let timer = loop.scheduleTask(in: TimeAmount(timeout)) {
                        self.resume(id, with: .failure(GroupMessagingError(.timedOut, "no response from \(self.name) within \(total)")))
                    }
                    // The request may have ended already (the write failed, the connection was
                    // lost or the client closed): then the timer has nothing left to do.
                    let stillPending = self.state.withLock { state in
                        guard state.pending[id] != nil else { return false }
                        state.pending[id]?.timeout = timer
                        return true
                    }
                    if !stillPending { timer.cancel() }
                }
            }
        } catch {
            throw error as! GroupMessagingError
        }
        if reply.kind == .failure {
            // The server's words: shown escaped, never as terminal control sequences.
            throw GroupMessagingError(.protocolViolation, "the server's handler failed: " + UntrustedText.printable(String(decoding: reply.body, as: UTF8.self), limit: 1000))
        }
        do {
            return try types.decode(name: reply.type, body: reply.bodyData, format: reply.bodyFormat)
        } catch {
            throw GroupMessagingError(.protocolViolation, "the response is not an allowed message: \(error)", underlyingError: error)
        }
    }

    private func resume(_ id: UInt64, with result: Result<ChannelEnvelope, GroupMessagingError>) {
        let request = state.withLock { $0.pending.removeValue(forKey: id) }
        request?.end(with: result.mapError { $0 as any Error })
    }

    func close() async {
        let (channel, loop, pending, waiters) = state.withLock { state in
            state.closed = true
            defer {
                state.pending = [:]
                state.connectWaiters = [:]
            }
            return (state.channel, state.loop, state.pending, state.connectWaiters)
        }
        let error = GroupMessagingError(.closed, "the client was closed")
        pending.values.forEach { $0.end(with: .failure(error)) }
        waiters.values.forEach { $0.resume(throwing: error) }
        try? await channel?.close().get()
        loop?.cancel()
        await loop?.value
    }

    // MARK: ChannelConnectionDelegate

    func groupKey(id: UInt32) -> SymmetricKey? { nil }  // clients send the key id; servers look keys up

    func established(connectionID: UInt64, channel: any Channel, peerReads: ChannelReadableFormats) {
        let waiters: [UInt64: CheckedContinuation<UInt64, any Error>]? = state.withLock { state in
            // A handshake that completes after close() began: the client stays closed.
            guard !state.closed else { return nil }
            state.channel = channel
            state.connectionID = connectionID
            state.format = peerReads.preferred
            state.establishedCount += 1
            defer { state.connectWaiters = [:] }
            return state.connectWaiters
        }
        guard let waiters else {
            channel.close(promise: nil)
            return
        }
        waiters.values.forEach { $0.resume(returning: connectionID) }
        handlers.connected(connectionID)
    }

    func received(_ envelope: ChannelEnvelope, connectionID: UInt64, channel: any Channel) throws(ChannelProtocolError) {
        switch envelope.kind {
        case .message:
            handlers.message(try types.decode(name: envelope.type, body: envelope.bodyData, format: envelope.bodyFormat))
        case .response, .failure:
            resume(envelope.id, with: .success(envelope))
        default:
            throw ChannelProtocolError(.unexpectedFrame, "a server sent a \(envelope.kind) envelope, which only clients send")
        }
    }

    func ended(connectionID: UInt64?, reason: String) {
        let (pending, closed) = state.withLock { state in
            state.connectionID = nil
            state.format = .json
            defer { state.pending = [:] }
            return (state.pending, state.closed)
        }
        // An established connection lost while the client is open: the client reconnects. A
        // daemon's operator wants to see that; a failed attempt to connect is not a reconnect.
        if connectionID != nil, !closed {
            keyring.logger.debug("channel connection lost; reconnecting", metadata: [
                "group": "\(name.group)", "socket": "\(name.rawValue)", "reason": "\(reason)",
            ])
            Counter(label: ChannelMetricLabel.reconnects, factory: keyring.currentMetricsFactory).increment()
        }
        let error = GroupMessagingError(.notConnected, "the connection to \(name) ended: \(reason)")
        pending.values.forEach { $0.end(with: .failure(error)) }
        handlers.invalidated(reason)
    }
}
