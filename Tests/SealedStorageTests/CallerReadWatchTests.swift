#if os(Linux)
import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// A watch read by the thread that waits for it (`DirectoryWatcher.watchReadByCaller()`): the
/// waiting thread reads its entry's events itself, never the reader thread, and a cancel from
/// another thread ends a wait in progress, however it races the waits and the writes (these
/// run under ThreadSanitizer in CI).
final class CallerReadWatchTests: XCTestCase {
    private var temporary: TemporaryDirectory!
    /// Inside a directory of the test's own: a watch also watches its directory's parent (for
    /// the directory's removal), and a parent other tests create and remove directories in
    /// would make a wait return the empty reads of their events.
    private var directory: FilePath { FilePath(temporary.path).appending("watched") }

    override func setUpWithError() throws {
        temporary = try TemporaryDirectory(prefix: "caller-read")
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: false)
    }

    override func tearDown() {
        temporary.remove()
    }

    func testAWaitReturnsTheWatchedEntrysWriteOnly() throws {
        try touch(directory.appending("wanted"))
        let watch = try DirectoryWatcher(directory: directory, entry: "wanted").watchReadByCaller()
        defer { watch.cancel() }

        for _ in 1...3 { try touch(directory.appending("other")) }
        try touch(directory.appending("wanted"))

        XCTAssertEqual(try watch.wait(until: .now.advanced(by: .seconds(60))), .events([.init(name: "wanted", kind: .written)]))
    }

    func testAWaitWithNothingToReadTimesOut() throws {
        let watch = try DirectoryWatcher(directory: directory, entry: "wanted").watchReadByCaller()
        defer { watch.cancel() }

        XCTAssertEqual(try watch.wait(until: .now), .timedOut)
    }

    func testCancelFromAnotherThreadEndsAWaitInProgress() throws {
        let watch = try DirectoryWatcher(directory: directory, entry: "wanted").watchReadByCaller()
        let outcome = Locked<CallerReadWatch.Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let result = try? watch.wait(until: nil)
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.05)  // most likely inside its wait; either way it must end

        watch.cancel()

        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the wait did not end")
        XCTAssertEqual(outcome.withLock { $0 }, .cancelled)
    }

    func testCancelRacingWaitsAndWritesEndsEveryWait() throws {
        try touch(directory.appending("wanted"))
        for round in 0..<20 {
            let watch = try DirectoryWatcher(directory: directory, entry: "wanted").watchReadByCaller()
            let ended = DispatchSemaphore(value: 0)
            let waiters = 3
            for _ in 0..<waiters {
                Thread {
                    while true {
                        guard let outcome = try? watch.wait(until: nil), outcome != .cancelled else { break }
                    }
                    ended.signal()
                }.start()
            }
            for _ in 0..<50 { try touch(directory.appending("wanted")) }

            watch.cancel()

            for waiter in 0..<waiters {
                XCTAssertEqual(ended.wait(timeout: .now() + 60), .success, "round \(round): waiter \(waiter) did not end")
            }
        }
    }
}
#endif
