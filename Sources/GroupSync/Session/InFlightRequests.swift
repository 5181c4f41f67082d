import NIOCore
import SealedStorage

/// The requests waiting on one connection to the sync server, failed together as soon as it
/// closes.
///
/// Why: postgres-nio (1.33) writes a query to its channel without a promise, so a query written
/// after the channel closed (the server stopped between a session's connecting and its
/// migration, or between two of a round's queries) is dropped without being failed, and
/// awaiting it waits forever: the session's round never ended, and stopping the session never
/// returned (`MultiMachineSyncTests.testAServerStoppedAndRestartedMidRunLosesNoWrite`, about one
/// run in ten under load; `ServerConnectionLossTests` prove it without timing).
///
/// Each request runs in a task of its own so that its caller can be answered without it: when
/// the connection closes first, that task stays suspended on the dropped query (at most the
/// requests in flight at the close, each holding the closed connection), which is the price of
/// not waiting forever. The close is watched once per connection, not once per request, so a
/// long-lived connection does not collect a callback per query.
final class InFlightRequests: Sendable {
    /// A request's connection closed before the server answered it.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection closed before the server answered" }
    }

    private struct Waiting {
        var closed = false
        var next: UInt64 = 0
        var failures: [UInt64: @Sendable () -> Void] = [:]
    }

    private let waiting = Locked(Waiting())

    /// Watches `closeFuture`, the connection's.
    init(closingWith closeFuture: EventLoopFuture<Void>) {
        closeFuture.whenComplete { [waiting] _ in
            let failures = waiting.withLock { waiting in
                waiting.closed = true
                defer { waiting.failures = [:] }
                return Array(waiting.failures.values)
            }
            for fail in failures { fail() }
        }
    }

    /// `request`'s result, or ``ConnectionClosed`` as soon as the connection closes, whichever
    /// comes first (at once when it has already closed).
    func run<Value: Sendable>(_ request: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            let pending = Locked<CheckedContinuation<Value, any Error>?>(continuation)
            let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
                pending.withLock { $0.take() }?.resume(with: result)
            }
            let id = waiting.withLock { waiting -> UInt64? in
                guard !waiting.closed else { return nil }
                waiting.next += 1
                waiting.failures[waiting.next] = { finish(.failure(ConnectionClosed())) }
                return waiting.next
            }
            guard let id else {
                finish(.failure(ConnectionClosed()))
                return
            }
            // Started at once on this thread, up to its first suspension (the query's write to
            // the event loop), rather than enqueued for a pool thread to pick up: on the path from
            // a `set` to the server, that hop cost about 35 µs (a trace of the write benchmark).
            Task.immediate { [waiting] in
                let result: Result<Value, any Error>
                do {
                    result = .success(try await request())
                } catch {
                    result = .failure(error)
                }
                _ = waiting.withLock { $0.failures.removeValue(forKey: id) }
                finish(result)
            }
        }
    }
}
