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
/// file for writing and closes it; observers hold an inotify watch on the directory and wake on
/// the `IN_CLOSE_WRITE` the kernel reports for it. So a post reaches every process that was
/// observing when it was made, the kernel does the fan-out, and nothing runs in between.
///
/// Delivery coalesces like Darwin's: posts that arrive while an observer has a wake-up pending
/// merge into that one, so a burst may be seen as one wake-up, never as zero. If the kernel
/// queue overflows, every observer is woken (it cannot know which names were posted).
///
/// Only identities entitled to the group can build a center (the container is refused to the
/// others), and the directory has the group's sharing mode, so other users can neither post
/// nor observe. See docs/MESSAGING.md.
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
    /// The directory holding one file per posted name.
    let directory: FilePath
    let sharing: FileSharing

    /// A center for `group`, creating its directory in the group container if needed.
    /// - Throws: ``GroupMessagingError/Code/notEntitled`` when the identity is not in the
    ///   application group; ``GroupMessagingError/Code/keyring`` or ``GroupMessagingError/Code/system``
    ///   when the container or the directory cannot be created or is unsafe.
    public init(keyring: Keyring, group: GroupIdentifier) throws(GroupMessagingError) {
        let url: URL?
        do {
            url = try keyring.containerURL(for: group)
        } catch {
            throw .keyring(error, while: "open notifications of \(group)")
        }
        guard let container = url else { throw GroupIPCName.notEntitled(group, keyring: keyring) }
        self.group = group
        self.sharing = keyring.home.sharing.fileSharing
        self.directory = FilePath(container.path).appending("GroupMessaging").appending("notifications")
        do {
            try SafeDirectory.ensure(directory, sharing: sharing)
        } catch {
            throw .storage(error, while: "create the notifications directory of \(group)")
        }
    }

    /// Wakes every process of the group observing `name`.
    /// - Throws: ``GroupMessagingError/Code/invalidName`` for a name outside the allowed set
    ///   (ASCII letters, digits, `-`, `.`, `_`; not starting with `.`; at most 255 bytes);
    ///   ``GroupMessagingError/Code/system`` when the name's file cannot be opened, or is not a
    ///   regular file (something else was put in its place).
    public func post(_ name: String) throws(GroupMessagingError) {
        try Self.check(name)
        let path = directory.appending(name)
        // O_NONBLOCK: a FIFO planted under the name must not block the poster; O_NOFOLLOW: a
        // link must not redirect the open. The write-close is the signal; nothing is written.
        let descriptor = path.withPlatformString { open($0, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode_t(sharing.fileMode)) }
        guard descriptor >= 0 else {
            let error = Errno(rawValue: errno)
            throw GroupMessagingError(.system, "post \(name) in \(group): cannot open \(path): \(error)", underlying: error)
        }
        var status = stat()
        let isRegular = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        // open(2) applied the umask: a 0660 file would come out 0640 under the usual 022, and
        // the other users of a unixGroup home could no longer post. The creator sets it right.
        if isRegular && status.st_uid == geteuid() && status.st_mode & 0o777 != mode_t(sharing.fileMode) {
            _ = fchmod(descriptor, mode_t(sharing.fileMode))
        }
        close(descriptor)
        guard isRegular else {
            throw GroupMessagingError(.system, "post \(name) in \(group): \(path) is not a regular file; remove it")
        }
    }

    /// The wake-ups for `name`, from the moment this returns (a post made afterwards is seen).
    ///
    /// The sequence ends only when the notifications directory is removed; stop observing by
    /// ending the loop (the watch and its descriptor are released).
    /// - Throws: as ``post(_:)`` for the name; ``GroupMessagingError/Code/system`` when the
    ///   watch cannot be set up (for example the per-user inotify limits are reached).
    public func notifications(named name: String) throws(GroupMessagingError) -> AsyncStream<GroupNotification> {
        try Self.check(name)
        let notification = GroupNotification(name: name)
        // A buffer of one pending wake-up (the watcher's minimum of two, newest kept) is the
        // coalescing: a burst while the observer is busy leaves one wake-up waiting, never none.
        let watcher = DirectoryWatcher(directory: directory, bufferLimit: 2)
        do {
            return try watcher.events { event in
                event.kind == .overflow || (event.name == name && event.kind == .written) ? notification : nil
            }
        } catch {
            throw .storage(error, while: "observe \(name) in \(group)")
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
