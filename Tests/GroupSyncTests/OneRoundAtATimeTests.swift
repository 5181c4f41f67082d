import Foundation
import GroupSync
import GroupSyncTestKit
import Keyring
import XCTest

/// `synchronizeWithServer()` beside a running session, in its process or in another process of
/// its home: the rounds never judge rows against each other's half-applied state
/// (docs/SYNC.md, sections 6 and 7).
final class OneRoundAtATimeTests: SyncServerTestCase {
    /// How many times machine 0 writes the key the rounds catch up on.
    private static let writes = 2000

    /// While machine 0 writes one key `writes` times, `racers` run one-shot rounds back to back
    /// beside `reader`'s session, all catching up on those writes. Returns whether `reader` saw
    /// the last write, and the racers' failures (the round the test's own cancellation
    /// interrupts aside).
    private func race(_ racers: [UbiquitousKeyValueStore], besideTheSessionOf reader: UbiquitousKeyValueStore) async throws -> (arrived: Bool, failures: [String]) {
        let writer = try sandbox.store(0, url: server.url)
        let changes = reader.externalChanges()
        writer.start()
        reader.start()
        let racing = racers.map { racer in
            Task {
                var failures: [String] = []
                while !Task.isCancelled {
                    do { try await racer.synchronizeWithServer() } catch {
                        if !Task.isCancelled { failures.append("\(error)") }
                    }
                }
                return failures
            }
        }
        for index in 1...Self.writes {
            writer.set(Int64(index), forKey: "counter")
            if index % 4 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        let arrived = await waitForChange(changes) { reader.longLong(forKey: "counter") == Int64(Self.writes) }
        var failures: [String] = []
        for task in racing { task.cancel(); failures += await task.value }
        await writer.stop()
        await reader.stop()
        return (arrived, failures)
    }

    func testRoundsOfOneStoreRunOneAtATimeSoNoRollbackIsCountedThatDidNotHappen() async throws {
        let reader = try sandbox.store(1, url: server.url)
        let (arrived, failures) = try await race([reader, reader, reader], besideTheSessionOf: reader)

        XCTAssertTrue(arrived)
        XCTAssertEqual(reader.longLong(forKey: "counter"), Int64(Self.writes))
        XCTAssertEqual(reader.status.refusals, [:], "an honest server was refused")
        XCTAssertEqual(failures, [])
    }

    func testARoundOfAnotherProcessOfTheHomeWaitsSoNoRollbackIsCountedThatDidNotHappen() async throws {
        let daemon = try sandbox.store(1, url: server.url)
        let command = try sandbox.store(1, url: server.url)
        let (arrived, failures) = try await race([command], besideTheSessionOf: daemon)

        XCTAssertTrue(arrived)
        XCTAssertEqual(daemon.status.refusals, [:], "an honest server was refused")
        XCTAssertEqual(command.status.refusals, [:], "an honest server was refused")
        XCTAssertEqual(failures, [])
    }
}
