#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets a watch's calls through to its handler until it is closed, and makes closing wait for
/// a call in progress: once ``close(waiting:)`` returns, no call is running (unless told not to
/// wait) and none will start.
///
/// That is the promise a callback observer needs (state the handler uses may be torn down as
/// soon as the watch is cancelled), and one a flag alone cannot keep: the reader thread may
/// have passed the flag, on its way into the handler, when another thread cancels. So a call
/// runs holding `calling`, and closing takes `calling` once after clearing the flag, which
/// waits out the call that got in before it.
///
/// The one exception is a close made by the handler itself, on the thread that is calling it
/// (an observer that stops after its first wake-up, or one whose last reference the handler
/// drops): it cannot wait for the call it is part of, so it only clears the flag, and that call
/// is the last.
final class DeliveryGate: Sendable {
    /// Held for the whole of each call; taken by ``close(waiting:)`` to wait one out.
    private let calling = Lock()
    /// Whether calls still get through, and the thread making one (if any), for
    /// ``close(waiting:)`` to tell a handler closing its own watch from another thread.
    private let state = Locked<(open: Bool, caller: pthread_t?)>((true, nil))

    /// Runs `call` unless the gate is closed; calls are serialised.
    func pass(_ call: () -> Void) {
        calling.withLock {
            let open = state.withLock { state in
                if state.open { state.caller = pthread_self() }
                return state.open
            }
            guard open else { return }
            defer { state.withLock { $0.caller = nil } }
            call()
        }
    }

    /// Lets no call through from now on and, `waiting`, returns once a call in progress on
    /// another thread has finished. Safe to call more than once, from any thread, the
    /// handler's included.
    ///
    /// Not `waiting` is for closers that may not wait: an `AsyncStream`'s `onTermination` runs
    /// inside the cancellation of the consuming task, holding that task's status lock, which the
    /// call in progress needs to resume the task it yields to (the two would wait for each
    /// other forever). A stream needs no wait: what is yielded after its end is dropped.
    func close(waiting: Bool = true) {
        let fromTheHandler = state.withLock { state in
            state.open = false
            guard let caller = state.caller else { return false }
            return pthread_equal(caller, pthread_self()) != 0
        }
        guard waiting, !fromTheHandler else { return }
        calling.withLock {}
    }
}
