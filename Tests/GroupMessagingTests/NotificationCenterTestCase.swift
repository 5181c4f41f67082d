import Foundation
import GroupMessaging
import GroupVaultTestKit
import XCTest

/// A sandboxed home with a notification center of its group: the arrangement the observer
/// suites share.
class NotificationCenterTestCase: XCTestCase {
    var sandbox: MessagingSandbox!
    var center: GroupNotificationCenter!

    override func setUpWithError() throws {
        sandbox = try MessagingSandbox()
        center = try GroupNotificationCenter(keyring: sandbox.keyring, group: MessagingSandbox.group)
    }

    override func tearDown() { sandbox.remove() }

    /// Starts an observer process of `name` observing `with` (`stream` or `handler`), posts
    /// three times, each after the wake-up before it (so none coalesce), and checks that the
    /// process saw all three.
    func assertAnObserverProcessIsWokenByEachOfThreePosts(with mode: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let observer = try sandbox.start("notify-observe", ["--name", "com.example.again", "--count", "3", "--with", mode])
        defer { observer.kill(SIGKILL) }
        try sandbox.await("ready", in: observer)

        for round in 1...3 {
            try center.post("com.example.again")
            try sandbox.await("woken", count: round, in: observer)
        }

        XCTAssertEqual(observer.wait(), 0, observer.standardError, file: file, line: line)
    }
}
