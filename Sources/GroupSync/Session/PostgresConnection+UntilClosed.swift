import PostgresNIO
import SealedStorage

extension PostgresConnection {
    /// The connection closed while a request was waiting on it.
    struct ClosedDuringRequest: Error, CustomStringConvertible {
        var description: String { "the connection closed before the server answered" }
    }

    /// `request`'s result, or ``ClosedDuringRequest`` as soon as the connection closes,
    /// whichever comes first.
    ///
    /// Why: postgres-nio (1.33) writes a query to its channel without a promise, so a query
    /// written after the channel closed (the server restarted between two of a round's queries)
    /// is dropped without failing it, and awaiting it waits forever: a session's round then
    /// never ends, and stopping the session never returns (seen in
    /// `MultiMachineSyncTests.testAServerStoppedAndRestartedMidRunLosesNoWrite`; proven by
    /// `ServerConnectionLossTests`). The request runs in a task of its own so that the caller
    /// can be answered without it: when the connection closes first, that task stays suspended
    /// on the dropped query (one small task per lost connection, holding the closed connection),
    /// which is the price of not waiting forever.
    func untilClosed<Value: Sendable>(_ request: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            let waiting = Locked<CheckedContinuation<Value, any Error>?>(continuation)
            let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
                waiting.withLock { $0.take() }?.resume(with: result)
            }
            Task {
                do {
                    finish(.success(try await request()))
                } catch {
                    finish(.failure(error))
                }
            }
            closeFuture.whenComplete { _ in finish(.failure(ClosedDuringRequest())) }
        }
    }
}
