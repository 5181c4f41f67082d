import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import XCTest

final class GroupNotificationTests: XCTestCase {
    private var sandbox: MessagingSandbox!

    override func setUpWithError() throws { sandbox = try MessagingSandbox() }
    override func tearDown() { sandbox.remove() }

    func testPostWakesAnObserverInTheSameProcess() async throws {
        let center = try GroupNotificationCenter(keyring: sandbox.keyring, group: MessagingSandbox.group)
        let notifications = try center.notifications(named: "com.example.changed")
        try center.post("com.example.changed")
        var iterator = notifications.makeAsyncIterator()
        let woken = await iterator.next()
        XCTAssertEqual(woken?.name, "com.example.changed")
    }

    func testBurstOfPostsIsNeverZeroWakeUps() async throws {
        let center = try GroupNotificationCenter(keyring: sandbox.keyring, group: MessagingSandbox.group)
        let notifications = try center.notifications(named: "burst")
        // The observer is not reading during the burst: its one pending wake-up coalesces them.
        for _ in 0..<1000 { try center.post("burst") }
        var iterator = notifications.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first?.name, "burst")
    }

    func testNotificationFileOfAUnixGroupHomeStaysWritableByTheGroupDespiteUmask() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let shared = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
        let center = try GroupNotificationCenter(keyring: shared, group: MessagingSandbox.group)
        try center.post("shared")
        let path = sandbox.home.url.appendingPathComponent("Group Containers/\(MessagingSandbox.group)/GroupMessaging/notifications/shared").path
        var status = stat()
        XCTAssertEqual(stat(path, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o660)
    }

    func testIdentityOutsideTheGroupCanNeitherPostNorObserve() throws {
        XCTAssertThrowsError(try GroupNotificationCenter(keyring: sandbox.outsider, group: MessagingSandbox.group)) { error in
            XCTAssertEqual((error as! GroupMessagingError).code, .notEntitled)
        }
    }

    func testInvalidNotificationNameIsRefusedWithItsLimit() throws {
        let center = try GroupNotificationCenter(keyring: sandbox.keyring, group: MessagingSandbox.group)
        XCTAssertThrowsError(try center.post("../escape")) { error in
            XCTAssertEqual((error as! GroupMessagingError).code, .invalidName)
        }
        XCTAssertThrowsError(try center.post(String(repeating: "n", count: 256))) { error in
            XCTAssertTrue((error as! GroupMessagingError).reason.contains("the limit is 255"))
        }
    }

    func testNotificationPostedByOneProcessWakesThreeObserverProcesses() throws {
        let observers = try (1...3).map { _ in try sandbox.start("notify-observe", ["--name", "com.example.signed-in"]) }
        defer { observers.forEach { $0.kill(SIGKILL) } }
        for observer in observers { try sandbox.await("ready", in: observer) }

        let poster = try sandbox.start("notify-post", ["--name", "com.example.signed-in"])
        XCTAssertEqual(poster.wait(), 0, poster.standardError)

        for observer in observers {
            XCTAssertEqual(observer.wait(), 0, observer.standardError)
            XCTAssertTrue(observer.standardOutput.contains("woken"))
        }
    }

    func testProcessOutsideTheGroupCannotPost() throws {
        let poster = try sandbox.start("notify-post", ["--name", "x", "--entitled-group", MessagingSandbox.otherGroup.rawValue])
        XCTAssertEqual(poster.wait(), 1)
        XCTAssertTrue(poster.standardError.contains("not entitled"), poster.standardError)
    }
}
