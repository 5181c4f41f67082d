#if os(Linux)
import Glibc
import SystemPackage

/// A watch that the thread waiting for it reads itself (``DirectoryWatcher/watchReadByCaller()``),
/// where every other watch of the process is read by the one ``InotifyReader`` thread.
///
/// With the reader thread, an observer's wake-up is that thread's, and then its own (a task
/// resumed, a semaphore signalled). A thread that blocks in ``wait(until:)`` is woken by
/// the kernel itself, as a C program blocked in `read(2)` on an inotify descriptor is: it reads
/// the events and returns them, and no other thread runs in between. Its ``descriptor`` can be
/// put in an event loop of the caller's (`poll`, epoll, a run loop), readable while events wait
/// to be read, like the descriptor of Darwin's `notify_register_file_descriptor`.
///
/// ``cancel()`` may come from any thread: it ends a ``wait(until:)`` in progress (a
/// second descriptor, an `eventfd` signalled for good, is in every wait) and closes the watch.
package final class CallerReadWatch: @unchecked Sendable {
    // @unchecked: `buffer` is written only inside `backend`'s lock (its `readQueued`),
    // `delivered` is behind its own, and the rest is immutable.

    /// What one ``wait(until:)`` saw.
    package enum Outcome: Equatable, Sendable {
        /// The events one read found (an ``DirectoryWatcher/Event/Kind/overflow`` among them
        /// when events were lost or the directory went away); possibly none, when the read was
        /// of events about other entries or another waiting thread read them first.
        case events([DirectoryWatcher.Event])
        /// The time passed with nothing to read.
        case timedOut
        /// The directory went away (reported once before, by an overflow) or its watch could no
        /// longer be read: nothing will ever be read again.
        case directoryGone
        /// ``cancel()`` was called: nothing will ever be read again.
        case cancelled
    }

    private let backend: InotifyDirectoryWatch
    /// Signalled by ``cancel()``, never read or reset, closed only when nobody can be waiting.
    private let cancelEvent: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    /// What the backend delivered during the read in progress, and how the watch ended, once
    /// it has (``Outcome/directoryGone`` or ``Outcome/cancelled``).
    private let delivered = Locked<(events: [DirectoryWatcher.Event], ending: Outcome?)>(([], nil))

    /// Reads `backend`, an entry watch's (whose reads already leave other entries' events out).
    init(backend: InotifyDirectoryWatch) throws(Errno) {
        self.backend = backend
        do {
            cancelEvent = try Syscall.makeEvent()
        } catch {
            backend.cancel()
            throw error
        }
        buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: InotifyDirectoryWatch.readBufferSize, alignment: MemoryLayout<inotify_event>.alignment)
        let delivered = self.delivered
        backend.start(delivering: DirectoryWatcher.Delivery(
            event: { event in delivered.withLock { $0.events.append(event) } },
            end: { delivered.withLock { $0.ending = $0.ending ?? .directoryGone } }))
    }

    deinit {
        backend.cancel()
        Syscall.close(raw: cancelEvent)
        buffer.deallocate()
    }

    /// The watch's inotify descriptor, readable while events wait to be read; only to wait on
    /// (reading it is ``wait(until:)``'s job), and closed by ``cancel()``.
    package var descriptor: Int32 { backend.inotifyDescriptor }

    /// Waits until events can be read, until `deadline` at the latest (`nil`: for as long as
    /// it takes; a deadline passed already: only looks), then reads them once, on the calling
    /// thread, and returns them.
    /// - Throws: `Errno` when the wait itself fails (never for the time passing or a signal).
    package func wait(until deadline: ContinuousClock.Instant?) throws(Errno) -> Outcome {
        while true {
            if let ending = delivered.withLock({ $0.ending }) { return ending }
            var remaining: Int32 = -1
            if let deadline {
                // Rounded up: 0.4 ms left must not become a wait that returns at once.
                let left = ContinuousClock.now.duration(to: deadline) / .milliseconds(1)
                remaining = left <= 0 ? 0 : Int32(clamping: Int64(left.rounded(.up)))
            }
            // A descriptor number cancelled and reused meanwhile is waited on beside `cancelEvent`,
            // which is then readable: the wait ends at once, and nothing is read from it.
            let ready = try Syscall.waitReadable(backend.inotifyDescriptor, cancelEvent, milliseconds: remaining)
            if ready.second { return .cancelled }
            if ready.first {
                backend.readQueued(using: buffer)
                return delivered.withLock { delivered in
                    defer { delivered.events = [] }
                    if delivered.events.isEmpty, let ending = delivered.ending { return ending }
                    return .events(delivered.events)
                }
            }
            if remaining == 0 { return .timedOut }
        }
    }

    /// Ends the watch: a ``wait(until:)`` in progress on another thread returns
    /// ``Outcome/cancelled``, and so does every later one. Safe to call more than once.
    package func cancel() {
        Syscall.signalEvent(cancelEvent)
        delivered.withLock { $0.ending = .cancelled }
        backend.cancel()
    }
}
#endif
