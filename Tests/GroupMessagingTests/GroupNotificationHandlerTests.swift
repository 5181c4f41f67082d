import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// The callback observer (`GroupNotificationCenter.observe(_:handler:)`): woken as the async
/// sequence is, in this process and in others, and never called once its observation is
/// cancelled or released. The watcher's own promises (reader thread, cancel racing a delivery)
/// are `DirectoryWatcherHandlerTests`, which run under ThreadSanitizer.
final class GroupNotificationHandlerTests: NotificationCenterTestCase {
    func testAHandlerIsCalledByAPostInTheSameProcess() async throws {
        let calls = NotificationCalls()
        let observation = try center.observe("com.example.changed", handler: calls.record)
        defer { observation.cancel() }

        try center.post("com.example.changed")

        let woken = await calls.wait { !$0.isEmpty }
        XCTAssertEqual(woken.first?.name, "com.example.changed")
    }

    func testAHandlerIsCalledOnlyForPostsOfItsName() async throws {
        let mine = NotificationCalls()
        let mineObservation = try center.observe("mine", handler: mine.record)
        defer { mineObservation.cancel() }

        for _ in 1...3 { try center.post("other") }
        try center.post("mine")

        // Delivered in the kernel's order: a call for another name's post would come first.
        let woken = await mine.wait { !$0.isEmpty }
        XCTAssertEqual(woken.map(\.name), ["mine"])
    }

    func testAHandlerInAnotherProcessIsCalledByEachOfSuccessivePosts() throws {
        try assertAnObserverProcessIsWokenByEachOfThreePosts(with: "handler")
    }

    func testABurstOfPostsIsNeverZeroCalls() async throws {
        let calls = NotificationCalls()
        let observation = try center.observe("burst", handler: calls.record)
        defer { observation.cancel() }

        for _ in 0..<1000 { try center.post("burst") }

        let woken = await calls.wait { !$0.isEmpty }
        XCTAssertFalse(woken.isEmpty)
    }

    func testAPostMadeWhileTheHandlerRunsIsFollowedByAnotherCall() async throws {
        let calls = NotificationCalls()
        let entered = DispatchSemaphore(value: 0)
        let posted = DispatchSemaphore(value: 0)
        let observation = try center.observe("busy") { notification in
            calls.record(notification)
            guard calls.count == 1 else { return }
            entered.signal()
            posted.wait()
        }
        defer { observation.cancel() }
        try center.post("busy")
        await waitForSignal(entered)

        try center.post("busy")
        posted.signal()

        let woken = await calls.wait { $0.count >= 2 }
        XCTAssertEqual(woken.count, 2)
    }

    func testAHandlerIsNeverCalledAfterCancelReturnsWhilePostsKeepComing() async throws {
        let returned = Locked(false)
        let lateCalls = Locked(0)
        let calls = NotificationCalls()
        let observation = try center.observe("racing") { notification in
            if returned.withLock({ $0 }) { lateCalls.withLock { $0 += 1 } }
            calls.record(notification)
        }
        let witness = NotificationCalls()
        let witnessObservation = try center.observe("racing", handler: witness.record)
        defer { witnessObservation.cancel() }
        let center = self.center!
        let poster = Task.detached {
            for _ in 0..<500 { try center.post("racing") }
        }
        _ = await calls.wait { !$0.isEmpty }

        observation.cancel()
        returned.withLock { $0 = true }
        try await poster.value
        let witnessed = witness.count
        try center.post("racing")

        // The witness observes the same name: by its call for the last post, that post had
        // reached the cancelled observer's file too.
        _ = await witness.wait { $0.count > witnessed }
        XCTAssertEqual(lateCalls.withLock { $0 }, 0)
    }

    func testCancellingFromInsideTheHandlerMakesThatCallTheLast() async throws {
        let calls = NotificationCalls()
        let slot = Locked<GroupNotificationObservation?>(nil)
        let observation = try center.observe("once") { notification in
            calls.record(notification)
            slot.withLock { $0 }?.cancel()
        }
        slot.withLock { $0 = observation }
        let witness = NotificationCalls()
        let witnessObservation = try center.observe("once", handler: witness.record)
        defer { witnessObservation.cancel() }

        for round in 1...3 {
            try center.post("once")
            _ = await witness.wait { $0.count >= round }
        }

        XCTAssertEqual(calls.count, 1)
    }

    func testReleasingTheObservationEndsIt() async throws {
        let released = NotificationCalls()
        var observation: GroupNotificationObservation? = try center.observe("dropped", handler: released.record)
        XCTAssertNotNil(observation)
        let witness = NotificationCalls()
        let witnessObservation = try center.observe("dropped", handler: witness.record)
        defer { witnessObservation.cancel() }

        observation = nil
        try center.post("dropped")

        _ = await witness.wait { !$0.isEmpty }
        XCTAssertEqual(released.count, 0)
    }

    func testObservingAnInvalidNameIsRefused() throws {
        XCTAssertThrowsError(try center.observe("../escape") { _ in }) { error in
            XCTAssertEqual((error as? GroupMessagingError)?.code, .invalidName)
        }
    }

    /// Waits for `semaphore` off the cooperative pool, which a blocked handler must not starve.
    private func waitForSignal(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                semaphore.wait()
                done.resume()
            }
        }
    }
}

/// What a notification handler was called with; waited for with a bound (a guard against
/// hanging, not a timing requirement).
final class NotificationCalls: Sendable {
    private let calls = Locked<[GroupNotification]>([])

    var count: Int { calls.withLock { $0.count } }

    /// The handler.
    func record(_ notification: GroupNotification) {
        calls.withLock { $0.append(notification) }
    }

    func wait(timeout: Duration = .seconds(10), until condition: ([GroupNotification]) -> Bool) async -> [GroupNotification] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !condition(calls.withLock({ $0 })) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return calls.withLock { $0 }
    }
}
