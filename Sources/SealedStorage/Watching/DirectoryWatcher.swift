import SystemPackage

/// Reports changes to the entries of one directory as an `AsyncStream`, without polling.
///
/// Watch the *directory*, not a file: an atomic replacement renames a new file over the old
/// one, so a watch on the old file's inode would never see the new content. Each call to
/// ``events()`` starts its own watch, which is in place when the call returns (a change made
/// afterwards is reported) and is torn down, descriptors included, when the stream's consumer
/// goes away.
///
/// ```swift
/// for await event in try DirectoryWatcher(directory: records).events() {
///     if event.kind == .overflow { rescanEverything() } else { reload(event.name!) }
/// }
/// ```
///
/// Linux uses inotify (`DirectoryWatcher+Inotify.swift`), Apple platforms a kqueue vnode source
/// and a rescan (`DirectoryWatcher+Kqueue.swift`); both sit behind ``DirectoryWatchBackend``.
package struct DirectoryWatcher: Sendable {
    /// One change to a directory entry.
    package struct Event: Sendable, Hashable, CustomStringConvertible {
        /// What happened to the entry.
        package enum Kind: String, Sendable, Hashable {
            /// A file was moved into the directory (an atomic replacement lands as this) or a
            /// file opened for writing was closed.
            case written
            /// A file was deleted or moved out of the directory.
            case removed
            /// Events were lost, or the directory itself went away: whatever the consumer
            /// cares about must be re-read.
            case overflow
        }

        /// The entry's name inside the directory; `nil` for ``Kind/overflow``.
        package var name: String?
        /// What happened.
        package var kind: Kind

        package init(name: String?, kind: Kind) {
            self.name = name
            self.kind = kind
        }

        /// The event that tells the consumer to rescan.
        package static let overflow = Event(name: nil, kind: .overflow)

        package var description: String { "\(kind.rawValue) \(name ?? "*")" }
    }

    /// How many events may wait for a slow consumer before the oldest are dropped (and an
    /// ``Event/Kind/overflow`` is queued behind the newest, so the loss is never silent).
    package static let defaultBufferLimit = 4096

    /// The watched directory.
    package let directory: FilePath
    /// The one entry whose writes are reported, or `nil` for every entry's.
    package let entry: String?
    /// See ``defaultBufferLimit``.
    package let bufferLimit: Int

    /// A watcher for `directory`; nothing is opened until ``events()``.
    ///
    /// With `entry`, only that entry's changes are reported, and writes to other entries do
    /// not even wake the watcher: the entry's file is watched itself for writes closed
    /// (`IN_CLOSE_WRITE`), and the directory only for entries created, moved or removed, so a
    /// replaced entry is watched again (its creation reported as ``Event/Kind/written``). For
    /// files written in place and never renamed over, such as notification files, where a
    /// directory watch would wake every observer of every name. On Apple platforms the
    /// directory is watched as without `entry`, and other entries' events are left out.
    package init(directory: FilePath, entry: String? = nil, bufferLimit: Int = DirectoryWatcher.defaultBufferLimit) {
        self.directory = directory
        self.entry = entry
        self.bufferLimit = max(2, bufferLimit)
    }

    /// Starts watching and returns the stream of changes.
    ///
    /// The stream ends when the directory is deleted or moved away (after an
    /// ``Event/Kind/overflow``); ending the consuming task, or dropping the stream, stops the
    /// watch and closes its descriptor.
    /// - Throws: ``StorageError`` when the directory is missing, is not a directory (symbolic
    ///   links are not followed), or the per-user watch limits of the system are reached.
    package func events() throws(StorageError) -> AsyncStream<Event> {
        try events { $0 }
    }

    /// Starts watching and returns the changes `transform` keeps, mapped as it says.
    ///
    /// `transform` runs on the thread that delivers the events (on Linux the one reader thread
    /// every watcher of the process shares, so keep it short) for every event, ``Event/overflow``
    /// included; return `nil` to leave an event out. Filtering here rather than in a second
    /// stream keeps one buffer and one cancellation path.
    package func events<Element: Sendable>(
        _ transform: @escaping @Sendable (Event) -> Element?
    ) throws(StorageError) -> AsyncStream<Element> {
        let backend = try PlatformDirectoryWatchBackend(directory: directory, entry: entry)
        let entry = self.entry
        let kept: @Sendable (Event) -> Element? = { event in
            if let entry, let name = event.name, name != entry { return nil }
            return transform(event)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        // Set before the backend starts, so that a stream the backend finishes by itself
        // (directory deleted) still releases the descriptor.
        continuation.onTermination = { _ in backend.cancel() }
        backend.start(delivering: EventSink(continuation, transform: kept))
        return stream
    }
}

extension DirectoryWatcher {
    /// Where a backend puts events: applies the consumer's transform and turns a dropped event
    /// into an ``Event/Kind/overflow`` the consumer will see.
    package struct EventSink<Element: Sendable>: Sendable {
        private let continuation: AsyncStream<Element>.Continuation
        private let transform: @Sendable (Event) -> Element?

        package init(_ continuation: AsyncStream<Element>.Continuation, transform: @escaping @Sendable (Event) -> Element?) {
            self.continuation = continuation
            self.transform = transform
        }

        /// Delivers `event`. When the buffer is full the oldest waiting event is dropped; an
        /// overflow is then queued behind the newest, so every loss is followed by a rescan.
        package func deliver(_ event: Event) {
            guard let element = transform(event) else { return }
            guard case .dropped = continuation.yield(element), event.kind != .overflow else { return }
            if let overflow = transform(.overflow) {
                continuation.yield(overflow)
            }
        }

        /// Ends the stream (the watched directory is gone); the consumer's loop then ends.
        package func finish() {
            continuation.finish()
        }
    }
}

/// A platform's way of watching one directory. Exactly one type conforms per platform, named
/// `PlatformDirectoryWatchBackend` by its file, so ``DirectoryWatcher`` holds no `#if`.
protocol DirectoryWatchBackend: AnyObject, Sendable {
    /// Opens what the watch needs and puts the watch in place; nothing is delivered yet. With
    /// `entry`, a backend may leave other entries' events out (see
    /// ``DirectoryWatcher/init(directory:entry:bufferLimit:)``).
    init(directory: FilePath, entry: String?) throws(StorageError)
    /// Begins delivering events to `sink` (on the backend's own thread or queue).
    func start<Element: Sendable>(delivering sink: DirectoryWatcher.EventSink<Element>)
    /// Stops the watch and closes every descriptor it holds. Safe to call more than once and
    /// before ``start(delivering:)``.
    func cancel()
}
