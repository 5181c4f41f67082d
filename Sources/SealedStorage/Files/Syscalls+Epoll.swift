#if os(Linux)
import CFileLayer
import Glibc
import SystemPackage

// The epoll set the directory watchers' one reader thread waits on (``InotifyReader``): every
// watcher's inotify descriptor is in it, each reported with a token of its own rather than its
// descriptor number, which a closed descriptor hands on to whatever is opened next.

extension Syscall {
    /// `epoll_create1(EPOLL_CLOEXEC)`: a new, empty epoll set that no executed child inherits.
    package static func epollCreate() throws(Errno) -> Int32 {
        try checkFaults(.epoll, step: nil)
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw Errno(rawValue: errno) }
        return epoll
    }

    /// `epoll_ctl(EPOLL_CTL_ADD)`: `descriptor` joins `epoll`, reported as `token` when one of
    /// `events` (`EPOLLIN`, ...) is ready. With no events it is in the set but never reported
    /// (inotify raises neither `EPOLLERR` nor `EPOLLHUP`) until ``epollModify(_:in:token:events:)``.
    package static func epollAdd(_ descriptor: Int32, to epoll: Int32, token: UInt64, events: UInt32) throws(Errno) {
        try checkFaults(.epoll, step: nil, descriptor: descriptor)
        try control(epoll, EPOLL_CTL_ADD, descriptor, token: token, events: events)
    }

    /// `epoll_ctl(EPOLL_CTL_MOD)`: `descriptor`, already in `epoll`, is reported for `events` from now on.
    package static func epollModify(_ descriptor: Int32, in epoll: Int32, token: UInt64, events: UInt32) throws(Errno) {
        try checkFaults(.epoll, step: nil, descriptor: descriptor)
        try control(epoll, EPOLL_CTL_MOD, descriptor, token: token, events: events)
    }

    /// `epoll_ctl(EPOLL_CTL_DEL)`: `descriptor` leaves `epoll`. Made before the descriptor is
    /// closed: the set holds the open file, not the number, and a copy of it in a forked child
    /// would otherwise keep it in the set. Its error (the descriptor was not in the set) is of
    /// no use to a caller about to close it.
    package static func epollRemove(_ descriptor: Int32, from epoll: Int32) {
        _ = try? control(epoll, EPOLL_CTL_DEL, descriptor, token: 0, events: 0)
    }

    /// `epoll_wait` with no timeout: blocks until a descriptor of `epoll` is ready, fills
    /// `ready` with what is (as many as it holds; each `data.u64` is the descriptor's token),
    /// and returns how many. Retried on EINTR.
    package static func epollWait(_ epoll: Int32, into ready: UnsafeMutableBufferPointer<epoll_event>) throws(Errno) -> Int {
        while true {
            let count = epoll_wait(epoll, ready.baseAddress, Int32(ready.count), -1)
            if count >= 0 { return Int(count) }
            if errno == EINTR { continue }
            throw Errno(rawValue: errno)
        }
    }

    private static func control(_ epoll: Int32, _ operation: Int32, _ descriptor: Int32, token: UInt64, events: UInt32) throws(Errno) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        try retrying { epoll_ctl(epoll, operation, descriptor, &event) }
    }
}
#endif
