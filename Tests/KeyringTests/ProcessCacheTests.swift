import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A process keeps the master secret, keysets and the lock state it read, for as long as their
/// files (for keysets: the keyring database, by `PRAGMA data_version`) do not change; a change by
/// any process, or a file or row put back, is read again.
final class ProcessCacheTests: XCTestCase {
    private var scenario: KeysetScenario!

    override func setUpWithError() throws {
        scenario = try KeysetScenario()
    }

    override func tearDown() {
        scenario.remove()
    }

    func testAKeyRotatedByAnotherProcessIsSeenByTheNextRead() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).map(\.id), [1], "read once, so it is cached")

        let child = try FixtureProcess.run(
            ["keyset-rotate", "--team", "ABCDE12345", "--group", scenario.group.rawValue],
            environment: ["GROUPVAULT_HOME": scenario.home.root.path])
        XCTAssertEqual(child.status, 0, child.errors)

        XCTAssertEqual(try scenario.app.keys(in: scenario.group).map(\.id), [1, 2])
        XCTAssertEqual(try scenario.app.groupKey(for: scenario.group).id, 2)
    }

    func testAKeysetPutBackFromBeforeIsReadAsItIsNow() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        let before = try scenario.keyRows()
        try scenario.app.rotateKey(in: scenario.group)
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).map(\.id), [1, 2])

        try scenario.putBack(before)

        XCTAssertEqual(try scenario.app.keys(in: scenario.group).map(\.id), [1])
    }

    func testADamagedKeysetIsRefusedEvenAfterItWasCached() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        var bytes = try scenario.sealedKeyRow(id: 1)
        bytes[bytes.count - 1] ^= 0x01

        try scenario.replaceSealedKeyRow(id: 1, with: bytes)

        XCTAssertThrowsError(try scenario.app.keys(in: scenario.group)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }

    func testALockStateSetByAnotherKeyringValueIsSeenByTheNextRead() throws {
        XCTAssertEqual(try scenario.home.lockState(), .unlocked)
        try KeyringHome(root: scenario.home.root).setLockState(.locked)
        XCTAssertEqual(try scenario.home.lockState(), .locked)
        try KeyringHome(root: scenario.home.root).setLockState(.beforeFirstUnlock)
        XCTAssertEqual(try scenario.home.lockState(), .beforeFirstUnlock)
    }

    func testALockStateSetByAnotherKeyringValueStopsTheNextWarmGroupKeyRead() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        _ = try scenario.app.groupKey(for: scenario.group)

        try KeyringHome(root: scenario.home.root).setLockState(.beforeFirstUnlock)

        XCTAssertThrowsError(try scenario.app.groupKey(for: scenario.group)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed, "\(error)")
        }
    }

    func testAReplacedMasterKeyIsNotServedFromTheCache() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        let masterKey = scenario.home.root.appendingPathComponent("Keychains").appendingPathComponent("master.key")
        var other = [UInt8](repeating: 7, count: 32)
        other[0] = 1
        try FileManager.default.removeItem(at: masterKey)
        try Data(other).write(to: masterKey)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: masterKey.path)

        // The keyset was sealed under the old master secret: under the new one it fails.
        XCTAssertThrowsError(try scenario.app.keys(in: scenario.group)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }
}
