#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GroupVaultTestKit
import SealedStorage
import XCTest

@testable import Keyring

/// A member of the group who swaps a directory of a `unixGroup` home (`Keychains/`,
/// `Group Containers/`) for a symbolic link to a directory of their own, after a process opened
/// the home, cannot make that process follow the link (issue 18): the home holds its directories
/// by descriptor, so it keeps reading and writing the directories it vetted, and nothing is read
/// from the link's target or written into it.
final class HomeDirectorySwapTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var attacker: LinkSwappingAttacker!
    /// The attacker's directory, which the links point to.
    private var elsewhere: URL { attacker.directory }
    private let appGroup = GroupIdentifier(rawValue: "group.com.example")!
    private let laterGroup = GroupIdentifier(rawValue: "group.com.example.later")!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "home-swap")
        attacker = try LinkSwappingAttacker(in: directory.url, mode: 0o2770)
    }

    override func tearDown() {
        KeyringDatabase.closeAll()
        directory.remove()
    }

    /// A shared home: the one a member of the group can write.
    private func makeHome() -> KeyringHome {
        KeyringHome(root: directory.url.appendingPathComponent("home"), sharing: .unixGroup)
    }




    private func contents(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    // MARK: Master key

    func testTheMasterKeyIsNotReadThroughAKeychainsDirectorySwappedWhileItsLockWasAwaited() throws {
        let home = makeHome()
        try home.prepareKeychains()
        let attackerKey = [UInt8](repeating: 0xA7, count: 32)
        try attacker.plant(attackerKey, as: "master.key", mode: 0o660)
        let lockPath = home.keychainsDirectory.appending(".master.key.lock")

        // The attacker holds the lock under which a new master key is read or created, and
        // swaps `Keychains/` once the victim waits for it: between its checks and its read.
        let held = try FileLock(exclusiveAt: lockPath, sharing: .unixGroup)
        let created = Locked<Result<[UInt8], KeyringError>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { () throws(KeyringError) in try home.masterKey().exportedBytes() }
            created.withLock { $0 = result }
            finished.signal()
        }
        try waitUntilOpenedTwice(lockPath.string)
        let movedAside = try attacker.swapForLink(home.keychainsDirectory.string)
        _ = consume held
        finished.wait()

        let key = try XCTUnwrap(created.withLock { $0 }).get()
        XCTAssertNotEqual(key, attackerKey, "the master key was read through the link, from the attacker's directory")
        XCTAssertEqual(try attacker.files(), ["master.key"], "nothing was written into the link's target")
        XCTAssertEqual(try contents(elsewhere.appendingPathComponent("master.key")), attackerKey)
        XCTAssertEqual(try contents(movedAside.appendingPathComponent("master.key")), key,
                       "the key was created in the Keychains directory the home had opened")
    }

    /// Returns once two descriptors of this process are open on `path`: the attacker's lock
    /// and the victim's, which is then waiting for it. A condition, not a delay.
    private func waitUntilOpenedTwice(_ path: String) throws {
        for _ in 0..<30_000 {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            let opened = descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }
            if opened.count >= 2 { return }
            usleep(1000)
        }
        XCTFail("the victim never opened \(path)")
        throw CancellationError()
    }

    // MARK: Lock state

    func testTheLockStateIsNotReadThroughAKeychainsDirectorySwappedForALink() throws {
        let home = makeHome()
        try home.setLockState(.locked)
        try attacker.plant(Array("unlocked\n".utf8), as: "device-lock-state", mode: 0o660)

        _ = try attacker.swapForLink(home.keychainsDirectory.string)

        XCTAssertEqual(try home.lockState(), .locked, "the lock state was read through the link, from the attacker's directory")
    }

    func testALockStateWrittenAfterTheKeychainsDirectoryWasSwappedForALinkLandsInTheHeldDirectory() throws {
        let home = makeHome()
        try home.setLockState(.unlocked)
        try attacker.plant(Array("unlocked\n".utf8), as: "device-lock-state", mode: 0o660)

        let movedAside = try attacker.swapForLink(home.keychainsDirectory.string)
        try home.setLockState(.locked)

        XCTAssertEqual(try attacker.files(), ["device-lock-state"], "nothing was created in the link's target")
        XCTAssertEqual(try contents(elsewhere.appendingPathComponent("device-lock-state")), Array("unlocked\n".utf8),
                       "the attacker's file was not replaced")
        XCTAssertEqual(try contents(movedAside.appendingPathComponent("device-lock-state")), Array("locked\n".utf8),
                       "the state was written into the Keychains directory the home had opened")
        XCTAssertEqual(try home.lockState(), .locked)
    }

    // MARK: Containers

    func testAContainerAskedForAfterGroupContainersWasSwappedForALinkIsNotCreatedInTheLinkTarget() throws {
        let home = makeHome()
        let keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [appGroup, laterGroup]),
            home: home)
        _ = try keyring.containerURL(for: appGroup)

        _ = try attacker.swapForLink(home.containersDirectory.string)

        XCTAssertThrowsError(try keyring.containerURL(for: laterGroup)) { error in
            let reason = (error as? KeyringError)?.reason ?? "\(error)"
            XCTAssertTrue(reason.contains(home.containerDirectory(for: self.laterGroup).string), reason)
        }
        XCTAssertEqual(try attacker.files(), [], "nothing was created in the link's target")
    }

    func testAContainerHandleAskedForAfterGroupContainersWasSwappedIsCreatedInTheHeldDirectory() throws {
        let home = makeHome()
        let keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [appGroup, laterGroup]),
            home: home)
        _ = try keyring.containerURL(for: appGroup)

        let movedAside = try attacker.swapForLink(home.containersDirectory.string)
        let container = try XCTUnwrap(try keyring.containerDirectory(for: laterGroup))

        XCTAssertEqual(try attacker.files(), [], "nothing was created in the link's target")
        let created = movedAside.appendingPathComponent(laterGroup.rawValue)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: created.appendingPathComponent("Library").path).sorted(),
                       ["Application Support", "Caches", "Preferences"])
        XCTAssertNotNil(try container.status(of: "Library"))
    }
}
