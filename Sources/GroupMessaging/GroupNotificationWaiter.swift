#if os(Linux)
import Keyring
import SealedStorage

/// An observer of one notification name that a thread of yours waits on itself, made by
/// ``GroupNotificationCenter/waiter(named:)``: ``wait(timeout:)`` blocks the calling thread
/// until the name is posted, and the kernel wakes that thread directly, with no reader thread,
/// task or queue in between. Darwin's `notify_register_file_descriptor` and `notify_check`
/// serve the same purpose.
///
/// Posts made since the waiter was made and not yet returned by a wait are pending: the next
/// wait returns at once. Posts coalesce as for every observer: a burst that arrives between
/// two waits is one wake-up, never none. A kernel queue overflow, and the removal of the
/// notifications directory, wake the waiter too; after the removal every wait throws.
///
/// To wait in an event loop of your own (`poll`, epoll, a run loop), watch ``fileDescriptor``
/// for input and call `wait(timeout: .zero)` when it is readable:
///
/// ```swift
/// let waiter = try center.waiter(named: "com.example.signed-in")
/// while try waiter.wait() != nil {      // blocks this thread until a post
///     reloadCredentials()
/// }
/// ```
///
/// Keep the waiter for as long as posts should be seen; releasing it, or ``cancel()``, ends
/// the watch and closes its descriptors.
public final class GroupNotificationWaiter: Sendable {
    /// The name observed.
    public let name: String
    private let group: GroupIdentifier
    private let watch: CallerReadWatch

    init(name: String, group: GroupIdentifier, watch: CallerReadWatch) {
        self.name = name
        self.group = group
        self.watch = watch
    }

    /// Blocks the calling thread until `name` is posted (or returns at once if it was posted
    /// since the last wait), for at most `timeout`.
    ///
    /// Several threads may wait on one waiter; a post wakes at least one of them.
    /// - Parameter timeout: how long to wait at most; `nil` (the default) waits as long as it
    ///   takes, `.zero` (or less) only looks. Any length is accepted.
    /// - Returns: the wake-up, or `nil` when `timeout` passed with no post.
    /// - Throws: ``GroupMessagingError/Code/closed`` once ``cancel()`` was called (a wait in
    ///   progress on another thread returns with it) or once the notifications directory was
    ///   removed (after the one wake-up that said so); ``GroupMessagingError/Code/system`` when
    ///   the wait itself fails.
    public func wait(timeout: Duration? = nil) throws(GroupMessagingError) -> GroupNotification? {
        // Clamped (to 68 years) so that no timeout a caller passes can overflow the clock.
        let deadline = timeout.map { ContinuousClock.now.advanced(by: min(max($0, .zero), .seconds(Int64(Int32.max)))) }
        while true {
            let outcome: CallerReadWatch.Outcome
            do {
                outcome = try watch.wait(until: deadline)
            } catch {
                throw GroupMessagingError(.system, "wait for \(name) in \(group): \(error)", underlyingError: error)
            }
            switch outcome {
            case .events(let events):
                if events.contains(where: { $0.kind == .written || $0.kind == .overflow }) {
                    return GroupNotification(name: name)
                }
                // Another waiter read the events first, or they were not posts (the name's
                // file removed): wait again, for the time left.
            case .timedOut:
                return nil
            case .cancelled:
                throw GroupMessagingError(.closed, "wait for \(name) in \(group): the waiter was cancelled")
            case .directoryGone:
                throw GroupMessagingError(
                    .closed, "wait for \(name) in \(group): the notifications directory was removed (or its watch failed); make a new center and waiter")
            }
        }
    }

    /// The descriptor to watch for input in an event loop of your own: readable while a post
    /// waits to be returned by ``wait(timeout:)``. Only wait on it; reading it is
    /// ``wait(timeout:)``'s job (`wait(timeout: .zero)` once it is readable). Closed by
    /// ``cancel()`` and when the waiter is released.
    public var fileDescriptor: Int32 { watch.descriptor }

    /// Stops observing and closes the waiter's descriptors; a ``wait(timeout:)`` in progress on
    /// another thread, and every later one, throws ``GroupMessagingError/Code/closed``. Safe to
    /// call more than once, from any thread.
    public func cancel() {
        watch.cancel()
    }
}
#endif
