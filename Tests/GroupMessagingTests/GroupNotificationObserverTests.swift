import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import XCTest

/// Observers sharing a process (and so, on Linux, its one watch reader thread), and an
/// observer process woken again and again.
final class GroupNotificationObserverTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    private var center: GroupNotificationCenter!

    override func setUpWithError() throws {
        sandbox = try MessagingSandbox()
        center = try GroupNotificationCenter(keyring: sandbox.keyring, group: MessagingSandbox.group)
    }

    override func tearDown() { sandbox.remove() }

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
        let observer = try sandbox.start("notify-observe", ["--name", "com.example.again", "--count", "3"])
        defer { observer.kill(SIGKILL) }
        try sandbox.await("ready", in: observer)

        for round in 1...3 {
            try center.post("com.example.again")
            // Each post waits for the wake-up before it, so none coalesce.
            try sandbox.await("woken", count: round, in: observer)
        }

        XCTAssertEqual(observer.wait(), 0, observer.standardError)
    }
}
