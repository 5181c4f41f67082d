/// A started watch that calls a handler (``DirectoryWatcher/watch(ending:_:)``), until
/// ``cancel()`` or until the last reference to it goes away.
///
/// When ``cancel()`` returns, the handler is not running and will not be called again, and the
/// watch's descriptors are closed; from inside the handler, the call making it is the last
/// (``DeliveryGate``). Keep a reference for as long as the handler should be called: dropping
/// it cancels the watch too, without waiting for a call in progress (no call starts after).
package final class DirectoryWatch: Sendable {
    private let backend: any DirectoryWatchBackend
    private let gate: DeliveryGate

    init(backend: any DirectoryWatchBackend, gate: DeliveryGate) {
        self.backend = backend
        self.gate = gate
    }

    deinit {
        // Without waiting: a release can happen anywhere, inside a task's cancellation too (a
        // stream's `onTermination` holds the last reference), where a wait could never end.
        cancel(waiting: false)
    }

    /// Stops the watch: waits for a call of the handler in progress on another thread, then
    /// closes the watch's descriptors. Safe to call more than once, from any thread.
    package func cancel() {
        cancel(waiting: true)
    }

    /// Stops the watch from an `AsyncStream`'s `onTermination`, which must not wait for the
    /// handler (``DeliveryGate/close(waiting:)``); no call starts after it.
    package func cancelFromStreamTermination() {
        cancel(waiting: false)
    }

    private func cancel(waiting: Bool) {
        // The gate first: once it is closed nothing reaches the handler, whatever the backend
        // has read and not yet delivered.
        gate.close(waiting: waiting)
        backend.cancel()
    }
}
