import Foundation
@_spi(Benchmarks) @testable import GroupMessaging
import GroupVaultTestKit
import XCTest
import SealedStorage

struct Ping: GroupMessage {
    static let messageType = "test.ping"
    var seq: Int
}

struct Pong: GroupMessage {
    static let messageType = "test.pong"
    var seq: Int
}

struct Filler: GroupMessage {
    static let messageType = "test.filler"
    var text: String
}

/// An error whose description carries a terminal control sequence.
struct TerminalTrick: Error, CustomStringConvertible {
    var description: String { "refused\u{1B}[2J" }
}

struct ModeChange: GroupMessage {
    enum Mode: String, Codable { case calm, busy }
    static let messageType = "test.mode"
    var mode: Mode
}

/// ``ModeChange`` as written by a sender that does not know its cases.
struct ModeChangeText: GroupMessage {
    static let messageType = "test.mode"
    var mode: String
}

/// Server and client in one process: hooks, handlers and timeouts.
final class ChannelInProcessTests: XCTestCase {
    private var sandbox: MessagingSandbox!

    override func setUpWithError() throws { sandbox = try MessagingSandbox() }
    override func tearDown() { sandbox.remove() }

    private func socket() throws -> GroupIPCName {
        try GroupIPCName(.socket, "t", in: MessagingSandbox.group, keyring: sandbox.keyring)
    }

    /// A server of ``socket()`` that answers each `Ping` with the next `Pong`.
    private func startIncrementingServer(handshakeTimeout: Duration = .seconds(10)) async throws -> GroupChannelServer {
        try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { message, _ in Pong(seq: (message as! Ping).seq + 1) }), handshakeTimeout: handshakeTimeout)
    }

    /// A client of ``socket()`` accepting `Pong`, started and connected.
    private func connectedClient() async throws -> GroupChannelClient {
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        _ = try await client.connected()
        return client
    }

    func testRequestGetsTheHandlersResponse() async throws {
        let server = try await startIncrementingServer()
        let client = try await connectedClient()
        let response = try await client.request(Ping(seq: 41), timeout: .seconds(60))
        XCTAssertEqual((response as? Pong)?.seq, 42)
        await client.close()
        await server.close()
    }

    func testMessagesFillingAFrameExactlyArriveByteExactBothWays() async throws {
        var random = SeededGenerator()
        // Printable ASCII without the two characters JSON escapes: the JSON is the text plus a fixed overhead.
        let alphabet = Array((0x20...0x7E).filter { $0 != 0x22 && $0 != 0x5C }.map { Character(Unicode.Scalar(UInt8($0))) })
        // Both ends read CBOR, so the body is CBOR: the text plus a fixed overhead once its
        // length needs a 2-byte head (as near the limit it does).
        let overhead = try MessageCBOREncoder.encode(Filler(text: String(repeating: "x", count: 256))).count - 256
        let length = ChannelEnvelope.capacity - Filler.messageType.utf8.count - overhead
        let text = String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
        let envelope = try ChannelEnvelope.encoding(Filler(text: text), kind: .request, id: 1, format: .cbor)
        XCTAssertEqual(envelope.encoded.count + ChannelSealer.overhead, ChannelFrame.maximumBodyLength, "the message must fill a frame")

        let received = Locked<String?>(nil)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Filler.self]),
            handlers: .init(request: { message, _ in
                let filler = message as! Filler
                received.withLock { $0 = filler.text }
                return Filler(text: String(filler.text.reversed()))
            }))
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Filler.self]))
        client.start()
        _ = try await client.connected()
        let response = try await client.request(Filler(text: text), timeout: .seconds(60))
        XCTAssertEqual(received.withLock { $0 }, text, random.describe)
        XCTAssertEqual((response as? Filler)?.text, String(text.reversed()), random.describe)
        await client.close()
        await server.close()
    }

    func testMessageOneByteLargerThanAFrameIsRefusedAndTheConnectionGoesOn() async throws {
        // Both ends read CBOR: the body is the text plus the overhead of a 2-byte length head.
        let overhead = try MessageCBOREncoder.encode(Filler(text: String(repeating: "x", count: 256))).count - 256
        let tooLong = String(repeating: "x", count: ChannelEnvelope.capacity - Filler.messageType.utf8.count - overhead + 1)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Filler.self]),
            handlers: .init(request: { message, _ in message }))
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Filler.self]))
        client.start()
        _ = try await client.connected()
        do {
            _ = try await client.request(Filler(text: tooLong), timeout: .seconds(60))
            XCTFail("a message one byte over the frame was sent")
        } catch {
            XCTAssertEqual(error.code, .invalidMessage)
        }
        let response = try await client.request(Filler(text: String(tooLong.dropLast())), timeout: .seconds(60))
        XCTAssertEqual((response as? Filler)?.text.utf8.count, tooLong.utf8.count - 1)
        await client.close()
        await server.close()
    }

    // A timer holds what it will touch until it fires. These two check that a connection's
    // timers are cancelled once they have nothing left to do: each would otherwise keep the
    // client's state alive long after close() (30 s for the handshake, an hour for the request).

    func testAClosedClientIsReleasedBeforeItsHandshakeTimeoutWouldFire() async throws {
        let server = try await GroupChannelServer.start(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]))
        var client: GroupChannelClient? = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        weak let core = client?.core
        client?.start()
        _ = try await client?.connected()

        await client?.close()
        client = nil
        try await Self.waitUntilReleased { core == nil }
        XCTAssertNil(core, "the closed client's state is still held")
        await server.close()
    }

    func testAClosedClientIsReleasedBeforeTheTimeoutOfItsAnsweredRequestWouldFire() async throws {
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { message, _ in Pong(seq: (message as! Ping).seq) }))
        var client: GroupChannelClient? = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        weak let core = client?.core
        client?.start()
        _ = try await client?.connected()
        _ = try await client?.request(Ping(seq: 1), timeout: .seconds(3_600))

        await client?.close()
        client = nil
        try await Self.waitUntilReleased { core == nil }
        XCTAssertNil(core, "the closed client's state is still held")
        await server.close()
    }

    /// Gives the event loops a moment to drop what a closed connection held, checking
    /// `released` as they do. The bound only ends a failing test; a passing one returns as soon
    /// as `released` holds.
    private static func waitUntilReleased(_ released: () -> Bool) async throws {
        for _ in 0..<1_000 where !released() {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func testRequestWithoutResponseTimesOut() async throws {
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { _, _ in
                try await Task.sleep(for: .seconds(3600))
                return Pong(seq: 0)
            }))
        let client = try await connectedClient()
        do {
            _ = try await client.request(Ping(seq: 1), timeout: .milliseconds(50))
            XCTFail("a request without response must time out")
        } catch {
            XCTAssertEqual(error.code, .timedOut)
        }
        await client.close()
        await server.close()
    }

    func testAcceptHookRefusalClosesTheConnectionBeforeTheHandshake() async throws {
        let (invalidations, continuation) = AsyncStream.makeStream(of: String.self)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(
                accept: { credentials in credentials.uid == getuid() ? "uid \(credentials.uid) is not welcome" : nil },
                connected: { _ in XCTFail("a refused client must never be connected") },
                invalidated: { peer, reason in
                    XCTAssertNil(peer)
                    continuation.yield(reason)
                }))
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        var iterator = invalidations.makeAsyncIterator()
        let reason = await iterator.next()
        XCTAssertTrue(reason?.contains("is not welcome") == true, reason ?? "")
        XCTAssertTrue(reason?.contains("pid \(getpid())") == true, "the refusal names the kernel's credentials: \(reason ?? "")")
        await client.close()
        await server.close()
    }

    func testBothEndsAreToldWhenTheOtherGoesAway() async throws {
        let (serverSide, serverContinuation) = AsyncStream.makeStream(of: String.self)
        let (clientSide, clientContinuation) = AsyncStream.makeStream(of: String.self)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(
                connected: { peer in serverContinuation.yield("connected #\(peer.id)") },
                invalidated: { peer, _ in serverContinuation.yield(peer.map { "#\($0.id)" } ?? "-") }))
        let client = try GroupChannelClient(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]),
            handlers: .init(invalidated: { clientContinuation.yield($0) }))
        client.start()
        let id = try await client.connected()
        var serverIterator = serverSide.makeAsyncIterator()
        // The client counts as connected on the server's ready; the server on the client's.
        let connected = await serverIterator.next()
        XCTAssertEqual(connected, "connected #\(id)")
        await server.close()
        var clientIterator = clientSide.makeAsyncIterator()
        let clientReason = await clientIterator.next()
        XCTAssertNotNil(clientReason)
        let serverPeer = await serverIterator.next()
        XCTAssertEqual(serverPeer, "#\(id)")
        await client.close()
    }

    func testRequestRightAfterStartWaitsForTheConnection() async throws {
        let server = try await startIncrementingServer()
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        let response = try await client.request(Ping(seq: 1), timeout: .seconds(60))
        XCTAssertEqual((response as? Pong)?.seq, 2)
        await client.close()
        await server.close()
    }

    func testRequestMadeBeforeTheServerListensIsAnsweredOnceItDoes() async throws {
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        let pending = Task { try await client.request(Ping(seq: 7), timeout: .seconds(60)) }
        let server = try await startIncrementingServer()
        let response = try await pending.value
        XCTAssertEqual((response as? Pong)?.seq, 8)
        await client.close()
        await server.close()
    }

    func testRequestWithNoServerTimesOutSayingWhatToCheck() async throws {
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        do {
            _ = try await client.request(Ping(seq: 1), timeout: .milliseconds(200))
            XCTFail("answered with no server")
        } catch {
            XCTAssertEqual(error.code, .timedOut)
            XCTAssertTrue(error.reason.hasPrefix("no connection to "), error.reason)
            XCTAssertTrue(error.reason.contains("was start() called"), error.reason)
        }
        await client.close()
    }

    func testRequestOnAClosedClientFailsAsClosed() async throws {
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        await client.close()
        do {
            _ = try await client.request(Ping(seq: 1), timeout: .seconds(60))
            XCTFail("a closed client sent a request")
        } catch {
            XCTAssertEqual(error.code, .closed)
        }
    }

    func testSendWithoutConnectionFailsInsteadOfQueueing() async throws {
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        do {
            try await client.send(Ping(seq: 1))
            XCTFail("nothing is queued for a later connection")
        } catch {
            XCTAssertEqual(error.code, .notConnected)
        }
    }

    func testOfTwoServersStartingTogetherOnAStaleSocketExactlyOneListens() async throws {
        let name = try socket()
        // A stale socket file: bound, then its server gone without removing it.
        let first = try await GroupChannelServer.start(name, keyring: sandbox.keyring, accepting: GroupMessageTypes())
        try await first.closeLeavingSocketFile()
        let keyring = sandbox.keyring
        let outcomes = await withTaskGroup(of: Result<GroupChannelServer, GroupMessagingError>.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    do {
                        return .success(try await GroupChannelServer.start(name, keyring: keyring, accepting: GroupMessageTypes()))
                    } catch let error as GroupMessagingError {
                        return .failure(error)
                    } catch {
                        return .failure(GroupMessagingError(.system, "unexpected \(error)"))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let servers = outcomes.compactMap { try? $0.get() }
        XCTAssertEqual(servers.count, 1, "one server listens")
        let refusals: [GroupMessagingError.Code] = outcomes.compactMap { outcome in
            if case .failure(let error) = outcome { error.code } else { nil }
        }
        XCTAssertEqual(refusals, [.addressInUse])
        for server in servers { await server.close() }
    }

    func testPeerThatNeverCompletesTheHandshakeIsClosed() async throws {
        let (invalidations, continuation) = AsyncStream.makeStream(of: String.self)
        let name = try socket()
        let server = try await GroupChannelServer.start(
            name, keyring: sandbox.keyring, accepting: GroupMessageTypes(),
            handlers: .init(invalidated: { _, reason in continuation.yield(reason) }),
            handshakeTimeout: .milliseconds(100))
        // A silent peer: connects, sends nothing.
        let descriptor = try connectedSocket(to: name)
        defer { close(descriptor) }
        var iterator = invalidations.makeAsyncIterator()
        let reason = await iterator.next()
        XCTAssertTrue(reason?.contains("no handshake within") == true, reason ?? "")
        await server.close()
    }

    func testClosingAServerLeavesASocketFileThatIsNoLongerItsOwn() async throws {
        let name = try socket()
        let first = try await GroupChannelServer.start(name, keyring: sandbox.keyring, accepting: GroupMessageTypes())
        // The first server's file is removed under it, and a second server binds the path anew.
        unlink(name.rawValue)
        let second = try await GroupChannelServer.start(name, keyring: sandbox.keyring, accepting: GroupMessageTypes())
        await first.close()
        XCTAssertEqual(SocketFile.occupant(of: name.rawValue), .liveServer, "the first server's close removed the second server's socket")
        await second.close()
    }

    func testFirstFrameLongerThanAHelloIsRefusedAtItsLengthPrefix() async throws {
        let (invalidations, continuation) = AsyncStream.makeStream(of: String.self)
        let name = try socket()
        let server = try await GroupChannelServer.start(
            name, keyring: sandbox.keyring, accepting: GroupMessageTypes(),
            handlers: .init(invalidated: { _, reason in continuation.yield(reason) }),
            handshakeTimeout: .seconds(30))
        // A peer without the key announces a 64 KiB first frame and never sends it: the server
        // must not wait for (and hold) 64 KiB from someone who has not even said hello.
        let descriptor = try connectedSocket(to: name)
        defer { close(descriptor) }
        let prefix: [UInt8] = [0, 1, 0, 0]
        XCTAssertEqual(write(descriptor, prefix, prefix.count), 4)
        var iterator = invalidations.makeAsyncIterator()
        let reason = await iterator.next()
        XCTAssertTrue(reason?.contains("announced 65536 bytes") == true, reason ?? "")
        await server.close()
    }

    func testProbeOfASocketWhoseBacklogIsFullSaysLiveWithoutBlocking() throws {
        let path = sandbox.home.path + "/full"
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertEqual(SocketFile.withAddress(of: path) { bind(listener, $0, $1) }, 0)
        XCTAssertEqual(listen(listener, 0), 0)
        // A server that accepts nothing (stopped, or busy): fill its backlog until connect would wait.
        var queued: [Int32] = []
        defer { queued.forEach { close($0) } }
        while true {
            let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            queued.append(descriptor)
            if SocketFile.withAddress(of: path, { connect(descriptor, $0, $1) }) != 0 {
                XCTAssertEqual(errno, EAGAIN)
                break
            }
        }
        let occupant = Locked<SocketFile.Occupant?>(nil)
        let probed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            occupant.withLock { $0 = SocketFile.occupant(of: path) }
            probed.signal()
        }
        // A guard against hanging, not a timing requirement; closing the listener then wakes a
        // probe stuck in connect(2), so the thread always ends.
        let outcome = probed.wait(timeout: .now() + 60)
        close(listener)
        XCTAssertEqual(outcome, .success, "the probe waited in connect(2) for a backlog slot")
        if outcome != .success { probed.wait() }
        XCTAssertEqual(occupant.withLock { $0 }, .liveServer)
    }

    /// A raw client socket connected to `name`'s server, speaking nothing yet.
    private func connectedSocket(to name: GroupIPCName) throws -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertEqual(SocketFile.withAddress(of: name.rawValue) { connect(descriptor, $0, $1) }, 0, "connect to \(name): errno \(errno)")
        return descriptor
    }

    func testFailureReasonFromTheServerReachesTheClientEscaped() async throws {
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { _, _ in throw TerminalTrick() }))
        let client = try await connectedClient()
        do {
            _ = try await client.request(Ping(seq: 1), timeout: .seconds(60))
            XCTFail("the handler threw")
        } catch {
            XCTAssertEqual(error.code, .protocolViolation)
            XCTAssertFalse(error.reason.unicodeScalars.contains { $0.value == 0x1B }, "a peer's text is printed escaped: \(error.reason.debugDescription)")
            XCTAssertTrue(error.reason.contains("refused\\u{1b}[2J"), error.reason)
        }
        await client.close()
        await server.close()
    }

    func testClientClosedDuringTheHandshakeNeverConnects() async throws {
        let name = try socket()
        _ = try sandbox.keyring.containerURL(for: MessagingSandbox.group)
        let groupKey = try sandbox.keyring.groupKey(for: MessagingSandbox.group)
        // A server played by hand, so that the test decides when the handshake completes.
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertEqual(SocketFile.withAddress(of: name.rawValue) { bind(listener, $0, $1) }, 0)
        XCTAssertEqual(listen(listener, 1), 0)
        let connections = Locked(0)
        let client = try GroupChannelClient(
            name, keyring: sandbox.keyring, accepting: GroupMessageTypes(),
            handlers: .init(connected: { _ in connections.withLock { $0 += 1 } }))
        client.start()
        let descriptor = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        // A guard against hanging, not a timing requirement.
        var guardTime = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
        let clientHello = try ChannelHello(parsing: Array(Self.read(descriptor, count: 4 + ChannelHello.encodedLength).dropFirst(4)), expecting: .client)

        // The client is closed while its handshake is under way (the waiter's `.closed` says
        // close() has begun), and only then does the server answer.
        let waiter = Task { () -> GroupMessagingError.Code? in
            do { _ = try await client.connected(); return nil } catch { return (error as? GroupMessagingError)?.code }
        }
        let closing = Task { await client.close() }
        let waited = await waiter.value
        XCTAssertEqual(waited, .closed)
        let serverHello = ChannelHello(role: .server, keyID: clientHello.keyID, nonce: [UInt8](repeating: 7, count: ChannelHello.nonceLength))
        var sealer = ChannelSealer(
            keys: ChannelKeys(groupKey: groupKey.key, group: MessagingSandbox.group.rawValue, clientHello: clientHello, serverHello: serverHello),
            role: .server)
        let answer = ChannelFrame.encode(serverHello.encoded) + ChannelFrame.encode(sealer.seal(ChannelEnvelope(kind: .ready, id: 1).encoded))
        _ = send(descriptor, answer, answer.count, Int32(MSG_NOSIGNAL))

        // A closed client ends the connection (it may first answer the hello it was sent), with
        // EOF, or with a reset when our answer reached it after it had closed.
        var buffer = [UInt8](repeating: 0, count: 4096)
        var received = recv(descriptor, &buffer, buffer.count, 0)
        while received > 0 { received = recv(descriptor, &buffer, buffer.count, 0) }
        let ended = received == 0 || errno == ECONNRESET
        XCTAssertTrue(ended, "the closed client kept its connection open (recv \(received), errno \(errno))")
        // Ending the connection from this side lets close() finish even if the client kept it.
        close(descriptor)
        close(listener)
        unlink(name.rawValue)
        await closing.value
        XCTAssertEqual(connections.withLock { $0 }, 0, "a closed client reported a connection")
    }

    /// Reads exactly `count` bytes from `descriptor` (fewer if the stream ends).
    private static func read(_ descriptor: Int32, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while bytes.count < count {
            let received = recv(descriptor, &buffer, count - bytes.count, 0)
            guard received > 0 else { break }
            bytes += buffer[0..<received]
        }
        return bytes
    }

    func testClientThatStopsReadingIsDisconnectedRatherThanBufferedWithoutBound() async throws {
        let (invalidations, invalidated) = AsyncStream.makeStream(of: String.self)
        let (connections, connected) = AsyncStream.makeStream(of: ChannelPeer.self)
        let name = try socket()
        let server = try await GroupChannelServer.start(
            name, keyring: sandbox.keyring, accepting: GroupMessageTypes(),
            handlers: .init(connected: { connected.yield($0) }, invalidated: { _, reason in invalidated.yield(reason) }))
        // A client played by hand: it completes the handshake, then never reads again.
        let groupKey = try sandbox.keyring.groupKey(for: MessagingSandbox.group)
        let descriptor = try connectedSocket(to: name)
        let clientHello = ChannelHello(role: .client, keyID: groupKey.id, nonce: [UInt8](repeating: 3, count: ChannelHello.nonceLength))
        let hello = ChannelFrame.encode(clientHello.encoded)
        XCTAssertEqual(write(descriptor, hello, hello.count), hello.count)
        let serverHello = try ChannelHello(parsing: Array(Self.read(descriptor, count: 4 + ChannelHello.encodedLength).dropFirst(4)), expecting: .server)
        var sealer = ChannelSealer(
            keys: ChannelKeys(groupKey: groupKey.key, group: MessagingSandbox.group.rawValue, clientHello: clientHello, serverHello: serverHello),
            role: .client)
        let ready = ChannelFrame.encode(sealer.seal(ChannelEnvelope(kind: .ready).encoded))
        XCTAssertEqual(write(descriptor, ready, ready.count), ready.count)
        var peers = connections.makeAsyncIterator()
        _ = await peers.next()

        // 2,000 near-limit messages (120 MB): far more than the server may hold for one client.
        let filler = Filler(text: String(repeating: "x", count: 60_000))
        for _ in 0..<2_000 {
            guard try await server.broadcast(filler) > 0 else { break }
        }
        close(descriptor)  // ends the connection if the server still holds it
        var reasons = invalidations.makeAsyncIterator()
        let reason = await reasons.next() ?? ""
        XCTAssertTrue(reason.contains("not reading"), reason)
        await server.close()
    }

    func testRequestWithATimeoutBeyondWhatTheClockHoldsGetsItsResponse() async throws {
        let server = try await startIncrementingServer()
        let client = try await connectedClient()
        let response = try await client.request(Ping(seq: 1), timeout: .seconds(Int64.max))
        XCTAssertEqual((response as? Pong)?.seq, 2)
        await client.close()
        await server.close()
    }

    func testServerWithAHandshakeTimeoutBeyondWhatTheClockHoldsServes() async throws {
        let server = try await startIncrementingServer(handshakeTimeout: .seconds(Int64.max))
        let client = try await connectedClient()
        let response = try await client.request(Ping(seq: 1), timeout: .seconds(60))
        XCTAssertEqual((response as? Pong)?.seq, 2)
        await client.close()
        await server.close()
    }

    func testClientWithTooManyRequestsAwaitingTheirResponseIsClosed() async throws {
        let (invalidations, invalidated) = AsyncStream.makeStream(of: String.self)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(
                request: { _, _ in
                    try await Task.sleep(for: .seconds(3600))  // a handler that does not answer
                    return Pong(seq: 0)
                },
                invalidated: { _, reason in invalidated.yield(reason) }))
        let client = try await connectedClient()
        // One request more than the server keeps in flight for a connection.
        let codes = await withTaskGroup(of: GroupMessagingError.Code?.self) { group in
            for seq in 0...ServerCore.maximumRequestsInFlight {
                group.addTask {
                    do {
                        _ = try await client.request(Ping(seq: seq), timeout: .seconds(30))
                        return nil
                    } catch {
                        return (error as? GroupMessagingError)?.code
                    }
                }
            }
            return await group.reduce(into: [GroupMessagingError.Code?]()) { $0.append($1) }
        }
        XCTAssertTrue(codes.contains(GroupMessagingError.Code.notConnected), "the server closed the connection: \(Set(codes.map { $0?.rawValue ?? "answered" }))")
        await client.close()
        var reasons = invalidations.makeAsyncIterator()
        let reason = await reasons.next() ?? ""
        XCTAssertTrue(reason.contains("requests awaiting their response"), reason)
        await server.close()
    }

    func testUndecodableMessageIsReportedWithoutItsContents() async throws {
        let (invalidations, invalidated) = AsyncStream.makeStream(of: String.self)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([ModeChange.self]),
            handlers: .init(invalidated: { _, reason in invalidated.yield(reason) }))
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes())
        client.start()
        _ = try await client.connected()
        // Same wire name; the value is none of the server's cases, and it is the kind of thing
        // that must not end up in a log.
        try await client.send(ModeChangeText(mode: "token-5ecret-value"))
        var reasons = invalidations.makeAsyncIterator()
        let reason = await reasons.next() ?? ""
        XCTAssertTrue(reason.contains("undecodableMessage"), reason)
        XCTAssertTrue(reason.contains("mode"), "the reason names where decoding failed: \(reason)")
        XCTAssertFalse(reason.contains("5ecret"), "the reason quotes the message: \(reason)")
        await client.close()
        await server.close()
    }

    func testWaitingForAConnectionEndsWhenTheTaskIsCancelled() async throws {
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes())
        client.start()  // no server: it keeps retrying
        let wait = Task { () -> GroupMessagingError.Code? in
            do {
                _ = try await client.connected()
                return nil
            } catch {
                return (error as? GroupMessagingError)?.code
            }
        }
        wait.cancel()
        let code = await wait.value
        XCTAssertEqual(code, .notConnected)
        await client.close()
    }

    func testServerRefusesToRemoveAFileThatIsNotASocket() async throws {
        let name = try socket()
        _ = try sandbox.keyring.containerURL(for: MessagingSandbox.group)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: name.rawValue))
        do {
            _ = try await GroupChannelServer.start(name, keyring: sandbox.keyring, accepting: GroupMessageTypes())
            XCTFail("a regular file at the socket path must be left alone")
        } catch {
            XCTAssertEqual(error.code, .addressInUse)
        }
        XCTAssertEqual(try String(contentsOfFile: name.rawValue, encoding: .utf8), "keep me")
    }
}
