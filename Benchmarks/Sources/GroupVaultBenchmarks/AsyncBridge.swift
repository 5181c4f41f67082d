import Foundation

/// Where ``blocking(_:)`` leaves the result for the waiting thread. The semaphore orders the
/// write before the read, which the compiler cannot see: hence `@unchecked`.
private final class ResultSlot<Value>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}

/// Runs `body` on the concurrency pool and waits for it on the calling thread.
///
/// The harness is synchronous (one contender after another, on the main thread, which is not a
/// thread of the pool), and GroupMessaging is async. Contenders time themselves inside `body`,
/// so the hop to the pool and back stays out of every figure.
func blocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let slot = ResultSlot<Value>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            slot.result = .success(try await body())
        } catch {
            slot.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    return try slot.result!.get()
}

/// The duration of `body` in microseconds, measured inside the task that runs it.
func timed(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).microseconds
}
