import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// One wake-up for an observed notification name. Like a Darwin notification it carries no
/// payload: it says "something happened", and the observer reads the state it cares about.
public struct GroupNotification: Sendable, Hashable, CustomStringConvertible {
    /// The notification's name.
    public let name: String
    /// The name.
    public var description: String { name }
}

/// Darwin-style notifications between the processes of one application group: a name, no
/// payload, no daemon.
///
/// Each name is a file in `<container>/GroupMessaging/notifications/`. ``post(_:)`` opens that
/// file for writing and closes it (the first post renames it into place instead); observers
/// hold an inotify watch on it and wake on the `IN_CLOSE_WRITE` (or `IN_MOVED_TO`) the kernel
/// reports. So a post reaches every process that was
/// observing when it was made, the kernel does the fan-out, and nothing runs in between.
///
/// Delivery coalesces like Darwin's: posts that arrive while an observer has a wake-up pending
/// merge into that one, so a burst may be seen as one wake-up, never as zero. If the kernel
/// queue overflows, every observer is woken (it cannot know which names were posted).
///
/// Only identities entitled to the group can build a center (the container is refused to the
/// others), and the directory has the group's sharing mode, so other users can neither post
/// nor observe. The directory is opened once, when the center is made, one name at a time from
/// the keyring's held container (never by a path, which a member could redirect through a
/// link), and every post is relative to that descriptor: a directory swapped for a symbolic
/// link later is not followed.
/// A post opens its file with `O_NOFOLLOW`, and refuses anything but a regular file with one
/// link owned as the sharing mode expects before it changes the file's mode. See
/// docs/MESSAGING.md.
///
/// Observe with an async sequence (``notifications(named:)``); a wake-up sooner, with a
/// handler called on the process's notification reader thread (``observe(_:handler:)``); or,
/// on Linux, a thread of yours waiting itself (``waiter(named:)``), with no other thread between.
///
/// ```swift
/// let center = try GroupNotificationCenter(keyring: keyring, group: group)
/// for await _ in try center.notifications(named: "com.example.signed-in") { reload() }
/// // elsewhere, another process:
/// try center.post("com.example.signed-in")
/// ```
public struct GroupNotificationCenter: Sendable {
    /// The longest name: a file name (`NAME_MAX`).
    public static let maximumNameLength = 255

    /// The application group.
    public let group: GroupIdentifier
    /// The directory holding one file per posted name, held open since the center was made.
    let directory: DirectoryHandle
    let sharing: FileSharing

    /// A center for `group`, creating its directory in the group container if needed.
    /// - Throws: ``GroupMessagingError/Code/notEntitled`` when the identity is not in the
    ///   application group; ``GroupMessagingError/Code/keyring`` or ``GroupMessagingError/Code/system``
    ///   when the container or the directory cannot be created or is unsafe.
    public init(keyring: Keyring, group: GroupIdentifier) throws(GroupMessagingError) {
        // The container held open, never its path: in a unixGroup home a member can swap
        // `Group Containers` for a link to a private directory of this user's at any moment,
        // and reopening a path the keyring vetted would follow it. `GroupMessaging/notifications`
        // is reached from the held container one name at a time.
        let held: DirectoryHandle?
        do {
            held = try keyring.containerDirectory(for: group)
        } catch {
            throw .keyring(error, while: "open notifications of \(group)")
        }
        guard let container = held else { throw GroupIPCName.notEntitled(group, keyring: keyring) }
        self.group = group
        // The held container's sharing: in a unixGroup home it carries the home's group.
        self.sharing = container.sharing
        do {
            self.directory = try container.subdirectory(creating: "GroupMessaging").subdirectory(creating: "notifications")
        } catch {
            throw .storage(error, while: "create the notifications directory of \(group)")
        }
    }

    /// Wakes every process of the group observing `name`.
    /// - Throws: ``GroupMessagingError/Code/invalidName`` for a name outside the allowed set
    ///   (ASCII letters, digits, `-`, `.`, `_`; not starting with `.`; at most 255 bytes);
    ///   ``GroupMessagingError/Code/system`` when the name's file cannot be opened, or is not a
    ///   regular file with one link owned as the sharing mode expects (something else was put
    ///   in its place: a symbolic or hard link, a FIFO, a directory); it is then left alone.
    public func post(_ name: String) throws(GroupMessagingError) {
        try Self.check(name)
        let path = directory.path.appending(name)
        func refusal(_ reason: String, _ error: (any Error & Sendable)? = nil) -> GroupMessagingError {
            GroupMessagingError(.system, "post \(name) in \(group): \(path) \(reason)", underlyingError: error)
        }
        // Relative to the held directory; nothing is written: the write-close is the signal.
        // An existing file is vetted before it is opened (Syscall.openVetted): a regular file
        // with one link, owned and moded as the group's, never a link, FIFO or directory; and
        // vetted unopened, because opening and closing another name of a file this process
        // holds SQLite's locks on (keyring.db, hard-linked here by a member) would drop them.
        // A missing file is created exclusively: a new inode is nobody else's.
        let opened: (FileDescriptor, Stat)
        if let existing = try openExisting(name, path: path, refusal: refusal) {
            opened = existing
        } else {
            switch try publishNew(name, path: path, refusal: refusal) {
            case .published:
                // The rename into place was the signal; nobody has the file open for writing.
                return
            case .taken:
                guard let existing = try openExisting(name, path: path, refusal: refusal) else {
                    throw refusal("appeared and vanished while it was being created; post again", Errno.noSuchFileOrDirectory)
                }
                opened = existing
            case .unsupported:
                opened = try createNew(name, path: path, refusal: refusal)
            }
        }
        let (file, status) = opened
        defer { Syscall.close(file) }
        // open(2) applied the umask: a 0660 file would come out 0640 under the usual 022, and
        // the other users of a unixGroup home could no longer post. The creator sets it right;
        // only the owner can. The mode is compared first: it is almost always right already,
        // and the owner check is a system call on every post.
        guard UInt16(status.permissions.rawValue) & 0o7777 != sharing.fileMode,
              UInt32(status.userID.rawValue) == Syscall.effectiveUserID else { return }
        do {
            try Syscall.changeMode(file, to: sharing.fileMode)
        } catch {
            throw refusal("cannot be given mode \(String(sharing.fileMode, radix: 8)): \(error)", error)
        }
    }

    /// The existing notification file `name`, vetted before it is opened, or `nil` when there is none.
    private func openExisting(
        _ name: String, path: FilePath, refusal: (String, (any Error & Sendable)?) -> GroupMessagingError
    ) throws(GroupMessagingError) -> (FileDescriptor, Stat)? {
        let sharing = self.sharing
        do {
            // O_NONBLOCK: the vetting refuses a FIFO, but nothing the poster opens may block it.
            return try Syscall.openVetted(name, in: directory.descriptor, .writeOnly, options: [.nonBlocking],
                                          path: path, operation: "post") { (status: Stat) throws(StorageError) in
                try SafeDirectory.checkOwnerAndMode(status, path: path, sharing: sharing, operation: "post")
            }
        } catch {
            throw refusal("is not a file this group may use (\(error)); it was left alone: remove it", error)
        }
    }

    /// What a first post's ``publishNew(_:path:refusal:)`` did.
    private enum FirstPost {
        /// The file was published under its name: that was the post.
        case published
        /// Another poster published it first: post to it as to an existing file.
        case taken
        /// The file system cannot rename without replacing: create it in place instead.
        case unsupported
    }

    /// Makes the name's file appear complete, in one step: created empty with its exact mode
    /// under a hidden temporary name, closed, then renamed to `name` unless it exists
    /// (`renameat2(RENAME_NOREPLACE)`). Observers see the name moved in (`IN_MOVED_TO`) and
    /// nothing after it. Created in place instead, the file would be seen appearing and then,
    /// once its watch is in place, closed after writing: two wake-ups for one post.
    private func publishNew(
        _ name: String, path: FilePath, refusal: (String, (any Error & Sendable)?) -> GroupMessagingError
    ) throws(GroupMessagingError) -> FirstPost {
        let temporary = AtomicFile.temporaryPrefix(for: FilePath(name)) + SecureRandom.hex(count: AtomicFile.suffixLength / 2)
        do {
            Syscall.close(try directory.createFile(temporary, .writeOnly))
        } catch {
            throw refusal("cannot be created (\(error))", error)
        }
        do {
            try Syscall.renameNoReplace(temporary, to: name, in: directory.descriptor)
            return .published
        } catch {
            try? Syscall.unlink(temporary, in: directory.descriptor)
            switch error {
            case .fileExists: return .taken
            case .invalidArgument, .noFunction: return .unsupported
            default: throw refusal("cannot be created (\(error))", error)
            }
        }
    }

    /// A new notification file `name`, created exclusively in place, where the file system
    /// cannot rename without replacing; a file another poster created first is opened as an
    /// existing one.
    private func createNew(
        _ name: String, path: FilePath, refusal: (String, (any Error & Sendable)?) -> GroupMessagingError
    ) throws(GroupMessagingError) -> (FileDescriptor, Stat) {
        let file: FileDescriptor
        do {
            file = try Syscall.open(name, in: directory.descriptor, .writeOnly,
                                    options: [.create, .exclusiveCreate, .noFollow, .nonBlocking, .closeOnExec],
                                    permissions: FilePermissions(rawValue: CModeT(sharing.fileMode)))
        } catch .fileExists {
            guard let existing = try openExisting(name, path: path, refusal: refusal) else {
                throw refusal("appeared and vanished while it was being created; post again", Errno.fileExists)
            }
            return existing
        } catch {
            throw refusal("cannot be created (\(error))", error)
        }
        do {
            return (file, try Syscall.status(file))
        } catch {
            Syscall.close(file)
            throw refusal("cannot be checked: \(error)", error)
        }
    }

    /// The wake-ups for `name`, from the moment this returns (a post made afterwards is seen).
    ///
    /// The sequence ends only when the notifications directory is removed; stop observing by
    /// ending the loop (the watch and its descriptor are released). Each wake-up resumes the
    /// observing task on a thread of Swift's pool, and a task on an actor (the main actor
    /// included) then on its actor, one thread wake-up more; ``observe(_:handler:)`` calls a
    /// handler on the thread that read the post instead, a wake-up sooner.
    /// - Throws: as ``post(_:)`` for the name; ``GroupMessagingError/Code/system`` when the
    ///   watch cannot be set up (for example the per-user inotify limits are reached).
    public func notifications(named name: String) throws(GroupMessagingError) -> AsyncStream<GroupNotification> {
        // One pending wake-up, the newest kept, is the coalescing: a burst while the observer is
        // busy leaves one wake-up waiting, never none.
        let (stream, continuation) = AsyncStream.makeStream(of: GroupNotification.self, bufferingPolicy: .bufferingNewest(1))
        let watch = try watch(name, ending: { continuation.finish() }) { continuation.yield($0) }
        continuation.onTermination = { _ in watch.cancelFromStreamTermination() }
        return stream
    }

    /// Calls `handler` at each post of `name`, from the moment this returns (a post made
    /// afterwards is seen), until the returned observation is cancelled or released: the
    /// callback observer of Darwin's `notify_register_dispatch` and
    /// `CFNotificationCenterAddObserver`, beside the sequence of ``notifications(named:)``.
    ///
    /// `handler` runs on the process's notification reader thread, the one thread that reads
    /// every observer's watch (and every other directory watch of GroupVault in the process): no
    /// task is resumed and no other thread woken between the post and the call. So keep it
    /// short and never block in it: every other observer of the process waits for it. For real
    /// work, hop to your own queue or actor (`Task { await model.reload() }`).
    ///
    /// Calls come one at a time, never concurrently, one per event the kernel queued. Posts
    /// coalesce as the kernel queues them: one that finds the previous post's event still
    /// unread merges into it, so a burst may be one call, never none, and a post made while
    /// `handler` runs is followed by at least one more call. A kernel queue overflow calls every observer's handler; so does the removal
    /// of the notifications directory, once, after which the handler is never called again.
    ///
    /// When ``GroupNotificationObservation/cancel()`` returns, `handler` is not running and will
    /// never be called again; called from inside `handler`, it makes that call the last. To
    /// observe as an `AsyncStream`, use ``notifications(named:)`` rather than a handler that
    /// yields into a stream of your own: a stream's `onTermination` runs holding the consuming
    /// task's lock, which a yield in progress needs, so it must not wait in `cancel()`.
    ///
    /// ```swift
    /// let observation = try center.observe("com.example.signed-in") { _ in
    ///     Task { await session.reload() }
    /// }
    /// // ... and when the screen goes away:
    /// observation.cancel()
    /// ```
    /// - Throws: as ``notifications(named:)``.
    public func observe(
        _ name: String, handler: @escaping @Sendable (GroupNotification) -> Void
    ) throws(GroupMessagingError) -> GroupNotificationObservation {
        GroupNotificationObservation(watch: try watch(name, ending: {}, handler))
    }

    #if os(Linux)
    /// An observer of `name` that a thread of yours waits on itself, from the moment this
    /// returns (a post made afterwards is seen): ``GroupNotificationWaiter/wait(timeout:)``
    /// blocks the calling thread until a post, and its
    /// ``GroupNotificationWaiter/fileDescriptor`` can join an event loop of yours, like the
    /// descriptor of Darwin's `notify_register_file_descriptor`.
    ///
    /// The kernel wakes the waiting thread itself: no reader thread, task or queue runs between
    /// the post and the return, the fewest wake-ups of the three ways to observe. For a daemon's
    /// own thread or event loop and a command-line tool; an app observes with
    /// ``notifications(named:)`` or ``observe(_:handler:)``. Linux only.
    /// - Throws: as ``notifications(named:)``.
    public func waiter(named name: String) throws(GroupMessagingError) -> GroupNotificationWaiter {
        try Self.check(name)
        try checkPathStillNamesTheDirectory(observing: name)
        let watch: CallerReadWatch
        do {
            watch = try DirectoryWatcher(directory: directory.path, entry: name).watchReadByCaller()
        } catch {
            throw .storage(error, while: "observe \(name) in \(group)")
        }
        // Dropping the watch on a refusal ends it and closes its descriptors.
        try checkPathStillNamesTheDirectory(observing: name)
        return GroupNotificationWaiter(name: name, group: group, watch: watch)
    }
    #endif

    /// Puts the watch of `name` in place and calls `handler` with each of its wake-ups (and
    /// `ending` when the directory goes away): what ``notifications(named:)`` and
    /// ``observe(_:handler:)`` share, so that both wake for the same events.
    private func watch(
        _ name: String, ending: @escaping @Sendable () -> Void, _ handler: @escaping @Sendable (GroupNotification) -> Void
    ) throws(GroupMessagingError) -> DirectoryWatch {
        try Self.check(name)
        let notification = GroupNotification(name: name)
        // inotify watches a path; the watch must be on the directory posts go to, so the path
        // must still name the held directory, before and after the watch is in place.
        try checkPathStillNamesTheDirectory(observing: name)
        // The name's own file is watched, so other names' posts do not wake this observer.
        let watch: DirectoryWatch
        do {
            // The watcher reports this name's events only (and overflows).
            watch = try DirectoryWatcher(directory: directory.path, entry: name).watch(ending: ending) { event in
                if event.kind == .overflow || event.kind == .written { handler(notification) }
            }
        } catch {
            throw .storage(error, while: "observe \(name) in \(group)")
        }
        // Dropping the watch on a refusal ends it and closes its descriptor.
        try checkPathStillNamesTheDirectory(observing: name)
        return watch
    }

    /// Refuses to observe when the notifications directory's path no longer names the directory
    /// this center holds (another member renamed something over it): a watch there would wait
    /// for posts that go elsewhere.
    private func checkPathStillNamesTheDirectory(observing name: String) throws(GroupMessagingError) {
        let stillNamed: Bool
        do {
            stillNamed = try directory.isNamed(by: directory.path)
        } catch {
            throw GroupMessagingError(.system, "observe \(name) in \(group): cannot check \(directory.path): \(error)", underlyingError: error)
        }
        guard stillNamed else {
            throw GroupMessagingError(.system, "observe \(name) in \(group): \(directory.path) was replaced since this center opened it; it was left alone: make a new center")
        }
    }

    static func check(_ name: String) throws(GroupMessagingError) {
        if let problem = GroupIPCName.problem(withName: name) {
            throw GroupMessagingError(.invalidName, "notification name \"\(UntrustedText.printable(name, limit: 80))\" is not valid: \(problem)")
        }
        let length = name.utf8.count
        if length > maximumNameLength {
            throw GroupMessagingError(.invalidName, "notification name is \(length) bytes; the limit is \(maximumNameLength) (NAME_MAX, since each name is a file); shorten it by \(length - maximumNameLength) bytes")
        }
    }
}
