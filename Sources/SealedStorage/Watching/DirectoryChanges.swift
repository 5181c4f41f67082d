#if os(Linux)
import Glibc
#endif
import SystemPackage

/// Whether anything happened to some directories since a caller last looked: one inotify
/// instance for the process, a watch on each directory registered, read without blocking when
/// a caller looks.
///
/// Why: a warm keyring operation checks its home's two directories and three of their files on
/// every call, so that another process's change (a lock, a new master secret, a directory
/// opened to others) is seen by the very next call: nine system calls, about a sixth of a warm
/// lookup (Benchmarks/ANALYSIS.md). The kernel queues an inotify event before the call that
/// changes a watched directory returns, so a look that finds the same ``changes(of:)`` as an
/// earlier one proves that nothing happened to those directories in between, and what was
/// checked after the earlier look still holds.
///
/// What a watch reports: an entry created, removed, renamed in or out, written, or re-moded
/// (`chmod`, `chown`, an ACL), and the directory's own attributes, move and removal. What it
/// cannot see is a file of the directory changed in place through another hard link to it;
/// a caller that must see that too has to look at the file itself.
///
/// Anything the watch cannot vouch for counts as a change at every look: a queue overflow, a
/// watch the kernel dropped (its directory removed, its file system unmounted), a read that
/// fails, a look from a child forked without `exec`. At most ``maximumWatches`` directories
/// are watched per process, so that a process with many homes (a test run) cannot use up the
/// inotify watches its other watchers need; beyond that ``register(_:ignoringEntriesNamed:)``
/// returns `nil` and the caller checks as it did without.
package final class DirectoryChanges: Sendable {
    /// The process's instance, or `nil` where inotify is missing (another system, or the
    /// per-user instance limit reached at first use).
    package static let shared: DirectoryChanges? = DirectoryChanges()

    /// The most directories watched in one process.
    package static let maximumWatches = 256

    /// What a registration is told: the watched directories changed this many times.
    package typealias Count = UInt64

    /// One directory watched for one user, until released (the last release of a directory
    /// removes its watch).
    package final class Registration: Sendable {
        /// Unique in the process, never reused: what a caller may keep to recognise this
        /// registration (an object's address may be another's once it is freed).
        package let serial: UInt64
        fileprivate let watch: Int32
        private let changes: DirectoryChanges

        fileprivate init(serial: UInt64, watch: Int32, changes: DirectoryChanges) {
            self.serial = serial
            self.watch = watch
            self.changes = changes
        }

        deinit { changes.release(watch) }
    }

    #if os(Linux)
    private struct Watch {
        /// Events on the directory seen so far.
        var events: Count = 0
        /// Registrations using the watch.
        var users = 0
        /// The kernel dropped the watch (IN_IGNORED): every look counts as a change.
        var dropped = false
        /// Entries whose events are not counted (``register(_:ignoringEntriesNamed:)``).
        var ignored: Set<String> = []
    }

    private struct State {
        let descriptor: Int32
        /// The process that made the descriptor. A child forked without `exec` shares its
        /// queue: were the child to read it, the parent would never see the events it took.
        let process: pid_t
        var watches: [Int32: Watch] = [:]
        /// Looks so far: what a dropped watch, and everything once broken, adds at each look.
        var looks: Count = 0
        /// Changes that no watch can be blamed for (a queue overflow).
        var overflows: Count = 0
        /// A read failed: nothing is vouched for any more.
        var broken = false
        /// Registrations made so far (``Registration/serial``).
        var registrations: UInt64 = 0
    }

    private let state: Locked<State>

    /// What the watches ask for: an entry created, removed, moved, written or re-moded, and
    /// the directory's own attributes, move and removal. Only a directory is watched.
    private static let mask = UInt32(IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE)
        | UInt32(IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR)

    private init?() {
        guard let descriptor = try? Syscall.inotifyInit(flags: Int32(IN_NONBLOCK | IN_CLOEXEC)) else { return nil }
        state = Locked(State(descriptor: descriptor, process: getpid()))
    }

    /// Watches `directory` (by its descriptor, so a path swapped since it was opened is not
    /// followed), not counting events of the entries named `ignored` (files whose every write
    /// would otherwise count, when what the caller checks is elsewhere in the directory); `nil`
    /// when the watch cannot be made or ``maximumWatches`` are in use.
    package func register(_ directory: DirectoryHandle, ignoringEntriesNamed ignored: Set<String> = []) -> Registration? {
        state.withLock { state in
            guard !state.broken, state.watches.count < Self.maximumWatches,
                  let watch = try? Syscall.inotifyAddWatch(state.descriptor, opened: directory.descriptor, mask: Self.mask)
            else { return nil }
            // The same directory registered twice shares the kernel's one watch of it, which
            // then ignores only what every registration ignores.
            if let existing = state.watches[watch] {
                state.watches[watch]!.ignored = existing.ignored.intersection(ignored)
            } else {
                state.watches[watch] = Watch(ignored: ignored)
            }
            state.watches[watch]!.users += 1
            state.registrations += 1
            return Registration(serial: state.registrations, watch: watch, changes: self)
        }
    }

    /// How many times the directories of `registrations` changed, counting everything the
    /// watches cannot vouch for as a change: reads what the kernel queued first. Equal to an
    /// earlier answer for the same registrations only if nothing happened to them in between.
    package func changes(of registrations: [Registration]) -> Count {
        state.withLock { state in
            Self.look(&state)
            return Self.count(of: registrations, in: state)
        }
    }

    /// How many looks (``changes(of:)``) the process has made so far: a mark for
    /// ``changes(of:lookedSince:)``.
    package var looks: Count {
        state.withLock { $0.looks }
    }

    /// ``changes(of:)``, without reading the queue when a look began after `mark` (``looks``
    /// when the caller's operation began): that look read everything the kernel had queued by
    /// then, so every change finished before the operation began is already counted. An
    /// operation that looks at its home's directories and then at another one (a Vault read
    /// of a kept value) reads the queue once.
    package func changes(of registrations: [Registration], lookedSince mark: Count) -> Count {
        state.withLock { state in
            // Not counted as a look: no queue was read, and a look is what a mark vouches for.
            if state.looks == mark { Self.look(&state) }
            return Self.count(of: registrations, in: state)
        }
    }

    /// Reads the queue, as one look.
    private static func look(_ state: inout State) {
        // A forked child never reads the queue it shares with its parent: every look of
        // its counts as a change, and it checks as it would without a watch.
        if getpid() != state.process { state.broken = true }
        drain(&state)
        state.looks += 1
    }

    /// The count of `registrations` as `state` has it.
    private static func count(of registrations: [Registration], in state: State) -> Count {
        var count = state.overflows &+ (state.broken ? state.looks : 0)
        for registration in registrations {
            let watch = state.watches[registration.watch] ?? Watch(dropped: true)
            count &+= watch.events &+ (watch.dropped ? state.looks : 0)
        }
        return count
    }

    /// Reads every queued event and counts it against its watch.
    private static func drain(_ state: inout State) {
        guard !state.broken else { return }
        withUnsafeTemporaryAllocation(byteCount: InotifyDirectoryWatch.readBufferSize, alignment: 8) { buffer in
            while true {
                let count: Int?
                do {
                    count = try Syscall.inotifyRead(state.descriptor, into: buffer)
                } catch {
                    state.broken = true
                    return
                }
                guard let count, count > 0 else { return }
                InotifyDirectoryWatch.forEachRecord(in: UnsafeRawBufferPointer(rebasing: buffer[..<count])) { watch, mask, name in
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        state.overflows &+= 1
                        return
                    }
                    guard let entry = state.watches[watch] else { return }
                    if !entry.ignored.isEmpty, !name.isEmpty, entry.ignored.contains(String(decoding: name, as: UTF8.self)) { return }
                    state.watches[watch]!.events &+= 1
                    if mask & UInt32(IN_IGNORED | IN_UNMOUNT) != 0 { state.watches[watch]!.dropped = true }
                }
            }
        }
    }

    fileprivate func release(_ watch: Int32) {
        state.withLock { state in
            guard var entry = state.watches[watch] else { return }
            entry.users -= 1
            if entry.users > 0 {
                state.watches[watch] = entry
                return
            }
            state.watches[watch] = nil
            if !entry.dropped { Syscall.inotifyRemoveWatch(state.descriptor, watch) }
        }
    }

    deinit {
        Syscall.close(raw: state.withLock { $0.descriptor })
    }
    #else
    private init?() { return nil }

    package func register(_ directory: DirectoryHandle, ignoringEntriesNamed ignored: Set<String> = []) -> Registration? { nil }

    package func changes(of registrations: [Registration]) -> Count { 0 }

    package var looks: Count { 0 }

    package func changes(of registrations: [Registration], lookedSince mark: Count) -> Count { 0 }

    fileprivate func release(_ watch: Int32) {}
    #endif
}
