#if os(Linux)
import CFileLayer
import Glibc
import SystemPackage

// What a watch read by the thread that waits for it needs (``CallerReadWatch``): a descriptor
// another thread can make readable to end the wait, and a wait on two descriptors at once.

extension Syscall {
    /// `eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)`: a descriptor that becomes readable, for good,
    /// once ``signalEvent(_:)`` is called on it.
    package static func makeEvent() throws(Errno) -> Int32 {
        try checkFaults(.wait, step: nil)
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        return descriptor
    }

    /// Adds 1 to the event's counter, which makes it readable until it is read (nothing reads
    /// it). Its error (the counter is full, which a few additions never reach) is of no use.
    package static func signalEvent(_ descriptor: Int32) {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Which of two descriptors `poll(2)` found readable.
    package struct Readiness: Equatable, Sendable {
        package var first: Bool
        package var second: Bool
    }

    /// `poll(2)` for input on `first` and `second`, for at most `milliseconds` (negative: no
    /// limit). Both `false` when the time passed, or when a signal interrupted the wait (EINTR),
    /// which the caller tells apart by its own clock. An error or hang-up on a descriptor counts
    /// as readable: the read that follows says what it is.
    package static func waitReadable(_ first: Int32, _ second: Int32, milliseconds: Int32) throws(Errno) -> Readiness {
        try checkFaults(.wait, step: nil, descriptor: first)
        return try withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { (descriptors) throws(Errno) -> Readiness in
            descriptors[0] = pollfd(fd: first, events: Int16(POLLIN), revents: 0)
            descriptors[1] = pollfd(fd: second, events: Int16(POLLIN), revents: 0)
            guard poll(descriptors.baseAddress, 2, milliseconds) >= 0 else {
                if errno == EINTR { return Readiness(first: false, second: false) }
                throw Errno(rawValue: errno)
            }
            return Readiness(first: descriptors[0].revents != 0, second: descriptors[1].revents != 0)
        }
    }
}
#endif
