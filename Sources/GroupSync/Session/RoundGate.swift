import SealedStorage
import GroupSyncCore

/// Lets one ``SyncRound`` of a space run at a time, the others waiting their turn in the order
/// they came.
///
/// Why: a round judges the rows of a catch-up page against the state as it is when the page
/// arrives. Two rounds at once (a session's, and `synchronizeWithServer()`'s on a connection of
/// its own) let one apply a newer write of an entry between the other's query and its judging,
/// and the other's older row then reads as a server rollback that never happened; so can its
/// change counter, below the cursor the first one moved
/// (`OneRoundAtATimeTests.testRoundsOfOneStoreRunOneAtATimeSoNoRollbackIsCountedThatDidNotHappen`).
/// A round holds no lock of the replica while it waits for the server, so the replica's own
/// lock cannot serve; this is the async counterpart, held across the round's awaits.
///
/// A waiter whose task is cancelled leaves the line at once (a session being stopped does not
/// wait for a long `sync now` to finish) and throws; the turn then passes to the next.
final class RoundGate: Sendable {
    private struct Line {
        var busy = false
        var next: UInt64 = 0
        var waiting: [(id: UInt64, turn: CheckedContinuation<Bool, Never>)] = []
    }

    private let line = Locked(Line())

    /// How many rounds wait for their turn (for tests).
    var waitingRounds: Int { line.withLock { $0.waiting.count } }

    /// Runs `round` when no other round of this gate runs, in arrival order.
    /// - Throws: `round`'s error; ``SyncError/Code/server`` with a `CancellationError` as its
    ///   cause when the task is cancelled while it waits (its writes stay pending).
    func run<Outcome>(_ round: () async throws(SyncError) -> Outcome) async throws(SyncError) -> Outcome {
        guard await enter() else {
            throw SyncError(.server, "the sync round was cancelled while it waited for another round of the same store to finish; pending writes stay pending", underlyingError: CancellationError())
        }
        defer { leave() }
        return try await round()
    }

    /// `true` once this task has the turn; `false` when it was cancelled first.
    private func enter() async -> Bool {
        let id = line.withLock { line in line.next += 1; return line.next }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (turn: CheckedContinuation<Bool, Never>) in
                let answer: Bool? = line.withLock { line in
                    // Checked under the lock: a cancellation handler that ran before this found
                    // nothing to remove, and the task's flag was set before it ran.
                    if Task.isCancelled { return false }
                    if !line.busy { line.busy = true; return true }
                    line.waiting.append((id, turn))
                    return nil
                }
                if let answer { turn.resume(returning: answer) }
            }
        } onCancel: {
            let removed = line.withLock { line -> CheckedContinuation<Bool, Never>? in
                guard let index = line.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return line.waiting.remove(at: index).turn
            }
            removed?.resume(returning: false)
        }
    }

    /// Passes the turn to the first waiter, or frees the gate.
    private func leave() {
        let next = line.withLock { line -> CheckedContinuation<Bool, Never>? in
            guard !line.waiting.isEmpty else { line.busy = false; return nil }
            return line.waiting.removeFirst().turn
        }
        next?.resume(returning: true)
    }
}
