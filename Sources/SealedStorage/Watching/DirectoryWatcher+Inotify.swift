#if os(Linux)
import Glibc
import SystemPackage

/// The Linux backend of ``DirectoryWatcher``.
typealias PlatformDirectoryWatchBackend = InotifyDirectoryWatch

/// One inotify instance with one watch on a directory, read by the process's one
/// ``InotifyReader`` thread, which delivers its events in place, or by the thread that waits
/// for it (``CallerReadWatch``).
///
/// The descriptor is non-blocking and, unless the caller reads it, in the reader's epoll set
/// from the moment the watch is made (reported only once started); nothing polls on a timer.
/// Reading it and closing it both happen under the watch's lock, and a read first checks the
/// watch is still started: a cancel that comes while the reader is reading waits for the read,
/// and a read that comes after the close reads nothing, so no read ever reaches a closed
/// descriptor, or a new one given its number.
package final class InotifyDirectoryWatch: DirectoryWatchBackend, @unchecked Sendable {
    // @unchecked: `state` and `entryWatch` are read and written only while holding `lock`;
    // everything else is immutable.

    private enum State {
        case ready
        case started(Delivery)
        case cancelled
    }

    private typealias Delivery = DirectoryWatcher.Delivery

    /// What the watch asks the kernel for. IN_CLOSE_WRITE fires only for files opened for
    /// writing; IN_ONLYDIR refuses anything but a directory, and IN_DONT_FOLLOW a symbolic link
    /// in place of it when the path itself is watched (without `/proc`; see
    /// ``addWatches(_:held:directory:mask:)``); the *_SELF events and IN_UNMOUNT say the
    /// directory itself went away.
    static let mask: UInt32 = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM)
        | UInt32(IN_DELETE_SELF | IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR | IN_DONT_FOLLOW)

    /// The directory's mask when one entry is watched: no IN_CLOSE_WRITE, which would wake this
    /// watcher for every other entry's writes; IN_CREATE instead, so an entry that appears (or
    /// reappears) is watched from then on.
    static let entryDirectoryMask: UInt32 = (mask & ~UInt32(IN_CLOSE_WRITE)) | UInt32(IN_CREATE)

    /// The watched entry's own mask: its writes, closed. Its removal is seen on the directory.
    static let entryMask = UInt32(IN_CLOSE_WRITE)

    /// `sizeof(struct inotify_event)`: the fixed part before the name.
    static let headerSize = 16
    /// A read must have room for at least one event with the longest name (NAME_MAX + NUL),
    /// or the kernel answers EINVAL; 16 KiB takes dozens of events per system call.
    static let readBufferSize = 16 * 1024

    /// What the second watch, on the directory's parent, asks for: the directory's own name
    /// removed or moved away. The directory's *_SELF events are not enough: the kernel sends
    /// IN_DELETE_SELF only once the last reference to the directory is gone, and a process
    /// that holds it open by descriptor (a ``DirectoryHandle``, as a Vault does) keeps one.
    static let parentMask: UInt32 = UInt32(IN_DELETE | IN_MOVED_FROM) | UInt32(IN_ONLYDIR | IN_DONT_FOLLOW)

    /// The parent's watch descriptor and the watched directory's name in it.
    package struct ParentWatch: Equatable, Sendable {
        package var watch: Int32
        package var name: String
    }

    /// The one entry watched for writes, its own watch descriptor while it has one, and the
    /// directory's.
    package struct EntryWatch: Equatable, Sendable {
        package var name: String
        package var watch: Int32?
        /// The directory's watch: in entry mode, only its (and its parent's) ending says the
        /// directory went away; a watch of an entry replaced since ends too, and means nothing.
        package var directoryWatch: Int32

        package init(name: String, watch: Int32?, directoryWatch: Int32) {
            self.name = name
            self.watch = watch
            self.directoryWatch = directoryWatch
        }
    }

    private let descriptor: Int32
    private let directory: FilePath
    private let parentWatch: ParentWatch?
    /// The watched directory, held open (lookup only) when one entry is watched: the entry is
    /// opened inside it each time it reappears. Closed with the inotify descriptor.
    private let heldDirectory: FileDescriptor?
    /// The process's reader thread, or `nil` when the caller reads the watch itself.
    private let reader: InotifyReader?
    /// The descriptor's token in the reader's epoll set (0 without a reader).
    private let token: UInt64
    private let lock = Lock()
    /// Guarded by `lock`.
    private var state = State.ready
    /// Guarded by `lock`: replaced by the reader when the entry reappears.
    private var entryWatch: EntryWatch?

    package convenience init(directory: FilePath, entry: String?) throws(StorageError) {
        try self.init(directory: directory, entry: entry, readByCaller: false)
    }

    /// A watch of `directory` (or of its `entry`), read by the process's reader thread or, with
    /// `readByCaller`, only by ``readQueued(using:)`` calls of the caller's own.
    package init(directory: FilePath, entry: String?, readByCaller: Bool) throws(StorageError) {
        let descriptor: Int32
        do {
            descriptor = try Syscall.inotifyInit(flags: Int32(IN_NONBLOCK | IN_CLOEXEC))
        } catch {
            // EMFILE here is the per-user instance limit, not the descriptor table.
            let hint = error == .tooManyOpenFiles
                ? "the per-user limit fs.inotify.max_user_instances may be reached; raise it with sysctl"
                : nil
            throw StorageError(.system(error), operation: "create inotify instance", path: directory, hint: hint)
        }
        let held: FileDescriptor
        do {
            held = try Syscall.openDirectory(directory, lookupOnly: true)
        } catch {
            Syscall.close(raw: descriptor)
            throw StorageError(.system(error), operation: "watch directory", path: directory)
        }
        let parentWatch: ParentWatch?
        var entryWatch: EntryWatch?
        do {
            let watches = try Self.addWatches(descriptor, held: held, directory: directory,
                                              mask: entry == nil ? Self.mask : Self.entryDirectoryMask)
            parentWatch = watches.parent
            if let entry {
                // After the directory's watch: an entry created in between is reported by it.
                entryWatch = EntryWatch(name: entry, watch: Self.addEntryWatch(descriptor, entry: entry, in: held, directory: directory),
                                        directoryWatch: watches.directory)
            }
        } catch {
            Syscall.close(held)
            Syscall.close(raw: descriptor)
            throw error
        }
        if entry == nil { Syscall.close(held) }
        var reader: InotifyReader?
        var token: UInt64 = 0
        do {
            if !readByCaller {
                let shared = try InotifyReader.shared(for: directory)
                token = try shared.add(descriptor, directory: directory)
                reader = shared
            }
        } catch {
            if entry != nil { Syscall.close(held) }
            Syscall.close(raw: descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.directory = directory
        self.parentWatch = parentWatch
        self.heldDirectory = entry == nil ? nil : held
        self.entryWatch = entryWatch
        self.reader = reader
        self.token = token
    }

    /// Puts the watches on `directory` and on its parent in place; the parent's watch, if any.
    ///
    /// Each directory is opened first (`O_DIRECTORY | O_NOFOLLOW`) and the watch put on what was
    /// opened, through `/proc/self/fd/N`: a directory of the path swapped for a symbolic link
    /// while the watch is set up is not followed, so the events are the opened directory's and
    /// not those of one the swapper chose. The directory must still be its parent's entry of
    /// that name (same device and inode), or the two watches would not be about one directory.
    /// Without `/proc` the paths are watched with `IN_DONT_FOLLOW | IN_ONLYDIR`, which refuses a
    /// link in the last component only.
    private static func addWatches(
        _ descriptor: Int32, held: FileDescriptor, directory: FilePath, mask: UInt32
    ) throws(StorageError) -> (directory: Int32, parent: ParentWatch?) {
        let parent = directory.removingLastComponent()
        guard let name = directory.lastComponent?.string, parent != directory, !parent.isEmpty else {
            return (try addWatch(descriptor, held: held, path: directory, mask: mask), nil)
        }
        // Both are opened, and found to be one directory and its parent, before either watch
        // is added: what is swapped afterwards changes nothing that is watched.
        let heldParent: FileDescriptor
        do {
            heldParent = try Syscall.openDirectory(parent, lookupOnly: true)
        } catch {
            throw StorageError(.system(error), operation: "watch directory", path: parent)
        }
        defer { Syscall.close(heldParent) }
        do {
            let opened = try Syscall.status(held)
            let entry = try Syscall.statusIfPresent(name, in: heldParent)
            guard let entry, entry.deviceID == opened.deviceID, entry.inode == opened.inode else {
                throw StorageError(.system(.resourceTemporarilyUnavailable), operation: "watch directory", path: directory,
                                   hint: "the directory was moved or replaced while its watch was set up; retry")
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.system(error as? Errno ?? .ioError), operation: "watch directory", path: directory)
        }
        let directoryWatch = try addWatch(descriptor, held: held, path: directory, mask: mask)
        return (directoryWatch, ParentWatch(watch: try addWatch(descriptor, held: heldParent, path: parent, mask: parentMask), name: name))
    }

    /// Puts a watch on `entry` in the directory `held` and returns it, or `nil` when there is
    /// no such entry yet (its creation is then reported by the directory's watch).
    ///
    /// The entry is opened first (`O_PATH | O_NOFOLLOW`: nothing is read, a FIFO does not block,
    /// a symbolic link is not followed) and the watch put on what was opened, through `/proc`,
    /// so what is watched is the entry itself and not what its path names a moment later.
    /// When that watch cannot be made (no `/proc`, the per-user watch limit), the directory's
    /// watch takes IN_CLOSE_WRITE back: every entry's writes wake the watcher again, as without
    /// `entry`, but none of the entry's is missed.
    private static func addEntryWatch(_ descriptor: Int32, entry: String, in held: FileDescriptor, directory: FilePath) -> Int32? {
        guard let opened = try? Syscall.openEntryForWatching(entry, in: held) else { return nil }
        defer { Syscall.close(opened) }
        if let watch = try? Syscall.inotifyAddWatch(descriptor, opened: opened, mask: entryMask) { return watch }
        // The same directory, so the kernel replaces its watch's mask.
        _ = try? addWatch(descriptor, held: held, path: directory, mask: mask)
        return nil
    }

    /// One watch on the directory open as `held` (whose path is `path`, for messages and for
    /// the fallback without `/proc`).
    @discardableResult
    private static func addWatch(_ descriptor: Int32, held: FileDescriptor, path: FilePath, mask: UInt32) throws(StorageError) -> Int32 {
        do {
            do {
                return try Syscall.inotifyAddWatch(descriptor, opened: held, mask: mask)
            } catch .noSuchFileOrDirectory {
                // The directory is held open, so only /proc can be missing.
                return try Syscall.inotifyAddWatch(descriptor, path, mask: mask)
            }
        } catch {
            // ENOSPC from inotify_add_watch is the per-user watch limit, not a full disk.
            let hint = error == .noSpace
                ? "ENOSPC here means the per-user limit fs.inotify.max_user_watches is reached, not a full disk; raise it with sysctl"
                : nil
            throw StorageError(.system(error), operation: "watch directory", path: path, hint: hint)
        }
    }

    package func start(delivering delivery: DirectoryWatcher.Delivery) {
        let failed: Delivery? = lock.withLock {
            guard case .ready = state else { return nil }
            state = .started(delivery)
            do {
                try reader?.start(self, token: token, descriptor: descriptor)
                return nil
            } catch {
                // The set already holds the descriptor, so this cannot fail for want of
                // memory or of a watch: say "rescan" and end rather than never report.
                close()
                return delivery
            }
        }
        if let failed { Self.end(failed) }
    }

    package func cancel() {
        lock.withLock { close() }
    }

    /// Ends the watch as if its directory went away: the reader can read it no longer.
    func end() {
        let delivery: Delivery? = lock.withLock {
            guard case .started(let delivery) = state else { return nil }
            close()
            return delivery
        }
        if let delivery { Self.end(delivery) }
    }

    /// Takes the descriptor out of the reader's set and closes everything; holding `lock`.
    private func close() {
        guard !isCancelled else { return }
        state = .cancelled
        reader?.remove(token: token, descriptor: descriptor)
        Syscall.close(raw: descriptor)
        if let heldDirectory { Syscall.close(heldDirectory) }
    }

    /// Holding `lock`.
    private var isCancelled: Bool {
        if case .cancelled = state { return true }
        return false
    }

    /// Says "rescan" and ends the delivery; never holding `lock`, as the end (a stream's
    /// `onTermination`, say) may cancel the watch.
    private static func end(_ delivery: Delivery) {
        delivery.event(.overflow)
        delivery.end()
    }

    /// The inotify descriptor, for a caller that reads the watch itself to wait on; closed by
    /// ``cancel()``.
    var inotifyDescriptor: Int32 { descriptor }

    /// Reads the queued events once and delivers them; run by the reader thread (or the
    /// caller that reads the watch itself), with its buffer, when the descriptor is ready. What
    /// one read leaves is reported again (the set, and `poll`, are level-triggered): one read per
    /// wake-up, not a second one to find the queue empty.
    ///
    /// The read, and the new watch of a reappeared entry, are made holding `lock`, so a cancel
    /// cannot close the descriptor under them; the events are delivered after it is released,
    /// as the consumer's handler, and the stream's end, may call back into ``cancel()``.
    func readQueued(using buffer: UnsafeMutableRawBufferPointer) {
        let read: (Delivery, ParsedEvents)? = lock.withLock {
            guard case .started(let delivery) = state else { return nil }
            let count: Int
            do {
                guard let bytes = try Syscall.inotifyRead(descriptor, into: buffer), bytes > 0 else { return nil }
                count = bytes
            } catch {
                // The descriptor is unusable: say "rescan" and end rather than spin.
                close()
                return (delivery, ParsedEvents(directoryGone: true))
            }
            let parsed = Self.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]),
                                    parentWatch: parentWatch, entryWatch: entryWatch)
            if parsed.entryReappeared, let heldDirectory, var watched = entryWatch {
                // Before the creation is delivered: a write the consumer could miss between
                // the two is then reported by the new watch.
                watched.watch = Self.addEntryWatch(descriptor, entry: watched.name, in: heldDirectory, directory: directory)
                entryWatch = watched
            }
            if parsed.directoryGone {
                // Out of the set now: what the kernel queues after the directory went away
                // (IN_IGNORED) would otherwise be reported, and read, until the consumer cancels.
                close()
            }
            return (delivery, parsed)
        }
        guard let (delivery, parsed) = read else { return }
        for event in parsed.events { delivery.event(event) }
        if parsed.directoryGone { Self.end(delivery) }
    }

    /// What one read of the inotify descriptor said.
    package struct ParsedEvents: Equatable {
        /// The entry events, in order.
        package var events: [DirectoryWatcher.Event] = []
        /// The watched directory was deleted, moved, unmounted, or its watch removed.
        package var directoryGone = false
        /// The watched entry was created or moved into the directory: it needs a new watch.
        package var entryReappeared = false
    }

    /// Calls `body` with each variable-length `struct inotify_event` record in `bytes`: its
    /// watch descriptor, its mask and its name's bytes, without the NULs the kernel pads it with.
    ///
    /// Every field is read with `loadUnaligned` at an offset checked against the buffer, and a
    /// record whose name would run past the end stops the walk, so a short or malformed buffer
    /// yields fewer records, never an out-of-bounds read.
    static func forEachRecord(
        in bytes: UnsafeRawBufferPointer, _ body: (_ watch: Int32, _ mask: UInt32, _ name: UnsafeRawBufferPointer) -> Void
    ) {
        var offset = 0
        while bytes.count - offset >= headerSize {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            guard nameLength <= bytes.count - offset - headerSize else { return }
            let padded = UnsafeRawBufferPointer(rebasing: bytes[(offset + headerSize)..<(offset + headerSize + nameLength)])
            offset += headerSize + nameLength
            body(watch, mask, UnsafeRawBufferPointer(rebasing: padded.prefix { $0 != 0 }))
        }
    }

    /// Parses the `struct inotify_event` records in `bytes` (``forEachRecord(in:_:)``).
    ///
    /// Events of `parentWatch` say only whether the watched directory's name went away; those
    /// of `entryWatch`'s own watch (which carry no name) are the entry's writes, and with an
    /// `entryWatch` other entries' events are left out.
    package static func parse(
        _ bytes: UnsafeRawBufferPointer, parentWatch: ParentWatch? = nil, entryWatch: EntryWatch? = nil
    ) -> ParsedEvents {
        var result = ParsedEvents()
        forEachRecord(in: bytes) { watch, mask, nameBytes in
            let name = String(decoding: nameBytes, as: UTF8.self)
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                result.events.append(.overflow)
                return
            }
            if let entryWatch, let entry = entryWatch.watch, watch == entry {
                // The entry's own watch; its IN_IGNORED (the entry deleted) is about the entry,
                // not the directory, whose watch reports the removal by name.
                if mask & UInt32(IN_CLOSE_WRITE) != 0 {
                    result.events.append(DirectoryWatcher.Event(name: entryWatch.name, kind: .written))
                }
                return
            }
            if let entryWatch, watch != entryWatch.directoryWatch, watch != parentWatch?.watch {
                // The watch of an entry replaced since: its IN_IGNORED, once that file is gone,
                // says nothing about the directory.
                return
            }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED) != 0 {
                result.directoryGone = true
                return
            }
            if let parentWatch, watch == parentWatch.watch {
                if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0, name == parentWatch.name {
                    result.directoryGone = true
                }
                return
            }
            // Subdirectories are not records of anything this watcher serves.
            if mask & UInt32(IN_ISDIR) != 0 || name.isEmpty { return }
            if let entryWatch {
                guard name == entryWatch.name else { return }
                if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    result.entryReappeared = true
                    result.events.append(DirectoryWatcher.Event(name: name, kind: .written))
                    return
                }
            }
            if mask & UInt32(IN_MOVED_TO | IN_CLOSE_WRITE) != 0 {
                result.events.append(DirectoryWatcher.Event(name: name, kind: .written))
            } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                result.events.append(DirectoryWatcher.Event(name: name, kind: .removed))
            }
        }
        return result
    }
}
#endif
