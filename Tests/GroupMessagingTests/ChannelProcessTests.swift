import Foundation
import GroupVaultTestKit
import XCTest

/// One server process and several client processes over the real socket in the container.
final class ChannelProcessTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    private var children: [FixtureProcess] = []

    override func setUpWithError() throws { sandbox = try MessagingSandbox() }

    override func tearDown() {
        children.forEach { $0.kill(SIGKILL); $0.wait() }
        sandbox.remove()
    }

    private func start(_ command: String, _ arguments: [String] = []) throws -> FixtureProcess {
        let child = try sandbox.start(command, arguments)
        children.append(child)
        return child
    }

    private func lines(_ process: FixtureProcess, prefix: String) -> [String] {
        process.standardOutput.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    func testSmallAndNearLimitMessagesFromSeveralClientsAreAllCountedInOrder() throws {
        let server = try start("channel-serve")
        try sandbox.await("listening", in: server)
        // Three clients of 1000 small notes and one of 300 notes near the 64 KiB frame limit:
        // many frames per read and frames split across reads.
        var clients = try (1...3).map { index in try start("channel-client", ["--sender", "s\(index)", "--count", "1000"]) }
        clients.append(try start("channel-client", ["--sender", "big", "--count", "300", "--size", "65000"]))
        for client in clients {
            XCTAssertEqual(client.wait(), 0, client.standardError)
        }
        XCTAssertEqual(lines(clients[0], prefix: "flushed"), ["flushed 1000"])
        XCTAssertEqual(lines(clients[3], prefix: "flushed"), ["flushed 300"])
        for (sender, count) in [("s1", 1000), ("s2", 1000), ("s3", 1000), ("big", 300)] {
            let seqs = lines(server, prefix: "got \(sender) ").map { Int($0.split(separator: " ")[2])! }
            XCTAssertEqual(seqs, Array(0..<count), "every note of \(sender) arrived once, in order")
        }
    }

    func testBroadcastAndTargetedMessagesReachEveryClientExactlyAsSent() throws {
        let server = try start("channel-serve", ["--clients", "3", "--broadcast", "500", "--targeted", "200", "--size", "60000"])
        try sandbox.await("listening", in: server)
        let clients = try (1...3).map { index in
            try start("channel-client", ["--sender", "c\(index)", "--broadcast", "500", "--targeted", "200"])
        }
        for client in clients {
            XCTAssertEqual(client.wait(), 0, client.standardError)
            XCTAssertEqual(lines(client, prefix: "tick broadcast").map { Int($0.split(separator: " ")[2])! }, Array(1...500))
            XCTAssertEqual(lines(client, prefix: "tick targeted").map { Int($0.split(separator: " ")[2])! }, Array(1...200))
        }
    }

    func testServerReportsClientCredentialsFromTheKernel() throws {
        let server = try start("channel-serve")
        try sandbox.await("listening", in: server)
        let client = try start("channel-client", ["--sender", "x"])
        XCTAssertEqual(client.wait(), 0, client.standardError)
        let connected = lines(server, prefix: "connected ")
        XCTAssertEqual(connected.count, 1)
        XCTAssertTrue(connected[0].contains("pid=\(client.pid) uid=\(getuid()) gid=\(getgid())"), connected[0])
    }

    func testClientsReconnectAfterServerRestartAndNoMessageIsAcceptedTwice() throws {
        let first = try start("channel-serve")
        try sandbox.await("listening", in: first)
        let streams = try (1...3).map { index in try start("channel-stream", ["--sender", "r\(index)", "--after-reconnect", "50"]) }
        for index in 1...3 {
            let deadline = Date().addingTimeInterval(60)
            while lines(first, prefix: "got r\(index) ").count < 20 && Date() < deadline { usleep(2_000) }
        }
        first.kill(SIGKILL)
        first.wait()
        // The dead server's socket file is still there: the new server must find it stale.
        let second = try start("channel-serve")
        try sandbox.await("listening", in: second)
        for stream in streams {
            XCTAssertEqual(stream.wait(), 0, stream.standardError)
        }
        for index in 1...3 {
            let received = (lines(first, prefix: "got r\(index) ") + lines(second, prefix: "got r\(index) "))
                .map { Int($0.split(separator: " ")[2])! }
            XCTAssertEqual(received.count, Set(received).count, "no note of r\(index) was accepted twice")
            let acked = lines(streams[index - 1], prefix: "acked ").map { Int($0.split(separator: " ")[1])! }
            XCTAssertTrue(Set(acked).isSubset(of: Set(received)), "every acknowledged note was received")
            XCTAssertGreaterThanOrEqual(lines(second, prefix: "got r\(index) ").count, 50, "r\(index) reconnected to the new server")
        }
    }

    func testSecondServerOnALiveSocketIsRefusedAndTheFirstKeepsServing() throws {
        let first = try start("channel-serve")
        try sandbox.await("listening", in: first)
        let second = try start("channel-serve")
        XCTAssertEqual(second.wait(), 1)
        XCTAssertTrue(second.standardError.contains("already answering"), second.standardError)
        let client = try start("channel-client", ["--sender", "after", "--count", "1"])
        XCTAssertEqual(client.wait(), 0, client.standardError)
    }

    func testClientWithoutTheGroupKeyIsRefused() throws {
        let server = try start("channel-serve")
        try sandbox.await("listening", in: server)
        let intruder = try start("channel-nokey")
        XCTAssertEqual(intruder.wait(), 0, "the intruder was never accepted: \(intruder.standardError)")
        XCTAssertTrue(lines(server, prefix: "connected").isEmpty)
        XCTAssertTrue(server.standardOutput.contains("invalidated - authenticationFailed"), server.standardOutput)
    }

    func testBrokenFramesAreRejectedAndTheServerKeepsServingOthers() throws {
        let server = try start("channel-serve")
        try sandbox.await("listening", in: server)
        let expectations = [
            ("oversized", "badFrameLength"), ("truncated", "truncatedFrame"), ("replay", "outOfOrder"),
            ("reorder", "outOfOrder"), ("forge", "authenticationFailed"), ("unknown-type", "unknownMessageType"),
            ("malformed", "undecodableMessage"),
        ]
        for (index, (kind, reason)) in expectations.enumerated() {
            let refusedBefore = lines(server, prefix: "invalidated ").filter { $0.contains(reason) }.count
            let attacker = try start("channel-attack", ["--kind", kind])
            XCTAssertEqual(attacker.wait(), 0, "\(kind): \(attacker.standardError)")
            XCTAssertTrue(attacker.standardOutput.contains("closed"), "\(kind): the server closed the connection")
            // The server reports the close as it happens; wait for it (bounded), then check it.
            let deadline = Date().addingTimeInterval(60)
            while lines(server, prefix: "invalidated ").filter({ $0.contains(reason) }).count == refusedBefore && Date() < deadline {
                usleep(2_000)
            }
            XCTAssertEqual(lines(server, prefix: "invalidated ").filter { $0.contains(reason) }.count, refusedBefore + 1,
                           "\(kind): the server closed the connection for \(reason); it said: \(lines(server, prefix: "invalidated "))")
            let honest = try start("channel-client", ["--sender", "honest\(index)", "--count", "5"])
            XCTAssertEqual(honest.wait(), 0, "after \(kind): \(honest.standardError)")
            XCTAssertEqual(lines(honest, prefix: "flushed"), ["flushed 5"], "after \(kind)")
        }
    }
}
