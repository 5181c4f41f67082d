import GroupMessaging
import NIOCore
import NIOPosix
import SealedStorage
import XCTest

/// Where and when a server's request handler runs: it starts on its connection's event loop
/// (a quick answer costs no thread hop), and one that awaits holds up nothing else.
final class ChannelRequestHandlerTests: XCTestCase {
    private var sandbox: MessagingSandbox!

    override func setUpWithError() throws { sandbox = try MessagingSandbox() }
    override func tearDown() { sandbox.remove() }

    private func socket() throws -> GroupIPCName {
        try GroupIPCName(.socket, "r", in: MessagingSandbox.group, keyring: sandbox.keyring)
    }

    /// A client of ``socket()`` accepting `Pong`, started and connected.
    private func connectedClient() async throws -> GroupChannelClient {
        let client = try GroupChannelClient(try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        _ = try await client.connected()
        return client
    }

    /// A server whose handler answers each `Ping` with a `Pong` of the same number, except
    /// number 0, and a connected client whose request 0 the handler has started and holds.
    private struct HeldRequest {
        let server: GroupChannelServer
        let holder: GroupChannelClient
        let response: Task<any GroupMessage, any Error>
        let release: AsyncStream<Void>.Continuation
    }

    /// Starts ``HeldRequest``'s server and client, and returns once request 0's handler runs.
    private func holdRequestZero() async throws -> HeldRequest {
        let (started, startedContinuation) = AsyncStream.makeStream(of: Int.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { message, _ in
                let seq = (message as! Ping).seq
                if seq == 0 {
                    startedContinuation.yield(seq)
                    for await _ in release { break }
                }
                return Pong(seq: seq)
            }))
        let holder = try await connectedClient()
        let response = Task { try await holder.request(Ping(seq: 0), timeout: .seconds(60)) }
        var starts = started.makeAsyncIterator()
        _ = await starts.next()
        return HeldRequest(server: server, holder: holder, response: response, release: releaseContinuation)
    }

    /// Lets the held handler answer, checks that its client gets that answer, and closes both.
    private func release(_ held: HeldRequest) async throws {
        held.release.yield()
        let answer = try await held.response.value
        XCTAssertEqual((answer as? Pong)?.seq, 0)
        await held.holder.close()
        await held.server.close()
    }

    func testAHandlerStartsOnTheConnectionsEventLoopAndGoesOnOffItOnceItSuspends() async throws {
        let threads = Locked<(atStart: Bool, afterSuspending: Bool)?>(nil)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { message, _ in
                let atStart = MultiThreadedEventLoopGroup.currentEventLoop != nil
                // A sleep always suspends; `Task.yield()` may resume at once where it was.
                try await Task.sleep(for: .milliseconds(1))
                let afterSuspending = MultiThreadedEventLoopGroup.currentEventLoop != nil
                threads.withLock { $0 = (atStart, afterSuspending) }
                return Pong(seq: (message as! Ping).seq)
            }))
        let client = try await connectedClient()
        _ = try await client.request(Ping(seq: 1), timeout: .seconds(60))
        let seen = threads.withLock { $0 }
        XCTAssertEqual(seen?.atStart, true, "the handler did not start on an event loop")
        XCTAssertEqual(seen?.afterSuspending, false, "the handler stayed on the event loop after it suspended")
        await client.close()
        await server.close()
    }

    func testARequestIsAnsweredWhileAnEarlierOneOfTheSameConnectionAwaits() async throws {
        let held = try await holdRequestZero()
        let answer = try await held.holder.request(Ping(seq: 1), timeout: .seconds(60))
        XCTAssertEqual((answer as? Pong)?.seq, 1)
        try await release(held)
    }

    func testRequestsOfOtherConnectionsAreAnsweredWhileAHandlerAwaits() async throws {
        let held = try await holdRequestZero()
        // More clients than the server has event loops, so that some share the held connection's loop.
        var others: [GroupChannelClient] = []
        for _ in 0..<(2 * NIOSingletons.groupLoopCountSuggestion) { others.append(try await connectedClient()) }
        for (index, client) in others.enumerated() {
            let answer = try await client.request(Ping(seq: index + 1), timeout: .seconds(60))
            XCTAssertEqual((answer as? Pong)?.seq, index + 1)
        }
        for client in others { await client.close() }
        try await release(held)
    }

    func testARequestIsHandledAfterEveryMessageTheConnectionSentBeforeIt() async throws {
        let delivered = Locked(0)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(
                message: { _, _ in delivered.withLock { $0 += 1 } },
                request: { _, _ in Pong(seq: delivered.withLock { $0 }) }))
        let client = try await connectedClient()
        for seq in 0..<500 { try await client.send(Ping(seq: seq)) }
        let answer = try await client.request(Ping(seq: 500), timeout: .seconds(60))
        XCTAssertEqual((answer as? Pong)?.seq, 500, "the request's handler ran before every earlier message was delivered")
        await client.close()
        await server.close()
    }
}
