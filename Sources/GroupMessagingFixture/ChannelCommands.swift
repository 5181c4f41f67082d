import FixtureSupport
import Foundation
import GroupMessaging
import Keyring
import SealedStorage

/// Channel commands (all take `--group G --name N`, N the socket name):
///
/// - `channel-serve [--clients K --broadcast B --targeted T --size S]`: serves until killed.
///   Prints `listening`; `connected <id> pid=<pid> uid=<uid> gid=<gid>` per client;
///   `got <sender> <seq>` per note (before acknowledging it); `invalidated <id|-> <reason>`.
///   When K clients are connected the first time, broadcasts B ticks, then sends T ticks to each
///   client, padded to S bytes, and prints `sent`.
/// - `channel-client --sender S [--count C --size Z --broadcast B --targeted T]`: sends C notes
///   padded to Z bytes, then a flush request; prints `flushed <n>` (notes the server got from S);
///   then waits for B broadcast and T targeted ticks, printing `tick broadcast|targeted <seq>`, and `done`.
/// - `channel-stream --sender S --after-reconnect K`: sends notes 1, 2, ... as requests, printing
///   `acked <seq>` or `lost <seq>`; exits 0 after K acks on a connection after the first.
/// - `channel-nokey`: connects with a random key instead of the group's; prints `invalidated <reason>`
///   and exits 0 once the server has refused it, 1 if it was ever accepted.
let channelCommands: [String: FixtureCommand] = [
    "channel-serve": { arguments in await runFixture(arguments, ChannelFixture.serve) },
    "channel-client": { arguments in await runFixture(arguments, ChannelFixture.client) },
    "channel-stream": { arguments in await runFixture(arguments, ChannelFixture.stream) },
    "channel-nokey": { arguments in await runFixture(arguments, ChannelFixture.noKey) },
    "channel-attack": { arguments in await runFixture(arguments, ChannelAttack.run) },
]

enum ChannelFixture {
    static func socketName(_ options: FixtureOptions, _ keyring: Keyring) throws -> GroupIPCName {
        try GroupIPCName(.socket, try options.string("name", default: "ch"), in: try options.group(), keyring: keyring)
    }

    static func serve(_ options: FixtureOptions) async throws -> Int32 {
        let keyring = try options.keyring()
        let wantedClients = try options.integer("clients", default: 0)
        let broadcasts = try options.integer("broadcast", default: 0)
        let targeted = try options.integer("targeted", default: 0)
        let padding = String(repeating: "t", count: try options.integer("size", default: 0))
        let received = Locked([String: Int]())
        let (connections, connectionsContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = try await GroupChannelServer.start(
            try socketName(options, keyring), keyring: keyring, accepting: fixtureTypes,
            handlers: .init(
                connected: { peer in
                    printLine("connected \(peer.id) pid=\(peer.credentials.pid) uid=\(peer.credentials.uid) gid=\(peer.credentials.gid)")
                    connectionsContinuation.yield(1)
                },
                message: { message, _ in
                    guard let note = message as? FixtureNote else { return }
                    received.withLock { $0[note.sender, default: 0] += 1 }
                    printLine("got \(note.sender) \(note.seq)")
                },
                request: { message, _ in
                    if let note = message as? FixtureNote {
                        received.withLock { $0[note.sender, default: 0] += 1 }
                        printLine("got \(note.sender) \(note.seq)")
                        return FixtureAck(seq: note.seq)
                    }
                    if let flush = message as? FixtureFlush {
                        return FixtureFlushed(received: received.withLock { $0[flush.sender, default: 0] })
                    }
                    throw GroupMessagingError(.invalidMessage, "unexpected request")
                },
                invalidated: { peer, reason in
                    printLine("invalidated \(peer.map { String($0.id) } ?? "-") \(reason)")
                }))
        printLine("listening")
        if wantedClients > 0 {
            var count = 0
            for await _ in connections {
                count += 1
                if count >= wantedClients { break }
            }
            for seq in 1...max(1, broadcasts) where broadcasts > 0 {
                try await server.broadcast(FixtureTick(targeted: false, seq: seq, padding: padding))
            }
            for peer in server.peers {
                for seq in 1...max(1, targeted) where targeted > 0 {
                    try await server.send(FixtureTick(targeted: true, seq: seq, padding: padding), to: peer.id)
                }
            }
            printLine("sent")
        }
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    static func client(_ options: FixtureOptions) async throws -> Int32 {
        let keyring = try options.keyring()
        let sender = try options.string("sender")
        let count = try options.integer("count", default: 0)
        let padding = String(repeating: "n", count: try options.integer("size", default: 0))
        let wantedBroadcasts = try options.integer("broadcast", default: 0)
        let wantedTargeted = try options.integer("targeted", default: 0)
        let (ticks, ticksContinuation) = AsyncStream.makeStream(of: FixtureTick.self)
        let client = try GroupChannelClient(
            try socketName(options, keyring), keyring: keyring, accepting: fixtureTypes,
            handlers: .init(message: { message in
                if let tick = message as? FixtureTick { ticksContinuation.yield(tick) }
            }))
        client.start()
        _ = try await client.connected()
        printLine("connected")
        for seq in 0..<count {
            try await client.send(FixtureNote(sender: sender, seq: seq, padding: padding))
        }
        let flushed = try await client.request(FixtureFlush(sender: sender), timeout: .seconds(120))
        printLine("flushed \((flushed as? FixtureFlushed)?.received ?? -1)")
        var broadcasts = 0
        var targeted = 0
        if wantedBroadcasts + wantedTargeted > 0 {
            for await tick in ticks {
                if tick.targeted { targeted += 1 } else { broadcasts += 1 }
                printLine("tick \(tick.targeted ? "targeted" : "broadcast") \(tick.seq)")
                if broadcasts >= wantedBroadcasts && targeted >= wantedTargeted { break }
            }
        }
        printLine("done")
        await client.close()
        return 0
    }

    static func stream(_ options: FixtureOptions) async throws -> Int32 {
        let keyring = try options.keyring()
        let sender = try options.string("sender")
        let wanted = try options.integer("after-reconnect")
        let connections = Locked(0)
        let client = try GroupChannelClient(
            try socketName(options, keyring), keyring: keyring, accepting: fixtureTypes,
            handlers: .init(connected: { _ in
                connections.withLock { $0 += 1 }
                printLine("connection")
            }))
        client.start()
        var seq = 0
        var ackedAfterReconnect = 0
        while ackedAfterReconnect < wanted {
            _ = try await client.connected()
            seq += 1
            let connection = connections.withLock { $0 }
            do {
                _ = try await client.request(FixtureNote(sender: sender, seq: seq, padding: ""), timeout: .seconds(60))
                printLine("acked \(seq)")
                if connection > 1 { ackedAfterReconnect += 1 }
            } catch {
                // At most once: a note whose ack was lost is not sent again.
                printLine("lost \(seq) \(error.code.rawValue)")
            }
        }
        await client.close()
        return 0
    }

    static func noKey(_ options: FixtureOptions) async throws -> Int32 {
        let keyring = try options.keyring()
        let (reasons, continuation) = AsyncStream.makeStream(of: String.self)
        let accepted = Locked(false)
        let client = try GroupChannelClient(
            try socketName(options, keyring), keyring: keyring, accepting: fixtureTypes,
            handlers: .init(connected: { _ in accepted.withLock { $0 = true } }, invalidated: { continuation.yield($0) }),
            backoff: .init(), keyOverride: (1, SymmetricKey()))
        client.start()
        for await reason in reasons {
            printLine("invalidated \(reason)")
            break
        }
        await client.close()
        return accepted.withLock { $0 } ? 1 : 0
    }
}
