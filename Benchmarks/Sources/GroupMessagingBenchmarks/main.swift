import Foundation
import GroupMessaging
import Keyring
import NIOCore
import NIOPosix

// GroupMessaging's latencies beside baselines from the same run, interleaved round by round so
// that machine noise hits both alike:
//   - notification post-to-wake across processes (half a ping-pong with a child process);
//   - channel request/response round trip and one-way messages per second, beside a SwiftNIO
//     echo over the same kind of socket with the same framing but no sealing.
// Usage: GroupMessagingBenchmarks [--rounds <n>]     (the child mode is internal: --notify-echo)
//
// Not registered in Benchmarks/Package.swift yet (the bench package's owner decides); it needs
// `.product(name: "GroupMessaging", package: "GroupVault")` and NIOCore/NIOPosix from swift-nio.

struct Ping: GroupMessage {
    static let messageType = "bench.ping"
    var seq: Int
    var padding: String
}

struct Pong: GroupMessage {
    static let messageType = "bench.pong"
    var seq: Int
}

/// Nanoseconds of `body`.
func measure(_ body: () async throws -> Void) async rethrows -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return DispatchTime.now().uptimeNanoseconds - start
}

func percentile(_ samples: [UInt64], _ p: Double) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .nan }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
}

func line(_ name: String, _ samples: [UInt64]) -> String {
    String(format: "| %@ | %.1f | %.1f | %d |", name, percentile(samples, 0.5), percentile(samples, 0.99), samples.count)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let group = GroupIdentifier(rawValue: "group.com.example.bench")!
let identity = Identity(teamID: "ABCDE12345", bundleID: "com.example.bench", applicationGroups: [group])

// Child mode: answers every "ping" notification with a "pong" until killed.
if arguments.first == "--notify-echo", arguments.count == 2 {
    let keyring = Keyring(identity: identity, home: KeyringHome(root: URL(fileURLWithPath: arguments[1])))
    let center = try GroupNotificationCenter(keyring: keyring, group: group)
    let pings = try center.notifications(named: "ping")
    try center.post("ready")
    for await _ in pings { try center.post("pong") }
    exit(0)
}

/// A length-prefixed echo over a Unix socket, without sealing: the cost of SwiftNIO and framing.
final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

final class EchoClientHandler: ChannelInboundHandler, @unchecked Sendable {
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
        if received >= expected { promise?.succeed(()); promise = nil }
    }
}

func benchmark() async throws {
    let rounds = arguments.firstIndex(of: "--rounds").flatMap { Int(arguments[$0 + 1]) } ?? 2000
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("gmb-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    // The keyring creates its home with owner-only modes; the temporary directory is only its parent.
    let home = root.appendingPathComponent("home")
    let keyring = Keyring(identity: identity, home: KeyringHome(root: home))

    // MARK: Notifications across processes

    let center = try GroupNotificationCenter(keyring: keyring, group: group)
    let readyStream = try center.notifications(named: "ready")
    var pongs = try center.notifications(named: "pong").makeAsyncIterator()
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["--notify-echo", home.path]
    try child.run()
    defer { child.terminate() }
    var readyIterator = readyStream.makeAsyncIterator()
    _ = await readyIterator.next()
    var notificationSamples: [UInt64] = []
    for _ in 0..<min(rounds, 1000) {
        // One post, one wake-up each way: a ping-pong never coalesces, so half of it is one post-to-wake.
        notificationSamples.append(await measure {
            try! center.post("ping")
            _ = await pongs.next()
        } / 2)
    }

    // MARK: Channel and unsealed NIO echo

    let socket = try GroupIPCName(.socket, "bench", in: group, keyring: keyring)
    let server = try await GroupChannelServer.start(
        socket, keyring: keyring, accepting: GroupMessageTypes([Ping.self]),
        handlers: .init(request: { message, _ in Pong(seq: (message as! Ping).seq) }))
    let client = try GroupChannelClient(socket, keyring: keyring, accepting: GroupMessageTypes([Pong.self]))
    client.start()
    _ = try await client.connected()

    let echoPath = root.appendingPathComponent("echo").path
    let echoServer = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .childChannelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) } }
        .bind(unixDomainSocketPath: echoPath).get()
    let echoHandler = EchoClientHandler()
    let echoClient = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(echoHandler) } }
        .connect(unixDomainSocketPath: echoPath).get()

    @Sendable func echo(_ payload: Int) async throws {
        var buffer = echoClient.allocator.buffer(capacity: payload + 4)
        buffer.writeInteger(UInt32(payload))
        buffer.writeRepeatingByte(0x61, count: payload)
        let promise = echoClient.eventLoop.makePromise(of: Void.self)
        echoClient.eventLoop.execute { echoHandler.expect(payload + 4, promise) }
        try await echoClient.writeAndFlush(buffer).get()
        try await promise.futureResult.get()
    }

    var report = ["| measurement | p50 µs | p99 µs | samples |", "|---|---|---|---|", line("notification post-to-wake, across processes", notificationSamples)]
    for size in [16, 60_000] {
        var sealed: [UInt64] = []
        var plain: [UInt64] = []
        let padding = String(repeating: "p", count: size)
        for seq in 0..<rounds {
            sealed.append(try await measure { _ = try await client.request(Ping(seq: seq, padding: padding), timeout: .seconds(10)) })
            plain.append(try await measure { try await echo(size + 40) })
        }
        report.append(line("channel round trip, \(size) B (sealed)", sealed))
        report.append(line("SwiftNIO echo round trip, \(size + 40) B (unsealed)", plain))
        report.append(String(format: "| ratio sealed/unsealed p50, %d B | %.2fx | | |", size, percentile(sealed, 0.5) / percentile(plain, 0.5)))
    }
    let oneWay = 20_000
    let elapsed = try await measure {
        for seq in 0..<oneWay { try await client.send(Ping(seq: seq, padding: "")) }
        _ = try await client.request(Ping(seq: -1, padding: ""), timeout: .seconds(60))
    }
    report.append(String(format: "| channel one-way messages per second (16 B) | %.0f | | %d |", Double(oneWay) / (Double(elapsed) / 1e9), oneWay))
    print(report.joined(separator: "\n"))
    await client.close()
    await server.close()
    try await echoClient.close().get()
    try await echoServer.close().get()
}

try await benchmark()
