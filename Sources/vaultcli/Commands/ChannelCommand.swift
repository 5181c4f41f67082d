import ArgumentParser
import Foundation
import GroupMessaging
import Keyring

/// The request `vaultcli channel ping` sends and `vaultcli channel serve` answers.
struct ChannelPing: GroupMessage {
    static let messageType = "groupvault.vaultcli.ping"
    var seq: Int
}

/// The answer to ``ChannelPing``, with the server's view of the caller.
struct ChannelPong: GroupMessage {
    static let messageType = "groupvault.vaultcli.pong"
    var seq: Int
    /// The caller's process id as the server's kernel reported it (SO_PEERCRED).
    var peerPID: Int32
}

/// `vaultcli channel serve|ping`: a debugging server and client for a group's sealed channel.
///
/// What a peer sends (a message type name in a refusal, a goodbye) reaches the output only
/// escaped: text lines through ``printEscapedLine(_:)``, JSON lines through ``printJSONLine(_:)``.
struct ChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Serve or ping a group's sealed message channel (a Unix socket in the group container).",
        subcommands: [Serve.self, Ping.self])

    /// Options shared by both subcommands.
    struct Target: ParsableArguments {
        @OptionGroup var process: ProcessOptions

        @Option(help: "The application group.")
        var group: String

        @Option(help: "The socket's name in the group container.")
        var name = "vaultcli"

        @Flag(help: "Print one JSON object per line instead of text.")
        var json = false

        func socket() throws -> (Keyring, GroupIPCName) {
            let keyring = try process.keyring()
            let group = try parseGroup(group)
            return (keyring, try GroupIPCName(.socket, name, in: group, keyring: keyring))
        }
    }

    /// `channel serve --json`: a peer connected (ids and credentials are numbers).
    struct ConnectedEvent: Encodable {
        var event = "connected"
        var peer: UInt64
        var pid: Int32
        var uid: UInt32
        var gid: UInt32
    }

    /// `channel serve --json`: a connection ended or was refused; `peer` is absent before
    /// the handshake.
    struct InvalidatedEvent: Encodable {
        var event = "invalidated"
        var peer: UInt64?
        var reason: String
    }

    /// `channel ping --json`: one round trip.
    struct PongEvent: Encodable {
        var event = "pong"
        var seq: Int
        var connection: UInt64
        var microseconds: Int
        var seenPID: Int32
    }

    /// `vaultcli channel serve`.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Answer pings on the channel and print every connection, refusal and disconnection.",
            discussion: "Prints 'listening <path>' when bound; runs until killed.")

        @OptionGroup var target: Target

        func run() async throws {
            let (keyring, name) = try target.socket()
            let json = target.json
            let server = try await GroupChannelServer.start(
                name, keyring: keyring, accepting: GroupMessageTypes([ChannelPing.self]),
                handlers: .init(
                    connected: { peer in
                        json ? printJSONLine(ConnectedEvent(peer: peer.id, pid: peer.credentials.pid, uid: peer.credentials.uid, gid: peer.credentials.gid))
                            : printEscapedLine("connected \(peer)")
                    },
                    request: { message, peer in
                        ChannelPong(seq: (message as? ChannelPing)?.seq ?? -1, peerPID: peer.credentials.pid)
                    },
                    invalidated: { peer, reason in
                        json ? printJSONLine(InvalidatedEvent(peer: peer?.id, reason: reason))
                            : printEscapedLine("invalidated \(peer.map { "\($0)" } ?? "(before the handshake)"): \(reason)")
                    }))
            json ? printJSONLine(["event": "listening", "path": server.name.rawValue]) : printEscapedLine("listening \(server.name.rawValue)")
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }

    /// `vaultcli channel ping`.
    struct Ping: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ping",
            abstract: "Connect (retrying until a server is up), send pings and print each round trip.")

        @OptionGroup var target: Target
        @Option(help: "How many pings.")
        var count = 1
        @Option(help: "Seconds to wait for the connection and for each answer.")
        var timeout = 10.0

        func validate() throws {
            // Duration(seconds:) traps on a value that is not finite or too large to hold.
            guard timeout.isFinite, timeout > 0, timeout <= 1e9 else {
                throw ValidationError("--timeout is a number of seconds above 0 and at most 1000000000, not \(timeout)")
            }
            guard count >= 1 else { throw ValidationError("--count is at least 1, not \(count)") }
        }

        func run() async throws {
            let (keyring, name) = try target.socket()
            let client = try GroupChannelClient(name, keyring: keyring, accepting: GroupMessageTypes([ChannelPong.self]))
            client.start()
            // Whichever comes first: a connection, or the timeout closing the client (which
            // also ends the wait in connected(); that wait does not watch for cancellation).
            let connection: UInt64? = try await withThrowingTaskGroup(of: UInt64?.self) { group in
                group.addTask { try? await client.connected() }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    await client.close()
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let connection else {
                throw GroupMessagingError(.timedOut, "no server answered on \(name) within \(timeout) s; start one with `vaultcli channel serve`")
            }
            for seq in 1...max(1, count) {
                let start = ContinuousClock.now
                let pong = try await client.request(ChannelPing(seq: seq), timeout: .seconds(timeout))
                let microseconds = (ContinuousClock.now - start) / .microseconds(1)
                let pid = (pong as? ChannelPong)?.peerPID ?? -1
                target.json
                    ? printJSONLine(PongEvent(seq: seq, connection: connection, microseconds: Int(microseconds), seenPID: pid))
                    : printEscapedLine("pong \(seq) from \(name.rawValue) in \(Int(microseconds)) µs (the server saw pid \(pid))")
            }
            await client.close()
        }
    }
}
