/// A started watch that calls a handler (``DirectoryWatcher/watch(ending:_:)``), until
/// ``cancel()`` or until the last reference to it goes away.
///
/// When ``cancel()`` returns, the handler is not running and will not be called again, and the
/// watch's descriptors are closed; from inside the handler, the call making it is the last
/// (``DeliveryGate``). Keep a reference for as long as the handler should be called: dropping
/// it cancels the watch.
package final class DirectoryWatch: Sendable {
    private let backend: any DirectoryWatchBackend
    private let gate: DeliveryGate

    init(backend: any DirectoryWatchBackend, gate: DeliveryGate) {
        self.backend = backend
        self.gate = gate
    }

    deinit {
        cancel()
    }

    /// Stops the watch: waits for a call of the handler in progress on another thread, then
    /// closes the watch's descriptors. Safe to call more than once, from any thread.
    package func cancel() {
        // The gate first: once it is closed nothing reaches the handler, whatever the backend
        // has read and not yet delivered.
        gate.close()
        backend.cancel()
    }
}
