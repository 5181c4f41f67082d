import Foundation
import GroupSync
import GroupSyncTestKit
import Keyring
import XCTest

/// `synchronizeWithServer()` beside a running session: the two never judge rows against each
/// other's half-applied state (docs/SYNC.md, section 6, "One round at a time").
final class OneRoundAtATimeTests: SyncServerTestCase {
    func testRoundsOfOneStoreRunOneAtATimeSoNoRollbackIsCountedThatDidNotHappen() async throws {
        let writer = try sandbox.store(0, url: server.url)
        let reader = try sandbox.store(1, url: server.url)
        let changes = reader.externalChanges()
        writer.start()
        reader.start()
        let writes = 2000
        // Several one-shot rounds of the reader race its session's rounds, all catching up on
        // the writer's stream of writes of one key.
        let racing = (0..<3).map { _ in
            Task {
                var failures: [String] = []
                while !Task.isCancelled {
                    do { try await reader.synchronizeWithServer() } catch {
                        // The round that the test's own cancellation interrupts may fail.
                        if !Task.isCancelled { failures.append("\(error)") }
                    }
                }
                return failures
            }
        }
        for index in 1...writes {
            writer.set(Int64(index), forKey: "counter")
            if index % 4 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        let arrived = await waitForChange(changes) { reader.longLong(forKey: "counter") == Int64(writes) }
        var failures: [String] = []
        for task in racing { task.cancel(); failures += await task.value }
        await writer.stop()
        await reader.stop()

        XCTAssertTrue(arrived)
        XCTAssertEqual(reader.longLong(forKey: "counter"), Int64(writes))
        XCTAssertEqual(reader.status.refusals, [:], "an honest server was refused")
        XCTAssertEqual(failures, [])
    }
}
