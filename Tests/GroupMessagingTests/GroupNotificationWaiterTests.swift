#if os(Linux)
import Foundation
import GroupMessaging
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// The waiter (`GroupNotificationCenter.waiter(named:)`): a thread of the caller's blocks in
/// `wait(timeout:)` and is woken by posts of its name only, each burst between two waits being
/// one wake-up; its descriptor is readable while a post waits; `cancel()` ends a wait on
/// another thread; the removal of the notifications directory wakes it once and closes it.
final class GroupNotificationWaiterTests: NotificationCenterTestCase {
    /// Long enough that a wait for a post already made never runs out on a loaded machine; a
    /// wait that must not return uses `.zero` after the post, which the kernel has queued by then.
    private let patience: Duration = .seconds(60)

    func testAWaitReturnsAPostMadeInTheSameProcess() throws {
        let waiter = try center.waiter(named: "com.example.changed")

        try center.post("com.example.changed")

        XCTAssertEqual(try waiter.wait(timeout: patience)?.name, "com.example.changed")
    }

    func testAWaitWithNoPostReturnsNilOnceItsTimeoutPasses() throws {
        let waiter = try center.waiter(named: "quiet")

        XCTAssertNil(try waiter.wait(timeout: .milliseconds(20)))
    }

    func testTimeoutsBeyondTheClockAndBelowZeroAreAccepted() throws {
        let waiter = try center.waiter(named: "extremes")
        try center.post("extremes")

        XCTAssertNotNil(try waiter.wait(timeout: .seconds(Int64.max)), "the longest timeout waits, and returns the post")
        XCTAssertNil(try waiter.wait(timeout: .seconds(-1)), "a negative timeout only looks")
    }

    func testPostsOfOtherNamesDoNotWakeAWaiter() throws {
        try center.post("other")  // its file exists: the posts below are writes to it, not arrivals
        let waiter = try center.waiter(named: "mine")

        for _ in 1...3 { try center.post("other") }

        // The kernel queued nothing for the waiter (its watches do not ask for other names'
        // writes), not merely nothing that a read kept: the descriptor is not readable.
        XCTAssertFalse(isReadable(waiter), "another name's posts woke the waiter's descriptor")
        XCTAssertNil(try waiter.wait(timeout: .zero))
    }

    func testABurstOfPostsBetweenTwoWaitsIsOneWakeUp() throws {
        try center.post("burst")  // the file exists, so every post below is a write to it
        let waiter = try center.waiter(named: "burst")

        for _ in 0..<1000 { try center.post("burst") }

        XCTAssertNotNil(try waiter.wait(timeout: .zero), "a burst is never zero wake-ups")
        XCTAssertNil(try waiter.wait(timeout: .zero), "the burst was returned by the first wait")
    }

    func testANameFirstPostedAfterTheWaiterWasMadeWakesItThenAndAtEachLaterPost() throws {
        let waiter = try center.waiter(named: "new")

        try center.post("new")  // renamed into place: the waiter sees the file appear
        XCTAssertNotNil(try waiter.wait(timeout: patience))
        try center.post("new")  // written in place: the file's own watch, made when it appeared

        XCTAssertNotNil(try waiter.wait(timeout: patience))
    }

    func testAWaiterInAnotherProcessIsWokenByEachOfSuccessivePosts() throws {
        try assertAnObserverProcessIsWokenByEachOfThreePosts(with: "wait")
    }

    func testTheDescriptorIsReadableExactlyWhileAPostWaits() throws {
        let waiter = try center.waiter(named: "polled")
        XCTAssertFalse(isReadable(waiter), "nothing was posted yet")

        try center.post("polled")
        XCTAssertTrue(isReadable(waiter), "a post waits")
        XCTAssertNotNil(try waiter.wait(timeout: .zero))

        XCTAssertFalse(isReadable(waiter), "the wait took the post")
    }

    func testCancelEndsAWaitInProgressOnAnotherThread() throws {
        let waiter = try center.waiter(named: "cancelled")
        let outcome = Locked<Result<GroupNotification?, GroupMessagingError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let waiting = Thread {
            let result = Result { () throws(GroupMessagingError) in try waiter.wait() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        waiting.start()
        // Whether the thread is inside its wait yet or not, the cancel must end it.
        Thread.sleep(forTimeInterval: 0.05)

        waiter.cancel()

        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the wait did not end")
        guard case .failure(let error) = try XCTUnwrap(outcome.withLock { $0 }) else {
            return XCTFail("the wait returned instead of throwing")
        }
        XCTAssertEqual(error.code, .closed)
        XCTAssertTrue(error.reason.contains("cancelled"), error.reason)
    }

    func testAWaitAfterCancelThrowsClosedThoughAPostWaits() throws {
        let waiter = try center.waiter(named: "late")
        try center.post("late")

        waiter.cancel()

        XCTAssertThrowsError(try waiter.wait(timeout: .zero)) { error in
            XCTAssertEqual((error as? GroupMessagingError)?.code, .closed)
        }
    }

    func testRemovingTheNotificationsDirectoryWakesTheWaiterOnceThenEveryWaitThrows() throws {
        let waiter = try center.waiter(named: "gone")
        let directory = sandbox.home.url
            .appendingPathComponent("Group Containers/\(MessagingSandbox.group)/GroupMessaging/notifications")

        try FileManager.default.removeItem(at: directory)

        XCTAssertNotNil(try waiter.wait(timeout: patience), "the removal is a wake-up")
        XCTAssertThrowsError(try waiter.wait(timeout: .zero)) { error in
            let error = error as? GroupMessagingError
            XCTAssertEqual(error?.code, .closed)
            XCTAssertTrue(error?.reason.contains("was removed") == true, error?.reason ?? "")
        }
    }

    func testAFailedWaitThrowsSystemWithItsErrno() throws {
        let waiter = try center.waiter(named: "failing")

        let refusal = FaultInjection.withFault(.fail(.ioError), at: .call(.wait)) { () -> GroupMessagingError? in
            do throws(GroupMessagingError) {
                _ = try waiter.wait(timeout: .zero)
                return nil
            } catch {
                return error
            }
        }

        let error = try XCTUnwrap(refusal, "the wait did not fail")
        XCTAssertEqual(error.code, .system)
        XCTAssertEqual(error.underlyingError as? Errno, .ioError)
    }

    func testAnInvalidNameIsRefused() throws {
        XCTAssertThrowsError(try center.waiter(named: "../escape")) { error in
            XCTAssertEqual((error as? GroupMessagingError)?.code, .invalidName)
        }
    }

    /// Whether the kernel has queued events on the waiter's descriptor, asked without waiting:
    /// a post's events are queued before `post` returns (by its `close` or `rename`).
    private func isReadable(_ waiter: GroupNotificationWaiter) -> Bool {
        var descriptor = pollfd(fd: waiter.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }
}
#endif
