#if os(Linux)
import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// The one reader thread every inotify watch of the process shares: it reads each watch for
/// that watch alone, and a watch cancelled or ended leaves it, and its descriptor, at once.
final class DirectoryWatcherReaderTests: XCTestCase {
    private var temporary: TemporaryDirectory!

    override func setUpWithError() throws {
        temporary = try TemporaryDirectory(prefix: "watch-reader")
    }

    override func tearDown() {
        temporary.remove()
    }

    func testEveryWatchOfTheProcessIsReadByOneThread() async throws {
        let recorders = try makeDirectories(8).map { EventRecorder(try DirectoryWatcher(directory: $0).events()) }
        defer { recorders.forEach { $0.cancel() } }

        XCTAssertEqual(ReaderThreads.count(), 1, "threads named GroupVaultWatch")
    }

    func testManyWatchesOnOneReaderEachReceiveTheirOwnDirectorysEventsOnly() async throws {
        let directories = try makeDirectories(32)
        let recorders = try directories.map { EventRecorder(try DirectoryWatcher(directory: $0).events()) }
        defer { recorders.forEach { $0.cancel() } }

        for (index, directory) in directories.enumerated() { try touch(directory.appending("file\(index)")) }
        // inotify delivers in order: another directory's event would be recorded before the marker.
        for directory in directories { try touch(directory.appending("marker")) }

        for (index, recorder) in recorders.enumerated() {
            let events = await recorder.wait { $0.contains { $0.name == "marker" } }
            XCTAssertEqual(events, [.init(name: "file\(index)", kind: .written), .init(name: "marker", kind: .written)], "watch \(index)")
        }
    }

    func testACancelledWatchsDescriptorIsClosedWhenCancelReturnsEvenWithEventsPending() async throws {
        let directory = try makeDirectories(1)[0]
        let before = await InotifyDescriptors.settled()
        let watch = try StartedWatch(directory: directory)
        XCTAssertEqual(InotifyDescriptors.open().subtracting(before).count, 1)
        for index in 0..<200 { try touch(directory.appending("pending\(index)")) }

        watch.cancel()

        XCTAssertEqual(InotifyDescriptors.open().subtracting(before), [], "closed by cancel itself, not later by the reader")
    }

    func testAWatchCancelledWhileItsEventsArePendingLeavesAnotherOnTheSameDirectoryReceiving() async throws {
        let directory = try makeDirectories(1)[0]
        let cancelled = try StartedWatch(directory: directory)
        defer { cancelled.recorder.cancel() }
        let kept = EventRecorder(try DirectoryWatcher(directory: directory).events())
        defer { kept.cancel() }
        for index in 0..<200 { try touch(directory.appending("pending\(index)")) }

        cancelled.backend.cancel()
        try touch(directory.appending("after"))

        let events = await kept.wait { $0.contains { $0.name == "after" } }
        XCTAssertEqual(events.filter { $0.name?.hasPrefix("pending") == true }.count, 200)
        XCTAssertEqual(events.last, .init(name: "after", kind: .written))
        XCTAssertFalse(cancelled.recorder.elements.contains { $0.name == "after" }, "nothing is read for a cancelled watch")
    }

    func testANewWatchGivenACancelledWatchsDescriptorNumberReceivesOnlyItsOwnEvents() async throws {
        let directories = try makeDirectories(2)
        let (first, second) = (directories[0], directories[1])
        let old = try StartedWatch(directory: first)
        defer { old.recorder.cancel() }
        try touch(first.appending("pending"))

        old.backend.cancel()
        // The lowest free number is the one just closed, so this usually gets it.
        let new = try StartedWatch(directory: second)
        defer { new.cancel() }
        try touch(second.appending("fresh"))

        let events = await new.recorder.wait { $0.contains { $0.name == "fresh" } }
        XCTAssertEqual(events, [.init(name: "fresh", kind: .written)])
        XCTAssertFalse(old.recorder.elements.contains { $0.name == "fresh" })
    }

    /// Watches made and cancelled on four tasks while their directory is written (their reads
    /// and their closes meet on the reader thread, which ThreadSanitizer watches in CI), beside
    /// a watch that lives throughout.
    func testWatchesMadeAndCancelledWhileTheReaderReadsThemLeaveNoDescriptorAndDisturbNoOtherWatch() async throws {
        let directories = try makeDirectories(2)
        let (busy, steady) = (directories[0], directories[1])
        let before = await InotifyDescriptors.settled()
        let lasting = EventRecorder(try DirectoryWatcher(directory: steady).events())
        defer { lasting.cancel() }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<25 {
                        let watch = try StartedWatch(directory: busy)
                        try touch(busy.appending("w\(worker)-\(round)"))
                        watch.cancel()
                    }
                }
            }
            try await group.waitForAll()
        }
        try touch(steady.appending("marker"))

        let events = await lasting.wait { $0.contains { $0.name == "marker" } }
        XCTAssertEqual(events, [.init(name: "marker", kind: .written)])
        XCTAssertEqual(InotifyDescriptors.open().subtracting(before).count, 1, "only the lasting watch's descriptor is open")
    }

    func testADeletedDirectoryEndsItsWatchAndLeavesTheOthersReceiving() async throws {
        let directories = try makeDirectories(2)
        let (doomed, steady) = (directories[0], directories[1])
        let ending = EventRecorder(try DirectoryWatcher(directory: doomed).events())
        let lasting = EventRecorder(try DirectoryWatcher(directory: steady).events())
        defer { lasting.cancel() }

        XCTAssertEqual(rmdir(doomed.string), 0)
        let finished = await ending.waitUntilFinished()
        try touch(steady.appending("marker"))

        XCTAssertTrue(finished)
        let events = await lasting.wait { $0.contains { $0.name == "marker" } }
        XCTAssertEqual(events, [.init(name: "marker", kind: .written)])
    }

    // MARK: Helpers

    private func makeDirectories(_ count: Int) throws -> [FilePath] {
        try (0..<count).map { index in
            let directory = FilePath(temporary.path).appending("d\(index)")
            guard mkdir(directory.string, 0o700) == 0 else { throw Errno(rawValue: errno) }
            return directory
        }
    }
}

/// A backend started as ``DirectoryWatcher`` starts it, which a test cancels itself (so the
/// descriptor is closed when `cancel()` returns), and what it delivered.
private struct StartedWatch: Sendable {
    let backend: InotifyDirectoryWatch
    let recorder: EventRecorder<DirectoryWatcher.Event>

    init(directory: FilePath) throws {
        backend = try InotifyDirectoryWatch(directory: directory, entry: nil)
        let (stream, continuation) = AsyncStream.makeStream(of: DirectoryWatcher.Event.self)
        recorder = EventRecorder(stream)
        backend.start(delivering: DirectoryWatcher.EventSink(continuation) { $0 }.delivery)
    }

    /// Cancels the backend (what a stream's end does), then stops recording.
    func cancel() {
        backend.cancel()
        recorder.cancel()
    }
}

/// Creates (or truncates) the file at `path` and closes it: one `IN_CLOSE_WRITE`.
func touch(_ path: FilePath) throws {
    let descriptor = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
    try descriptor.close()
}

/// The threads of this process named as the watchers' reader names its own.
private enum ReaderThreads {
    static func count() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.trimmingCharacters(in: .newlines) == "GroupVaultWatch"
        }.count
    }
}
#endif
