@testable import GroupSync
import GroupSyncCore
import SealedStorage
import XCTest

/// One round of a space at a time, in arrival order; a cancelled waiter leaves the line.
final class RoundGateTests: XCTestCase {
    private let gate = RoundGate()
    private let log = Locked<[String]>([])

    /// A round that logs its start and end and holds its turn until `release` yields.
    private func round(_ name: String, holdingUntil release: AsyncStream<Void>? = nil) -> Task<Void, any Error> {
        Task { [gate, log] in
            try await gate.run { () async throws(SyncError) in
                log.withLock { $0.append("\(name) begins") }
                if let release { for await _ in release { break } }
                log.withLock { $0.append("\(name) ends") }
            }
        }
    }

    /// Waits until `count` rounds wait for their turn; bounded only so that a broken gate ends
    /// the test instead of hanging it.
    private func waitUntil(waiting count: Int) async {
        for _ in 0..<100_000 where gate.waitingRounds != count { await Task.yield() }
        XCTAssertEqual(gate.waitingRounds, count)
    }

    /// Waits until `entry` is in the log, with the same bound.
    private func waitUntilLogged(_ entry: String) async {
        for _ in 0..<100_000 where !log.withLock({ $0.contains(entry) }) { await Task.yield() }
        XCTAssertTrue(log.withLock { $0.contains(entry) })
    }

    /// A round named "first" that has begun and holds its turn until `releasing` yields.
    private func firstRoundHoldingItsTurn() async -> (round: Task<Void, any Error>, releasing: AsyncStream<Void>.Continuation) {
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let first = round("first", holdingUntil: release)
        await waitUntilLogged("first begins")
        return (first, releasing)
    }

    /// Starts the round `name` and waits until it is the `position`th waiting for its turn.
    private func waitingRound(_ name: String, position: Int) async -> Task<Void, any Error> {
        let waiting = round(name)
        await waitUntil(waiting: position)
        return waiting
    }

    func testARoundStartedWhileAnotherRunsBeginsOnlyAfterItEnds() async throws {
        let (first, releasing) = await firstRoundHoldingItsTurn()
        let second = await waitingRound("second", position: 1)
        XCTAssertEqual(log.withLock { $0 }, ["first begins"])

        releasing.yield()
        try await first.value
        try await second.value
        XCTAssertEqual(log.withLock { $0 }, ["first begins", "first ends", "second begins", "second ends"])
    }

    func testWaitingRoundsTakeTheirTurnsInArrivalOrder() async throws {
        let (first, releasing) = await firstRoundHoldingItsTurn()
        let second = await waitingRound("second", position: 1)
        let third = await waitingRound("third", position: 2)

        releasing.yield()
        for task in [first, second, third] { try await task.value }
        XCTAssertEqual(log.withLock { $0 }, ["first begins", "first ends", "second begins", "second ends", "third begins", "third ends"])
    }

    func testACancelledWaiterLeavesTheLineAtOnceAndThrowsWithCancellationAsItsCause() async throws {
        let (first, releasing) = await firstRoundHoldingItsTurn()
        let cancelled = await waitingRound("cancelled", position: 1)

        cancelled.cancel()
        do {
            try await cancelled.value
            XCTFail("a cancelled waiter ran its round")
        } catch let error as SyncError {
            XCTAssertEqual(error.code, .server)
            XCTAssertTrue(error.underlyingError is CancellationError, "\(error)")
        }
        XCTAssertEqual(gate.waitingRounds, 0)
        XCTAssertEqual(log.withLock { $0 }, ["first begins"], "the first round still holds its turn")

        releasing.yield()
        try await first.value
        try await round("after").value
        XCTAssertEqual(log.withLock { $0 }, ["first begins", "first ends", "after begins", "after ends"])
    }

    func testARoundThatFailsPassesTheTurnOn() async throws {
        do {
            try await gate.run { () async throws(SyncError) in throw SyncError(.server, "the server went away") }
            XCTFail("the round's error was lost")
        } catch {
            XCTAssertEqual(error.reason, "the server went away")
        }
        try await round("next").value
        XCTAssertEqual(log.withLock { $0 }, ["next begins", "next ends"])
    }
}
