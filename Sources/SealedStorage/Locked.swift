#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over `pthread_mutex_t`, for state shared between threads.
///
/// GroupVault uses this instead of `Synchronization.Mutex`, and ``Locked`` for state guarded
/// by a lock. The reason is ThreadSanitizer, which CI runs. On Linux, `Mutex` passes a contended
/// lock from one thread to the next inside the kernel (a priority-inheritance futex), in code
/// ThreadSanitizer does not see. So when two threads meet at the lock, it reports the guarded
/// state as a data race that is not one, and fails the run. ThreadSanitizer intercepts
/// `pthread_mutex_lock` and `pthread_mutex_unlock`, so it sees every hand-over of this lock
/// (`LockedTests`, which CI runs under it).
package final class Lock: @unchecked Sendable {
    // @unchecked: the mutex lives at a fixed address of its own, as pthread requires, and is
    // used only through pthread calls, which are thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A new, unlocked lock.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock. The lock is not recursive: `body` must not take it again.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value that threads share, reached only while holding its ``Lock``.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `lock.withLock`.
    private let lock = Lock()
    private var value: Value

    /// `value`, guarded from now on.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value while holding the lock, and returns what it returns.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}
