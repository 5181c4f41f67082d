#if os(Linux)
import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// A watch that calls a handler (`DirectoryWatcher.watch`): on the reader thread, with the
/// events a stream would get, and never once `cancel()` has returned, even when the cancel
/// races a delivery (these run under ThreadSanitizer in CI).
final class DirectoryWatcherHandlerTests: XCTestCase {
    private var temporary: TemporaryDirectory!
    private var directory: FilePath { FilePath(temporary.path) }

    override func setUpWithError() throws {
        temporary = try TemporaryDirectory(prefix: "watch-handler")
    }

    override func tearDown() {
        temporary.remove()
    }

    // MARK: Calls

    func testTheHandlerIsCalledWithEachEventInTheKernelsOrder() async throws {
        let calls = HandlerCalls()
        let watch = try DirectoryWatcher(directory: directory).watch(calls.record)
        defer { watch.cancel() }

        for name in ["a", "b", "c"] { try touch(directory.appending(name)) }

        let events = await calls.wait { $0.count >= 3 }
        XCTAssertEqual(events, ["a", "b", "c"].map { .init(name: $0, kind: .written) })
    }

    func testTheHandlerRunsOnTheWatchersReaderThread() async throws {
        let threads = Locked<[String]>([])
        let calls = HandlerCalls()
        let watch = try DirectoryWatcher(directory: directory).watch { event in
            threads.withLock { $0.append(currentThreadName()) }
            calls.record(event)
        }
        defer { watch.cancel() }

        try touch(directory.appending("file"))

        _ = await calls.wait { !$0.isEmpty }
        XCTAssertEqual(threads.withLock { $0 }, ["GroupVaultWatch"])
    }

    func testAnEntryWatchsHandlerIsCalledForThatEntryOnly() async throws {
        try touch(directory.appending("wanted"))
        let calls = HandlerCalls()
        let watch = try DirectoryWatcher(directory: directory, entry: "wanted").watch(calls.record)
        defer { watch.cancel() }

        for _ in 1...3 { try touch(directory.appending("other")) }
        try touch(directory.appending("wanted"))

        // In order: another entry's event would be recorded before the wanted one's.
        let events = await calls.wait { !$0.isEmpty }
        XCTAssertEqual(events, [.init(name: "wanted", kind: .written)])
    }

    func testADeletedDirectoryCallsTheHandlerWithOverflowAndThenEnds() async throws {
        let doomed = directory.appending("doomed")
        XCTAssertEqual(mkdir(doomed.string, 0o700), 0)
        let calls = HandlerCalls()
        let watch = try DirectoryWatcher(directory: doomed).watch(ending: calls.end, calls.record)
        defer { watch.cancel() }

        XCTAssertEqual(rmdir(doomed.string), 0)

        let ended = await calls.waitUntilEnded()
        XCTAssertTrue(ended)
        XCTAssertEqual(calls.events, [.overflow])
    }

    // MARK: Cancelling

    func testTheHandlerIsNeverCalledAfterCancelReturns() async throws {
        let cancelled = HandlerCalls()
        let watch = try DirectoryWatcher(directory: directory).watch(cancelled.record)
        let witness = HandlerCalls()
        let witnessWatch = try DirectoryWatcher(directory: directory).watch(witness.record)
        defer { witnessWatch.cancel() }
        for index in 0..<50 { try touch(directory.appending("before\(index)")) }

        watch.cancel()
        let recordedAtCancel = cancelled.events
        for index in 0..<50 { try touch(directory.appending("after\(index)")) }

        // The witness watches the same directory: once it has the last event, the reader has
        // read everything for the cancelled watch too, had it still been read.
        _ = await witness.wait { $0.contains { $0.name == "after49" } }
        XCTAssertEqual(cancelled.events, recordedAtCancel)
    }

    /// Watches cancelled on four tasks while a thread writes without pause, so that cancels meet
    /// deliveries on the reader thread at every point: a handler that finds the cancel already
    /// returned, when it starts or when it ends, is a broken promise.
    func testCancelRacingDeliveriesNeverLeavesTheHandlerRunningOrCalledAfterItReturns() async throws {
        let violations = Locked<[String]>([])
        let directory = self.directory
        let writer = BusyWriter(directory: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<25 {
                        let returned = Locked(false)
                        let seen = Locked(false)
                        let watch = try DirectoryWatcher(directory: directory).watch { _ in
                            if returned.withLock({ $0 }) { violations.withLock { $0.append("\(worker)/\(round) called") } }
                            seen.withLock { $0 = true }
                            sched_yield()
                            if returned.withLock({ $0 }) { violations.withLock { $0.append("\(worker)/\(round) still running") } }
                        }
                        // Cancel once a call has begun, half of the time; at once otherwise.
                        while round % 2 == 0, !seen.withLock({ $0 }) { await Task.yield() }
                        watch.cancel()
                        returned.withLock { $0 = true }
                    }
                }
            }
            try await group.waitForAll()
        }
        writer.stop()
        let witness = HandlerCalls()
        let witnessWatch = try DirectoryWatcher(directory: directory).watch(witness.record)
        defer { witnessWatch.cancel() }
        try touch(directory.appending("marker"))

        _ = await witness.wait { $0.contains { $0.name == "marker" } }
        XCTAssertEqual(violations.withLock { $0 }, [])
    }

    /// A stream's end runs inside the cancellation of its consuming task, holding that task's
    /// lock, which the reader needs to resume the task with an event: the end must not wait for
    /// the reader's call in progress, or neither ever finishes.
    func testStreamConsumersCancelledWhileTheReaderYieldsToThemAllEnd() async throws {
        let writer = BusyWriter(directory: directory)
        defer { writer.stop() }
        let ended = Locked(0)

        for _ in 0..<200 {
            let stream = try DirectoryWatcher(directory: directory).events()
            let consumer = Task {
                for await _ in stream {}
                ended.withLock { $0 += 1 }
            }
            // Cancelled from a thread of its own, so that a cancel that never returns cannot
            // hold this test, which then reports it.
            Thread.detachNewThread { consumer.cancel() }
        }

        let deadline = ContinuousClock.now + .seconds(30)
        while ended.withLock({ $0 }) < 200, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(ended.withLock { $0 }, 200)
    }

    func testCancelFromAnotherThreadWaitsForTheCallInProgress() async throws {
        let order = Locked<[String]>([])
        let entered = DispatchSemaphore(value: 0)
        let cancelling = DispatchSemaphore(value: 0)
        let watch = try DirectoryWatcher(directory: directory).watch { _ in
            guard order.withLock({ $0.isEmpty }) else { return }
            order.withLock { $0.append("handler entered") }
            entered.signal()
            cancelling.wait()
            // Not a threshold: a gate that did not wait would let the cancel return meanwhile.
            usleep(20_000)
            order.withLock { $0.append("handler returned") }
        }
        try touch(directory.appending("file"))
        entered.wait()

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                cancelling.signal()
                watch.cancel()
                order.withLock { $0.append("cancel returned") }
                done.resume()
            }
        }

        XCTAssertEqual(order.withLock { $0 }, ["handler entered", "handler returned", "cancel returned"])
    }

    func testCancelFromInsideTheHandlerMakesThatCallTheLast() async throws {
        let calls = HandlerCalls()
        let slot = Locked<DirectoryWatch?>(nil)
        let watch = try DirectoryWatcher(directory: directory).watch { event in
            calls.record(event)
            slot.withLock { $0 }?.cancel()
        }
        slot.withLock { $0 = watch }
        let witness = HandlerCalls()
        let witnessWatch = try DirectoryWatcher(directory: directory).watch(witness.record)
        defer { witnessWatch.cancel() }

        for name in ["first", "second", "third"] { try touch(directory.appending(name)) }

        _ = await witness.wait { $0.count >= 3 }
        XCTAssertEqual(calls.events, [.init(name: "first", kind: .written)])
    }

    func testReleasingTheWatchFromInsideItsHandlerEndsItWithoutStallingTheReader() async throws {
        let calls = HandlerCalls()
        let slot = Locked<DirectoryWatch?>(nil)
        // Made inside the lock, so that the slot holds the only reference.
        let directory = self.directory
        try slot.withLock { stored in
            stored = try DirectoryWatcher(directory: directory).watch { event in
                calls.record(event)
                // The last reference: the watch is cancelled by its release, on the reader thread.
                slot.withLock { $0 = nil }
            }
        }
        let witness = HandlerCalls()
        let witnessWatch = try DirectoryWatcher(directory: directory).watch(witness.record)
        defer { witnessWatch.cancel() }

        for name in ["first", "second"] { try touch(directory.appending(name)) }

        let seen = await witness.wait { $0.count >= 2 }
        XCTAssertEqual(seen.count, 2, "the reader went on")
        XCTAssertEqual(calls.events, [.init(name: "first", kind: .written)])
    }

    func testReleasingTheWatchClosesItsDescriptor() async throws {
        let before = await InotifyDescriptors.settled()
        var watch: DirectoryWatch? = try DirectoryWatcher(directory: directory).watch { _ in }
        XCTAssertEqual(InotifyDescriptors.open().subtracting(before).count, 1)
        XCTAssertNotNil(watch)

        watch = nil

        XCTAssertEqual(InotifyDescriptors.open().subtracting(before), [])
    }
}

/// A thread that writes files into a directory without pause until stopped: events for the
/// reader to deliver at every moment. A thread, not a task: its loop never suspends and would
/// hold a thread of the pool.
private final class BusyWriter: Sendable {
    private let writing = Locked(true)
    private let stopped = DispatchSemaphore(value: 0)

    init(directory: FilePath) {
        Thread.detachNewThread { [writing, stopped] in
            var index = 0
            while writing.withLock({ $0 }) {
                try? touch(directory.appending("w\(index % 64)"))
                index += 1
            }
            stopped.signal()
        }
    }

    /// Stops writing; returns once the thread has. Safe to call more than once.
    func stop() {
        let wasWriting = writing.withLock { writing in
            defer { writing = false }
            return writing
        }
        if wasWriting { stopped.wait() }
    }
}

/// What a handler was called with, and whether the watch's `ending` was called; waited for
/// with a bound, as ``EventRecorder`` waits for a stream.
private final class HandlerCalls: Sendable {
    private let state = Locked<(events: [DirectoryWatcher.Event], ended: Bool)>(([], false))

    var events: [DirectoryWatcher.Event] { state.withLock { $0.events } }

    /// The handler.
    func record(_ event: DirectoryWatcher.Event) {
        state.withLock { $0.events.append(event) }
    }

    /// The watch's `ending`.
    func end() {
        state.withLock { $0.ended = true }
    }

    /// Waits (at most `timeout`, a liveness bound) until `condition` holds for the events.
    func wait(timeout: Duration = .seconds(10), until condition: ([DirectoryWatcher.Event]) -> Bool) async -> [DirectoryWatcher.Event] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !condition(events) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return events
    }

    /// Waits (at most `timeout`) for `ending`; returns whether it came.
    func waitUntilEnded(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !state.withLock({ $0.ended }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return state.withLock { $0.ended }
    }
}

/// The name the calling thread was given, as the kernel reports it.
private func currentThreadName() -> String {
    let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
    return name?.trimmingCharacters(in: .newlines) ?? ""
}
#endif
