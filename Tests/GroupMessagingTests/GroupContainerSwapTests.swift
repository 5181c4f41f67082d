import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// A member of a `unixGroup` home (whose root is the group's, 2770) renames `Group Containers`
/// aside and puts a symbolic link to a private directory of this user's in its place, after
/// the keyring made and vetted the container and before the center or the server takes its
/// first step into it. Both reach the container through the keyring's held directory, never by
/// its path again, so nothing of theirs lands in the link's target.
final class GroupContainerSwapTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    private var keyring: Keyring!
    /// `<home>/Group Containers`, and the group's container in it.
    private var containers = ""
    private var container = ""
    /// This user's private directory shaped like `Group Containers` (say another, owner-only
    /// home of the same user), and the group's directory in it.
    private var elsewhere = ""
    private var privateContainer = ""

    override func setUpWithError() throws {
        sandbox = try MessagingSandbox()
        keyring = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
        container = try XCTUnwrap(try keyring.containerURL(for: MessagingSandbox.group)).path
        containers = (container as NSString).deletingLastPathComponent
        elsewhere = sandbox.home.path + "/private"
        privateContainer = elsewhere + "/" + MessagingSandbox.group.rawValue
        try FileManager.default.createDirectory(atPath: privateContainer, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    override func tearDown() { sandbox?.remove() }

    func testANotificationCenterMadeAfterTheSwapDoesNotCreateItsDirectoryInTheLinksTarget() throws {
        let center: Result<GroupNotificationCenter, Error> = FileLayerDriver.with { driver in
            armSwap(beforeTheFirstOpenOf: "GroupMessaging", driver: driver)
            return Result { try GroupNotificationCenter(keyring: keyring, group: MessagingSandbox.group) }
        }
        if case .success(let center) = center { try center.post("com.example.ping") }

        XCTAssertTrue(FileManager.default.fileExists(atPath: containers + ".moved"), "the member's swap never happened")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: privateContainer), [],
                       "the center made its directory in this user's private directory, reached through the swapped Group Containers")
        // The center works in the container that was vetted, where it now is.
        XCTAssertNoThrow(try center.get())
        let moved = containers + ".moved/" + MessagingSandbox.group.rawValue
        XCTAssertTrue(FileManager.default.fileExists(atPath: moved + "/GroupMessaging/notifications/com.example.ping"))
    }

    func testAServerDoesNotLockOrBindInTheLinksTarget() async throws {
        let name = try GroupIPCName(.socket, "sw", in: MessagingSandbox.group, keyring: keyring)
        let keyring = self.keyring!
        let server: GroupChannelServer? = await FileLayerDriver.with { driver in
            // The lock file is the server's first step into the container once it is vetted.
            armSwap(beforeTheFirstOpenOf: "sw.lock", driver: driver)
            return try? await GroupChannelServer.start(name, keyring: keyring, accepting: GroupMessageTypes())
        }
        let moved = containers + ".moved/" + MessagingSandbox.group.rawValue
        let boundInTheVettedContainer = FileManager.default.fileExists(atPath: moved + "/sw")
        await server?.close()

        XCTAssertTrue(FileManager.default.fileExists(atPath: containers + ".moved"), "the member's swap never happened")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: privateContainer), [],
                       "the server used this user's private directory, reached through the swapped Group Containers")
        // It runs in the container that was vetted, where it now is.
        XCTAssertNotNil(server)
        XCTAssertTrue(boundInTheVettedContainer)
    }

    /// Arms the member's move before the first `open` of `name` relative to a held directory,
    /// or of the container or anything in it by path: `Group Containers` renamed aside, a link
    /// to `elsewhere` in its place. Every other open passes and re-arms.
    private func armSwap(beforeTheFirstOpenOf name: String, driver: FileLayerDriver) {
        Self.armSwap(containers, linkingTo: elsewhere, beforeTheFirstOpenOf: name, in: container, driver: driver)
    }

    private static func armSwap(_ containers: String, linkingTo elsewhere: String, beforeTheFirstOpenOf name: String, in container: String, driver: FileLayerDriver) {
        driver.run(before: .call(.open)) {
            guard let call = driver.trace.last, let opened = call.name,
                  call.descriptor == nil ? opened == container || opened.hasPrefix(container + "/") : opened == name else {
                armSwap(containers, linkingTo: elsewhere, beforeTheFirstOpenOf: name, in: container, driver: driver)
                return
            }
            XCTAssertEqual(rename(containers, containers + ".moved"), 0)
            XCTAssertEqual(symlink(elsewhere, containers), 0)
        }
    }
}
