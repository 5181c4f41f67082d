import SealedStorage

/// A callback observer of one notification name, made by
/// ``GroupNotificationCenter/observe(_:handler:)``: its handler is called until ``cancel()``,
/// or until the last reference to the observation goes away.
///
/// Keep it for as long as the handler should be called (in the object whose state the handler
/// refreshes, say): an observation that is not kept stops at once. Like Darwin's
/// `notify_cancel`, ``cancel()`` ends the watch, and it also promises what a handler's owner
/// needs to tear its state down: once it returns, the handler is not running and will never be
/// called again. A release ends the watch without that wait (it may happen where waiting is
/// not possible): no call starts after it, but one in progress on the reader thread finishes.
public final class GroupNotificationObservation: Sendable {
    private let watch: DirectoryWatch

    init(watch: DirectoryWatch) {
        self.watch = watch
    }

    /// Stops the observation and releases its watch and descriptor. When this returns, the
    /// handler is not running (a call in progress on the reader thread is waited for) and will
    /// never be called again; called from inside the handler, it makes that call the last. Do
    /// not cancel while holding a lock the handler takes: the wait would never end. That
    /// includes, unseen, the lock of a task the handler resumes, which Swift holds while it runs
    /// that task's cancellation handlers and an `AsyncStream`'s `onTermination`: do not cancel
    /// from those (``GroupNotificationCenter/notifications(named:)`` is the stream). Safe to
    /// call more than once.
    public func cancel() {
        watch.cancel()
    }
}
