import SystemPackage

/// Reports changes to the entries of one directory, as an `AsyncStream` or to a handler, without
/// polling.
///
/// Watch the *directory*, not a file: an atomic replacement renames a new file over the old
/// one, so a watch on the old file's inode would never see the new content. Each call to
/// ``events()`` or ``watch(ending:_:)`` starts its own watch, which is in place when the call
/// returns (a change made afterwards is reported) and is torn down, descriptors included, when
/// the stream's consumer goes away or the ``DirectoryWatch`` is cancelled or released. The
/// stream is built on the handler, so both report the same events.
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
    /// See ``defaultBufferLimit``; for ``events()`` only, as a handler has no buffer.
    package let bufferLimit: Int

    /// A watcher for `directory`; nothing is opened until ``events()`` or
    /// ``watch(ending:_:)``.
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
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        // Built on the handler, so that which events a watcher reports is decided in one place.
        // If the directory goes away before `onTermination` is set, the backend has closed its
        // descriptors itself, and the watch is cancelled again when the stream is dropped.
        let sink = EventSink(continuation, transform: transform)
        let watch = try watch(ending: sink.finish, sink.deliver)
        continuation.onTermination = { _ in watch.cancelFromStreamTermination() }
        return stream
    }

    /// Starts watching and calls `handler` with each change, on the thread that delivers the
    /// events: on Linux the one reader thread every watch of the process shares, so the handler
    /// must be short and must not block (every other watch of the process waits for it).
    ///
    /// Calls are made one at a time, in the kernel's order, one per event: nothing is buffered
    /// or dropped between the kernel's queue and the handler, and events the kernel itself
    /// dropped arrive as an ``Event/Kind/overflow``. When the directory is
    /// deleted or moved away the handler gets an ``Event/overflow``, then `ending` is called,
    /// and nothing after. Both stop being called when the returned watch is cancelled or
    /// released (see ``DirectoryWatch/cancel()``).
    /// - Throws: as ``events()``.
    package func watch(
        ending: @escaping @Sendable () -> Void = {}, _ handler: @escaping @Sendable (Event) -> Void
    ) throws(StorageError) -> DirectoryWatch {
        let backend = try PlatformDirectoryWatchBackend(directory: directory, entry: entry)
        let entry = self.entry
        let gate = DeliveryGate()
        backend.start(delivering: Delivery(
            event: { event in
                if let entry, let name = event.name, name != entry { return }
                gate.pass { handler(event) }
            },
            end: { gate.pass(ending) }))
        return DirectoryWatch(backend: backend, gate: gate)
    }

    #if os(Linux)
    /// Starts a watch that the calling thread reads itself, with
    /// ``CallerReadWatch/wait(until:)``, rather than the process's reader thread: the
    /// thread blocked in that wait is the one the kernel wakes. Reports what ``watch(ending:_:)``
    /// would; Linux only.
    /// - Throws: as ``events()``, and when the descriptor that ends a wait cannot be made.
    package func watchReadByCaller() throws(StorageError) -> CallerReadWatch {
        let backend = try InotifyDirectoryWatch(directory: directory, entry: entry, readByCaller: true)
        do {
            return try CallerReadWatch(backend: backend)
        } catch {
            throw StorageError(.system(error), operation: "watch directory", path: directory)
        }
    }
    #endif
}

extension DirectoryWatcher {
    /// What a backend calls: with each event, and once when the watch ends by itself (the
    /// directory went away).
    package struct Delivery: Sendable {
        package var event: @Sendable (Event) -> Void
        package var end: @Sendable () -> Void

        package init(event: @escaping @Sendable (Event) -> Void, end: @escaping @Sendable () -> Void) {
            self.event = event
            self.end = end
        }
    }

    /// Puts a watch's events in an `AsyncStream`: applies the consumer's transform and turns a
    /// dropped event into an ``Event/Kind/overflow`` the consumer will see.
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

        /// What a backend calls to fill the stream.
        package var delivery: Delivery {
            Delivery(event: deliver, end: finish)
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
    /// Begins calling `delivery` with the events (on the backend's own thread or queue), one
    /// call at a time.
    func start(delivering delivery: DirectoryWatcher.Delivery)
    /// Stops the watch and closes every descriptor it holds. Safe to call more than once and
    /// before ``start(delivering:)``.
    func cancel()
}
