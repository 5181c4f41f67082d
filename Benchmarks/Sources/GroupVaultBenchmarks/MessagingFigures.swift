import BenchModel
import Floors
import Foundation
@_spi(Benchmarks) import GroupMessaging
import Keyring
import NIOCore
import NIOPosix
import Synchronization

/// The request of the channel figure: `padding` sets its size.
struct BenchPing: GroupMessage {
    static let messageType = "bench.ping"
    var sequence: Int
    var padding: String
}

/// The response: the same padding back, so a round trip carries the size both ways, as an echo does.
struct BenchPong: GroupMessage {
    static let messageType = "bench.pong"
    var sequence: Int
    var padding: String
}

/// A notification iterator the rounds share; only one round runs at a time.
private final class WakeUps: @unchecked Sendable {
    var pongs: AsyncStream<GroupNotification>.Iterator
    init(_ pongs: AsyncStream<GroupNotification>) { self.pongs = pongs.makeAsyncIterator() }
}

/// The calls of the benchmark's `handler-pong` handler, each timed in the handler itself, on
/// the notification reader thread: the moment the observer is woken, before the measuring
/// thread is (which the C floor has no counterpart for, so it stays out of the figure).
private final class HandlerWakeUps: Sendable {
    private let calls = Mutex<[ContinuousClock.Instant]>([])
    private let called = DispatchSemaphore(value: 0)

    /// The handler.
    func woken(_: GroupNotification) {
        calls.withLock { $0.append(.now) }
        called.signal()
    }

    /// Waits for the next call and returns when it was made.
    func next() throws -> ContinuousClock.Instant {
        guard called.wait(timeout: .now() + 30) == .success else {
            throw BenchmarkFailure("the notification handler was not called within 30 s")
        }
        return calls.withLock { $0.removeFirst() }
    }
}

/// GroupMessaging's figures: notification post-to-wake across processes, and the sealed channel's
/// round trip and one-way rate beside an unsealed SwiftNIO echo and a plain C echo over the same
/// kind of socket, interleaved.
final class MessagingFigures {
    private let root: URL
    private let home: URL
    private let keyring: Keyring
    private let executables: Executables
    private let options: Options

    /// Works under `root`, which must be short: the channel's socket path, inside the keyring
    /// home's group container, must fit `sun_path` (108 bytes).
    init(root: URL, executables: Executables, options: Options) throws {
        self.root = root
        home = root.appendingPathComponent("home", isDirectory: true)
        keyring = BenchHome.keyring(root: home)
        self.executables = executables
        self.options = options
    }

    func measure() throws -> Outcome {
        var outcome = Outcome()
        outcome.append(try notificationFigure())
        outcome.append(try channelFigures())
        return outcome
    }

    // MARK: Notifications

    private func notificationFigure() throws -> Outcome {
        let center = try GroupNotificationCenter(keyring: keyring, group: BenchHome.group)
        let ready = try center.notifications(named: "ready")
        let wakeUps = WakeUps(try center.notifications(named: "pong"))
        let handlerWakeUps = HandlerWakeUps()
        let handlerPongs = try center.observe("handler-pong", handler: handlerWakeUps.woken)
        defer { handlerPongs.cancel() }
        let waitPongs = try center.waiter(named: "wait-pong")
        defer { waitPongs.cancel() }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executables.path("NotificationEcho"))
        child.arguments = [home.path]
        // The child exits when this pipe closes, so it never outlives the benchmark.
        let lifeline = Pipe()
        child.standardInput = lifeline
        try child.run()
        defer {
            try? lifeline.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        try blocking {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    var iterator = ready.makeAsyncIterator()
                    _ = await iterator.next()
                }
                tasks.addTask {
                    try await Task.sleep(for: .seconds(30))
                    throw BenchmarkFailure("NotificationEcho did not post \"ready\" within 30 s")
                }
                try await tasks.next()
                tasks.cancelAll()
            }
        }

        // The peer and the floor, each a ping-pong between two C processes: a D-Bus signal through
        // a private dbus-daemon, and the inotify mechanism GroupNotificationCenter uses.
        let busDirectory = root.appendingPathComponent("dbus", isDirectory: true)
        let inotifyDirectory = root.appendingPathComponent("inotify", isDirectory: true)
        for directory in [busDirectory, inotifyDirectory] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let bus = try DBusSessionBus(directory: busDirectory)
        defer { bus.stop() }
        let peers = executables.path("MessagingPeers")
        let dbusEcho = try TimedChild([peers, "dbus-echo", bus.address])
        defer { dbusEcho.stop() }
        let dbusPing = try TimedChild([peers, "dbus-ping", bus.address])
        defer { dbusPing.stop() }
        let inotifyEcho = try TimedChild([peers, "inotify-echo", inotifyDirectory.path])
        defer { inotifyEcho.stop() }
        let inotifyPing = try TimedChild([peers, "inotify-ping", inotifyDirectory.path])
        defer { inotifyPing.stop() }

        let label = "post-to-wake, across processes, `notifications(named:)` async sequence (half a ping-pong)"
        let handlerLabel = "post-to-wake, across processes, `observe(_:handler:)` handler (half a ping-pong)"
        let waiterLabel = "post-to-wake, across processes, `waiter(named:)` waited on by the posting thread (half a ping-pong)"
        let floorLabel = "C inotify: open and close a file in a watched directory, across processes (half a ping-pong)"
        let dbusLabel = "D-Bus signal through a private dbus-daemon, libdbus-1, across processes (half a ping-pong)"
        let results = try interleave([
            Contender(label: label, role: .groupVault) {
                // A ping-pong never coalesces: each side waits for the other's post, so each half
                // is one post and one wake-up in another process.
                let roundTrip = try blocking {
                    try await timed {
                        try center.post("ping")
                        guard await wakeUps.pongs.next() != nil else {
                            throw BenchmarkFailure("the notification stream ended")
                        }
                    }
                }
                return Measurement(microseconds: roundTrip / 2)
            },
            Contender(label: handlerLabel, role: .groupVault) {
                // The child answers from its handler, on its reader thread; this process's
                // handler takes the time it is called.
                let start = ContinuousClock.now
                try center.post("handler-ping")
                return Measurement(microseconds: (try handlerWakeUps.next() - start).microseconds / 2)
            },
            Contender(label: waiterLabel, role: .groupVault) {
                // The child answers from a thread blocked in its waiter; this thread posts and
                // then blocks in its own, as each C process blocks in its `read`.
                let start = ContinuousClock.now
                try center.post("wait-ping")
                guard try waitPongs.wait(timeout: .seconds(30)) != nil else {
                    throw BenchmarkFailure("NotificationEcho did not answer wait-ping within 30 s")
                }
                return Measurement(microseconds: (ContinuousClock.now - start).microseconds / 2)
            },
            Contender(label: floorLabel, role: .floor) { try inotifyPing.measure("ping") },
            Contender(label: dbusLabel, role: .peer(lessWork: nil)) { try dbusPing.measure("ping") },
        ], options.schedule)
        var outcome = Outcome()
        outcome.sections.append(Section(
            title: "Notification post-to-wake, across processes",
            notes: [
                "This process posts `ping`; a `NotificationEcho` child process of the same group, observing `ping`, posts `pong` "
                    + "when woken; this process waits for `pong`. Half of that round trip is one `post` to the wake-up of an observer "
                    + "in another process. The floor is the same mechanism in C: a `MessagingPeers` process opens and closes "
                    + "`ping` in a directory another one watches with inotify (`IN_CLOSE_WRITE`, a blocking read), which answers with "
                    + "`pong` the same way. The peer is a D-Bus `Ping` signal answered by a `Pong` signal, both processes on a "
                    + "private session bus (`dbus-daemon` with a configuration of its own, started by the run). The C figures are "
                    + "timed inside their pinging process.",
                "The three GroupVault rows are the three ways to observe, in the same rounds: the async sequence, whose wake-up "
                    + "resumes the observing task on a thread of Swift's pool after the notification reader thread has read the "
                    + "post; the handler, called on the reader thread itself (the child posts its answer from its handler; "
                    + "this process's handler takes the time it is called); and the waiter, a thread blocked in `wait()` "
                    + "that the kernel wakes itself, as the C floor's (the child answers from such a thread; this process "
                    + "posts and waits on one thread, as the floor's pinging process does). The GroupVault ÷ peer column is "
                    + "the async sequence's; the target checks below give each row's.",
            ],
            table: timeTable(results)))
        let limit = 5_000.0
        for (api, rowLabel) in [("`notifications(named:)`", label), ("`observe(_:handler:)`", handlerLabel),
                                ("`waiter(named:)`", waiterLabel)] {
            let samples = result(rowLabel, in: results).times
            outcome.checks.append(TargetCheck(
                figure: "notification post-to-wake p99, across processes, \(api)",
                measured: "p99 \(microseconds(samples.p99)) µs (median \(microseconds(samples.median)) µs, n \(samples.count))",
                target: "p99 < 5 ms",
                verdict: samples.p99 < limit ? .met : .missed(factor: samples.p99 / limit)))
            outcome.checks.append(.ratio(
                "notification post-to-wake against the C inotify floor, \(api)", of: rowLabel, over: floorLabel,
                named: "C inotify ping-pong", in: results, limit: 2, target: "≤ 2× C inotify floor"))
            outcome.checks.append(.ratio(
                "notification post-to-wake against D-Bus, \(api)", of: rowLabel, over: dbusLabel,
                named: "D-Bus signal", in: results, limit: 1, target: "never behind a D-Bus signal (≤ 1×)"))
        }
        return outcome
    }

    // MARK: Channel

    private func channelFigures() throws -> Outcome {
        let socket = try GroupIPCName(.socket, "bench", in: BenchHome.group, keyring: keyring)
        let keyring = self.keyring
        let server = try blocking {
            try await GroupChannelServer.start(
                socket, keyring: keyring, accepting: GroupMessageTypes([BenchPing.self]),
                handlers: .init(request: { message, _ in
                    guard let ping = message as? BenchPing else { throw BenchmarkFailure("unexpected \(type(of: message))") }
                    return BenchPong(sequence: ping.sequence, padding: ping.padding)
                }))
        }
        defer { try? blocking { await server.close() } }
        let client = try GroupChannelClient(socket, keyring: keyring, accepting: GroupMessageTypes([BenchPong.self]))
        client.start()
        defer { try? blocking { await client.close() } }
        _ = try blocking { try await client.connected() }

        let echo = try NIOEcho(path: root.appendingPathComponent("nio.sock").path, sealed: false)
        defer { echo.close() }
        let sealedEcho = try NIOEcho(path: root.appendingPathComponent("nio-sealed.sock").path, sealed: true)
        defer { sealedEcho.close() }
        guard floor_initialize() == 0 else { throw BenchmarkFailure("libsodium failed to initialize") }
        let cPath = root.appendingPathComponent("c.sock").path
        guard let cEcho = floor_echo_start(cPath) else { throw BenchmarkFailure("the C echo did not start: errno \(errno)") }
        defer { floor_echo_stop(cEcho) }
        let cSealedPath = root.appendingPathComponent("c-sealed.sock").path
        guard let cSealedEcho = floor_echo_start_sealed(cSealedPath) else { throw BenchmarkFailure("the sealed C echo did not start: errno \(errno)") }
        defer { floor_echo_stop(cSealedEcho) }
        // The peer: a D-Bus method call answered by another process through a private dbus-daemon.
        let busDirectory = root.appendingPathComponent("dbus-call", isDirectory: true)
        try FileManager.default.createDirectory(at: busDirectory, withIntermediateDirectories: true)
        let bus = try DBusSessionBus(directory: busDirectory)
        defer { bus.stop() }
        let dbusServer = try TimedChild([executables.path("MessagingPeers"), "dbus-serve", bus.address])
        defer { dbusServer.stop() }
        let dbusCaller = try TimedChild([executables.path("MessagingPeers"), "dbus-call", bus.address])
        defer { dbusCaller.stop() }

        var outcome = Outcome()
        // 16 bytes of padding: a small message. 64,000: near the 64 KiB frame limit, so each frame
        // spans many reads.
        for padding in [16, 64_000] {
            let ping = BenchPing(sequence: 1, padding: String(repeating: "p", count: padding))
            // The echoes carry what a sealed frame body carries besides the seal: the envelope
            // header (10 bytes), the type name and the message's body, in CBOR between two ends
            // of this version.
            let frameBody = try MessageCBOREncoder.encode(ping).count + 10 + BenchPing.messageType.utf8.count
            let sealed = "sealed channel request/response, \(count(padding)) B padding"
            let unsealed = "SwiftNIO echo, unsealed, \(count(frameBody)) B frames"
            let sealedNIO = "SwiftNIO echo, each frame sealed and opened whole, \(count(frameBody)) B plaintext"
            let cSealed = "C echo over AF_UNIX SOCK_STREAM, each frame sealed and opened whole, \(count(frameBody)) B plaintext"
            let plain = "C echo over AF_UNIX SOCK_STREAM, unsealed, \(count(frameBody)) B frames"
            let dbus = "D-Bus method call through a private dbus-daemon, libdbus-1, across processes, \(count(frameBody)) B each way"
            let results = try interleave([
                Contender(label: sealed, role: .groupVault) {
                    Measurement(microseconds: try blocking {
                        try await timed {
                            let answer = try await client.request(ping, timeout: .seconds(30))
                            guard (answer as? BenchPong)?.padding.utf8.count == padding else {
                                throw BenchmarkFailure("the channel answered \(type(of: answer)) of the wrong size")
                            }
                        }
                    })
                },
                Contender(label: unsealed, role: .reference(lessWork: "no handshake keys, no sealing, no Codable")) {
                    Measurement(microseconds: try blocking { try await timed { try await echo.roundTrip(frameBody) } })
                },
                Contender(label: sealedNIO, role: .reference(lessWork: "no handshake keys, no Codable")) {
                    Measurement(microseconds: try blocking { try await timed { try await sealedEcho.roundTrip(frameBody) } })
                },
                Contender(label: cSealed, role: .floor) {
                    try .timing {
                        guard floor_echo_sealed_round_trip(cSealedEcho, frameBody) == 0 else { throw BenchmarkFailure("sealed C echo failed: errno \(errno)") }
                    }
                },
                Contender(label: plain, role: .reference(lessWork: "no sealing, no Codable")) {
                    try .timing {
                        guard floor_echo_round_trip(cEcho, frameBody) == 0 else { throw BenchmarkFailure("C echo failed: errno \(errno)") }
                    }
                },
                Contender(label: dbus, role: .peer(lessWork: "no sealing")) { try dbusCaller.measure("\(frameBody)") },
            ], options.schedule)
            outcome.sections.append(Section(
                title: "Channel round trip, \(count(padding)) B padding",
                notes: [
                    "A `GroupChannelClient` sends a `BenchPing` request to a `GroupChannelServer` in this process over the "
                        + "group container's Unix socket and waits for the `BenchPong` response carrying the same padding back: "
                        + "each way, one sealed frame (XChaCha20-Poly1305, counter in the additional data) and CBOR decoding "
                        + "into an allowed type (both ends list CBOR in their readies). The unsealed SwiftNIO echo writes one length-prefixed frame of the same size "
                        + "over a Unix socket to an echo handler on the same event loops, which writes each read straight back, "
                        + "without sealing or Codable: the first channel issue's denominator, now a reference. The sealed SwiftNIO echo is that echo plus the "
                        + "sealing the issue requires and nothing else: the client seals the frame as the channel does, the server "
                        + "opens it once all of it has arrived (a tag is checked over the whole frame) and seals it again for the "
                        + "way back, the client opens the answer. The floor is the sealed round trip in C, a client and a server "
                        + "thread on blocking sockets, and issue 19's denominator; the unsealed C echo beside it does less.",
                    "The peer is what a Linux daemon and its clients use for request and response instead: a D-Bus method call "
                        + "`Echo(ay)` carrying the same number of bytes as the channel's frame body, from one `MessagingPeers` process "
                        + "to another that owns a name on a private session bus (`dbus-daemon` with a configuration of its own, "
                        + "started by the run), answered with the same bytes; libdbus-1, each call built, sent and its reply read "
                        + "with `dbus_connection_send_with_reply_and_block`, timed inside the calling process. The bus carries "
                        + "plaintext, and every message passes through the daemon, a third process.",
                ],
                table: timeTable(results)))
            // The C sealed round trip is issue 19's denominator; the unsealed SwiftNIO echo, the
            // first channel issue's, stays in the measured text as context, a reference.
            let unsealedMedian = result(unsealed, in: results).median
            let sealedMedian = result(sealed, in: results).median
            outcome.checks.append(.ratio(
                "channel round trip against the C sealed round trip, \(count(padding)) B padding",
                ratio: sealedMedian / result(cSealed, in: results).median, limit: 2,
                measured: ratioText(results, sealed, cSealed, floorName: "C sealed round trip")
                    + "; p99 \(microseconds(result(sealed, in: results).times.p99)) µs"
                    + "; \(times(sealedMedian / unsealedMedian)) the unsealed SwiftNIO echo, a reference (the sealed SwiftNIO echo is "
                    + "\(times(result(sealedNIO, in: results).median / unsealedMedian)) it)",
                target: "≤ 2× C sealed round trip"))
        }
        outcome.append(try rateFigure(client: client))
        return outcome
    }

    /// One-way messages per second: a burst of small sends, then a request, which the server
    /// answers only after every earlier message of the connection.
    private func rateFigure(client: GroupChannelClient) throws -> Outcome {
        let messages = options.quick ? 2_000 : 20_000
        let ping = BenchPing(sequence: 0, padding: String(repeating: "p", count: 16))
        var rates: [Double] = []
        let passes = options.quick ? 2 : 5
        for _ in 0..<passes {
            let seconds = try blocking {
                try await timed {
                    for _ in 0..<messages { try await client.send(ping) }
                    _ = try await client.request(ping, timeout: .seconds(120))
                }
            } / 1e6
            rates.append(Double(messages) / seconds)
        }
        let samples = Samples(rates)
        var table = Table(header: ["Operation", "Kind", "passes", "Median messages/s", "Slowest pass messages/s"])
        table.rows.append([
            "`GroupChannelClient.send`, 16 B padding, \(count(messages)) per pass, then one request", "GroupVault",
            "\(samples.count)", String(format: "%.0f", samples.median), String(format: "%.0f", samples.sorted[0]),
        ])
        var outcome = Outcome()
        outcome.sections.append(Section(
            title: "Channel one-way messages per second",
            notes: [
                "Each pass sends \(count(messages)) small one-way messages without waiting, then one request, answered "
                    + "after all of them (a connection delivers in order): messages over the pass's wall time. No target in the issue.",
            ],
            table: table))
        return outcome
    }
}

/// Counts echoed bytes until a round trip's worth has come back. Touched only on its channel's
/// event loop, which NIO's handler rules guarantee and the compiler cannot see.
private final class EchoClientHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private var expected = 0
    private var received = 0
    private var promise: EventLoopPromise<Void>?

    func expect(_ count: Int, _ promise: EventLoopPromise<Void>) {
        expected = count
        received = 0
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        if received >= expected {
            promise?.succeed(())
            promise = nil
        }
    }
}

/// Writes back whatever it reads.
private final class EchoServerHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

/// The keys of a sealed echo, one per direction, shared by its two ends in this process.
private struct EchoKeys: Sendable {
    let clientToServer: [UInt8]
    let serverToClient: [UInt8]

    static func random() -> EchoKeys {
        var clientToServer = [UInt8](repeating: 0, count: Int(FLOOR_KEY_BYTES))
        var serverToClient = clientToServer
        floor_random_key(&clientToServer)
        floor_random_key(&serverToClient)
        return EchoKeys(clientToServer: clientToServer, serverToClient: serverToClient)
    }
}

/// Collects one length-prefixed frame at a time from NIO's reads: the sealed echo, like the
/// channel, can open a frame only once all of it has arrived.
private struct FrameAssembly {
    private var pending: ByteBuffer?

    /// The body of the frame `buffer` completes, if it does.
    mutating func append(_ buffer: ByteBuffer) -> ByteBuffer? {
        if pending == nil { pending = buffer } else { pending!.writeImmutableBuffer(buffer) }
        guard let length = pending!.getInteger(at: pending!.readerIndex, as: UInt32.self),
              pending!.readableBytes >= 4 + Int(length) else { return nil }
        let body = pending!.getSlice(at: pending!.readerIndex + 4, length: Int(length))
        pending = nil
        return body
    }
}

/// Seals `plaintext` as the channel seals a frame body, with the length prefix, into a buffer
/// from `allocator`.
private func sealedFrame(_ plaintext: [UInt8], counter: UInt64, direction: UInt8, key: [UInt8], allocator: ByteBufferAllocator) -> ByteBuffer {
    let length = plaintext.count + Int(FLOOR_CHANNEL_OVERHEAD)
    var buffer = allocator.buffer(capacity: 4 + length)
    buffer.writeInteger(UInt32(length))
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { body in
        floor_channel_seal(body.baseAddress!.assumingMemoryBound(to: UInt8.self), plaintext, plaintext.count, counter, CChar(bitPattern: direction), key)
        return length
    }
    return buffer
}

/// Opens a body `sealedFrame` made, or `nil` if it does not authenticate as frame `counter`.
private func openedBody(_ body: ByteBuffer, counter: UInt64, direction: UInt8, key: [UInt8]) -> [UInt8]? {
    var plaintext = [UInt8](repeating: 0, count: body.readableBytes - Int(FLOOR_CHANNEL_OVERHEAD))
    let status = body.withUnsafeReadableBytes { sealed in
        floor_channel_open(&plaintext, sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), sealed.count, counter, CChar(bitPattern: direction), key)
    }
    return status == 0 ? plaintext : nil
}

/// The sealed echo's client end: waits for the whole sealed answer and opens it. Touched only
/// on its channel's event loop, which NIO's handler rules guarantee and the compiler cannot see.
private final class SealedEchoClientHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private let keys: EchoKeys
    private var assembly = FrameAssembly()
    private var received: UInt64 = 0
    private var expected = 0
    private var promise: EventLoopPromise<Void>?

    init(keys: EchoKeys) { self.keys = keys }

    func expect(_ plaintextLength: Int, _ promise: EventLoopPromise<Void>) {
        expected = plaintextLength
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let body = assembly.append(unwrapInboundIn(data)) else { return }
        let plaintext = openedBody(body, counter: received, direction: UInt8(ascii: "S"), key: keys.serverToClient)
        received += 1
        if plaintext?.count == expected {
            promise?.succeed(())
        } else {
            promise?.fail(BenchmarkFailure("the sealed echo's answer did not authenticate"))
        }
        promise = nil
    }
}

/// The sealed echo's server end: opens each whole frame and answers with the plaintext sealed
/// under its own direction's key.
private final class SealedEchoServerHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let keys: EchoKeys
    private var assembly = FrameAssembly()
    private var received: UInt64 = 0
    private var sent: UInt64 = 0

    init(keys: EchoKeys) { self.keys = keys }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let body = assembly.append(unwrapInboundIn(data)) else { return }
        guard let plaintext = openedBody(body, counter: received, direction: UInt8(ascii: "C"), key: keys.clientToServer) else {
            context.close(promise: nil)
            return
        }
        received += 1
        let answer = sealedFrame(plaintext, counter: sent, direction: UInt8(ascii: "S"), key: keys.serverToClient, allocator: context.channel.allocator)
        sent += 1
        context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
    }
}

/// A SwiftNIO echo server and client over a Unix socket at `path`, on the event loops
/// GroupMessaging uses, without handshake or Codable: plain (the channel's round trip without
/// sealing, the denominator), or sealed (each frame sealed as the channel seals it,
/// opened whole, sealed again for the way back: what any channel that seals a message into one
/// frame must add to the plain echo).
private final class NIOEcho: Sendable {
    /// The client end: the handler that waits for the answer, and for the sealed echo its keys.
    private enum ClientEnd: Sendable {
        case plain(EchoClientHandler)
        case sealed(SealedEchoClientHandler, EchoKeys)
    }

    private let server: any Channel
    private let client: any Channel
    private let end: ClientEnd
    // The sealed client's send counter: one round trip runs at a time, from one task.
    private let sent = Mutex<UInt64>(0)

    init(path: String, sealed: Bool) throws {
        let end: ClientEnd
        if sealed {
            let keys = EchoKeys.random()
            end = .sealed(SealedEchoClientHandler(keys: keys), keys)
        } else {
            end = .plain(EchoClientHandler())
        }
        self.end = end
        server = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    switch end {
                    case .plain: try channel.pipeline.syncOperations.addHandler(EchoServerHandler())
                    case .sealed(_, let keys): try channel.pipeline.syncOperations.addHandler(SealedEchoServerHandler(keys: keys))
                    }
                }
            }
            .bind(unixDomainSocketPath: path).wait()
        client = try ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    switch end {
                    case .plain(let handler): try channel.pipeline.syncOperations.addHandler(handler)
                    case .sealed(let handler, _): try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
            }
            .connect(unixDomainSocketPath: path).wait()
    }

    /// One frame out and back: for the plain echo a length-prefixed frame of `length` bytes;
    /// for the sealed echo a frame carrying `length` bytes of plaintext, sealed, and its sealed
    /// answer, opened.
    func roundTrip(_ length: Int) async throws {
        let promise = client.eventLoop.makePromise(of: Void.self)
        let buffer: ByteBuffer
        switch end {
        case .plain(let handler):
            var plain = client.allocator.buffer(capacity: length + 4)
            plain.writeInteger(UInt32(length))
            plain.writeRepeatingByte(0x61, count: length)
            buffer = plain
            client.eventLoop.execute { handler.expect(length + 4, promise) }
        case .sealed(let handler, let keys):
            let counter = sent.withLock { counter in
                defer { counter += 1 }
                return counter
            }
            buffer = sealedFrame([UInt8](repeating: 0x61, count: length), counter: counter, direction: UInt8(ascii: "C"), key: keys.clientToServer, allocator: client.allocator)
            client.eventLoop.execute { handler.expect(length, promise) }
        }
        try await client.writeAndFlush(buffer).get()
        try await promise.futureResult.get()
    }

    func close() {
        try? client.close().wait()
        try? server.close().wait()
    }
}
