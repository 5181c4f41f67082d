#if os(Linux)
import CFileLayer
import Glibc
import SystemPackage

/// The one thread per process that reads every ``InotifyDirectoryWatch``: it blocks in
/// `epoll_wait` on a set holding each watch's inotify descriptor, and when one is ready it reads
/// it and delivers the events in place: it calls the watch's handler itself, which for a
/// stream yields into the watch's `AsyncStream` (whose waiting consumer is resumed on a thread
/// of Swift's pool) and for a callback observer is the observer's own code.
///
/// One hop between the kernel and the observer, where a Dispatch read source per watch took
/// two (Dispatch's own epoll thread, then a worker running the handler), and none at all for a
/// callback observer; see docs/ARCHITECTURE.md. The thread is started by the first watch and lives as long as the
/// process: blocked in `epoll_wait` it costs nothing, and a watch added later needs no
/// wake-up, as `epoll_ctl` changes the set while the thread waits on it.
///
/// A descriptor is in the set under a token of its own, never its number: a watch cancelled
/// while its readiness is on its way to the thread leaves a token nobody holds, which is
/// ignored, so a new watch that reuses the closed descriptor's number never gets its events
/// read for the old one. What a watch reads, and its closing, are serialised by the watch's
/// own lock (``InotifyDirectoryWatch/readQueued(using:)``, ``InotifyDirectoryWatch/cancel()``).
final class InotifyReader: @unchecked Sendable {
    // @unchecked: `watches` and `nextToken` are behind their lock; `epoll` is immutable; the
    // buffers are touched only by the reader thread.

    /// The reader of this process, once a watch has needed it.
    private static let current = Locked<InotifyReader?>(nil)

    /// How many ready descriptors one `epoll_wait` takes.
    static let readyCapacity = 64

    private let epoll: Int32
    private let registry = Locked<(watches: [UInt64: InotifyDirectoryWatch], nextToken: UInt64)>(([:], 1))

    private init(epoll: Int32) {
        self.epoll = epoll
    }

    /// The reader of this process, started now if no watch has needed it yet.
    /// - Throws: ``StorageError`` when the epoll set or the thread cannot be made (the
    ///   descriptor table or the thread limit is full).
    static func shared(for directory: FilePath) throws(StorageError) -> InotifyReader {
        try current.withLock { (reader: inout InotifyReader?) throws(StorageError) -> InotifyReader in
            if let reader { return reader }
            let epoll: Int32
            do throws(Errno) {
                epoll = try Syscall.epollCreate()
            } catch {
                throw StorageError(.system(error), operation: "create the directory watchers' epoll set", path: directory)
            }
            let started = InotifyReader(epoll: epoll)
            do throws(Errno) {
                try Syscall.startThread(named: "GroupVaultWatch") { started.run() }
            } catch {
                Syscall.close(raw: epoll)
                throw StorageError(.system(error), operation: "start the directory watchers' reader thread", path: directory,
                                   hint: error == .resourceTemporarilyUnavailable ? "the process or per-user thread limit is reached" : nil)
            }
            reader = started
            return started
        }
    }

    /// Puts `descriptor` in the set, not yet reported (see ``start(_:token:descriptor:)``),
    /// and returns its token. Done when the watch is made, so the one call of the set that
    /// allocates fails there, as a thrown error, not once the stream is handed out.
    func add(_ descriptor: Int32, directory: FilePath) throws(StorageError) -> UInt64 {
        let token = registry.withLock { registry in
            defer { registry.nextToken += 1 }
            return registry.nextToken
        }
        do {
            try Syscall.epollAdd(descriptor, to: epoll, token: token, events: 0)
        } catch {
            let hint = error == .noSpace ? "the per-user limit fs.epoll.max_user_watches is reached; raise it with sysctl" : nil
            throw StorageError(.system(error), operation: "watch directory", path: directory, hint: hint)
        }
        return token
    }

    /// Starts reporting `descriptor` to `watch` when it has events to read.
    func start(_ watch: InotifyDirectoryWatch, token: UInt64, descriptor: Int32) throws(Errno) {
        registry.withLock { $0.watches[token] = watch }
        do {
            // Level-triggered: events left unread (more than a read takes) are reported again.
            try Syscall.epollModify(descriptor, in: epoll, token: token, events: UInt32(EPOLLIN.rawValue))
        } catch {
            _ = registry.withLock { $0.watches.removeValue(forKey: token) }
            throw error
        }
    }

    /// Takes `descriptor` out of the set; its readiness already on its way to the thread is
    /// ignored from now on. The caller closes the descriptor afterwards.
    func remove(token: UInt64, descriptor: Int32) {
        _ = registry.withLock { $0.watches.removeValue(forKey: token) }
        Syscall.epollRemove(descriptor, from: epoll)
    }

    /// The thread's loop: wait, then read each ready watch once and deliver its events.
    private func run() {
        let ready = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: Self.readyCapacity)
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: InotifyDirectoryWatch.readBufferSize, alignment: MemoryLayout<inotify_event>.alignment)
        defer {
            ready.deallocate()
            buffer.deallocate()
        }
        while true {
            let count: Int
            do {
                count = try Syscall.epollWait(epoll, into: ready)
            } catch {
                // Only a broken set (EBADF, EINVAL, EFAULT) fails here: end every watch with
                // "rescan" rather than leave its consumer waiting forever, and let the next
                // watch start a new reader. The set stays open: a watch still removing itself
                // must not reach another set that was given the same number.
                stop()
                return
            }
            for index in 0..<count {
                let token = ready[index].data.u64
                guard let watch = registry.withLock({ $0.watches[token] }) else { continue }
                watch.readQueued(using: buffer)
            }
        }
    }

    private func stop() {
        Self.current.withLock { reader in
            if reader === self { reader = nil }
        }
        let watches = registry.withLock { registry in
            defer { registry.watches = [:] }
            return Array(registry.watches.values)
        }
        for watch in watches { watch.end() }
    }
}
#endif
