import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import XCTest

/// Observers sharing a process (and so, on Linux, its one watch reader thread), and an
/// observer process woken again and again.
final class GroupNotificationObserverTests: NotificationCenterTestCase {
    func testObserversOfManyNamesInOneProcessAreEachWokenByTheirOwnPost() async throws {
        let names = (0..<20).map { "com.example.name\($0)" }
        let streams = try names.map { try center.notifications(named: $0) }

        for name in names { try center.post(name) }

        for (name, stream) in zip(names, streams) {
            var iterator = stream.makeAsyncIterator()
            let woken = await iterator.next()
            XCTAssertEqual(woken?.name, name)
        }
    }

    func testAnObserverThatStopsLeavesAnotherObserverOfTheSameNameWoken() async throws {
        let stopping = try center.notifications(named: "shared")
        let staying = try center.notifications(named: "shared")
        var stayingIterator = staying.makeAsyncIterator()
        let stoppingObserver = Task { for await _ in stopping {} }
        try center.post("shared")
        _ = await stayingIterator.next()

        // Cancelling the observing task ends its stream, which cancels its watch.
        stoppingObserver.cancel()
        await stoppingObserver.value
        try center.post("shared")

        let woken = await stayingIterator.next()
        XCTAssertEqual(woken?.name, "shared")
    }

    func testAnObserverProcessIsWokenByEachOfSuccessivePosts() throws {
        try assertAnObserverProcessIsWokenByEachOfThreePosts(with: "stream")
    }
}
