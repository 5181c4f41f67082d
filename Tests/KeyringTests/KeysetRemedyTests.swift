import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A keyset refusal says what to do as a value (the remedy a front end maps to its own
/// command) and in words that name no API: the reason is read by people at any front end.
final class KeysetRemedyTests: ItemTestCase {
    private var group: GroupIdentifier { ItemTestHome.shared }

    func testRetiringThePrimaryKeySaysRotateFirst() throws {
        _ = try keyring.groupKey(for: group)
        let error = try XCTUnwrap(keyringError { try keyring.retireKey(id: 1, in: group) })
        XCTAssertEqual(error.remedy, .rotateKey(group: group.rawValue))
        XCTAssertEqual(error.reason, "key #1 is the primary key of \(group) and still seals new data: rotate first, then retire it")
    }

    func testAKeyOfAGroupWithoutKeysetSaysCreateTheFirstKey() throws {
        let error = try XCTUnwrap(keyringError { _ = try keyring.exportKey(id: 1, in: group) })
        XCTAssertEqual(error.remedy, .createKey(group: group.rawValue))
        XCTAssertEqual(error.reason, "no key #1 in \(group): the group has no keyset yet")
    }

    func testARetiredKeySaysResealBeforeRetiring() throws {
        _ = try keyring.groupKey(for: group)
        try keyring.rotateKey(in: group)
        try keyring.retireKey(id: 1, in: group)
        let error = try XCTUnwrap(keyringError { _ = try keyring.key(id: 1, in: group) })
        XCTAssertEqual(error.remedy, .resealRecords(group: group.rawValue))
    }

    func testKeysBeforeTheFirstUnlockSayUnlockNamingTheHome() throws {
        try home.home.setLockState(.beforeFirstUnlock)
        let error = try XCTUnwrap(keyringError { _ = try keyring.keys(in: group) })
        XCTAssertEqual(error.remedy, .unlock(home: home.home.root.path))
        XCTAssertFalse(error.reason.contains("setLockState"), error.reason)
    }

    func testAnUnentitledGroupNamesTheIdentityWithoutItsDebugDump() throws {
        let other = try GroupIdentifier(validating: "ABCDE12345.com.example.other")
        let identity = Identity(teamID: ItemTestHome.team, bundleID: "com.example.app", keychainAccessGroups: [], applicationGroups: [])
        let error = try XCTUnwrap(keyringError { _ = try home.keyring(identity).keys(in: other) })
        XCTAssertEqual(error.remedy, .grantEntitlement(group: other.rawValue))
        XCTAssertFalse(error.reason.contains("Identity("), error.reason)
    }

    func testNoKeysetReasonNamesASwiftCall() throws {
        _ = try keyring.groupKey(for: group)
        try home.home.setLockState(.beforeFirstUnlock)
        let reasons = [
            keyringError { _ = try keyring.groupKey(for: group) },
            keyringError { _ = try keyring.key(id: 1, in: group) },
            keyringError { _ = try keyring.exportKey(id: 1, in: group) },
            keyringError { try keyring.rotateKey(in: group) },
            keyringError { try keyring.retireKey(id: 1, in: group) },
            keyringError { _ = try keyring.keys(in: group) },
            keyringError { _ = try keyring.importKey(Data(repeating: 7, count: 32), id: 9, in: group) },
        ].map { $0?.reason ?? "" }
        for reason in reasons {
            XCTAssertNil(reason.firstMatch(of: /[A-Za-z]+\((?:[A-Za-z_]+:)+\)/), "a Swift call in: \(reason)")
        }
    }
}
