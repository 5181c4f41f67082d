import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// Every device lock state against every accessibility class, for each kind of operation,
/// checked against the device's truth table written out here independently of the library.
final class LockStateTests: ItemTestCase {
    /// What a device allows (docs/SECITEM.md, "Matching rules", lock states): unlocked allows everything;
    /// locked allows AfterFirstUnlock and Always; before the first unlock only Always.
    private static func deviceAllows(_ accessibility: Accessibility, in state: DeviceLockState) -> Bool {
        switch state {
        case .unlocked: return true
        case .locked: return [.afterFirstUnlock, .afterFirstUnlockThisDeviceOnly, .always, .alwaysThisDeviceOnly].contains(accessibility)
        case .beforeFirstUnlock: return [.always, .alwaysThisDeviceOnly].contains(accessibility)
        }
    }

    private static var combinations: [(DeviceLockState, Accessibility)] {
        DeviceLockState.allCases.flatMap { state in Accessibility.allCases.map { (state, $0) } }
    }

    private func account(_ state: DeviceLockState, _ accessibility: Accessibility) -> String {
        "\(state.rawValue)-\(accessibility.rawValue)"
    }

    /// Adds one item per combination while unlocked.
    private func addOnePerCombination() throws {
        for (state, accessibility) in Self.combinations {
            try keyring.add(KeychainItem(service: "lock", account: account(state, accessibility), secret: Data("s".utf8), accessibility: accessibility))
        }
    }

    /// Runs `body` and reports whether it succeeded; an error other than
    /// interactionNotAllowed fails the test.
    private func allowed(_ what: String, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch let error as KeyringError where error.status == .interactionNotAllowed {
            return false
        } catch {
            XCTFail("\(what): unexpected \(error)")
            return false
        }
    }

    func testPermitsAccessAgreesWithTheDeviceTruthTable() {
        for (state, accessibility) in Self.combinations {
            XCTAssertEqual(accessibility.permitsAccess(in: state), Self.deviceAllows(accessibility, in: state), "\(accessibility) in \(state)")
        }
    }

    func testReadingFollowsTheTruthTable() throws {
        try addOnePerCombination()
        for (state, accessibility) in Self.combinations {
            try home.home.setLockState(state)
            let query = ItemQuery(service: "lock", account: account(state, accessibility))
            let read = allowed("read \(accessibility) in \(state)") { _ = try keyring.item(matching: query) }
            XCTAssertEqual(read, Self.deviceAllows(accessibility, in: state), "read \(accessibility) in \(state)")
        }
    }

    func testReadingAttributesOnlyFollowsTheTruthTable() throws {
        try addOnePerCombination()
        for (state, accessibility) in Self.combinations {
            try home.home.setLockState(state)
            let query = ItemQuery(service: "lock", account: account(state, accessibility))
            let read = allowed("read attributes of \(accessibility) in \(state)") { _ = try keyring.items(matching: query, includingSecrets: false) }
            XCTAssertEqual(read, Self.deviceAllows(accessibility, in: state), "attributes of \(accessibility) in \(state)")
        }
    }

    func testAddingFollowsTheTruthTable() throws {
        for (state, accessibility) in Self.combinations {
            try home.home.setLockState(state)
            let item = KeychainItem(service: "lock", account: account(state, accessibility), secret: Data("s".utf8), accessibility: accessibility)
            let added = allowed("add \(accessibility) in \(state)") { try keyring.add(item) }
            XCTAssertEqual(added, Self.deviceAllows(accessibility, in: state), "add \(accessibility) in \(state)")
        }
        try home.home.setLockState(.unlocked)
        let stored = try keyring.items(matching: ItemQuery(service: "lock")).map(\.account)
        XCTAssertEqual(stored, Self.combinations.filter { Self.deviceAllows($1, in: $0) }.map { account($0, $1) })
    }

    func testUpdatingFollowsTheTruthTable() throws {
        try addOnePerCombination()
        var changes = ItemChanges()
        changes.label = "changed"
        for (state, accessibility) in Self.combinations {
            try home.home.setLockState(state)
            let query = ItemQuery(service: "lock", account: account(state, accessibility))
            let updated = allowed("update \(accessibility) in \(state)") { try keyring.update(matching: query, with: changes) }
            XCTAssertEqual(updated, Self.deviceAllows(accessibility, in: state), "update \(accessibility) in \(state)")
        }
    }

    func testDeletingFollowsTheTruthTable() throws {
        try addOnePerCombination()
        for (state, accessibility) in Self.combinations {
            try home.home.setLockState(state)
            let query = ItemQuery(service: "lock", account: account(state, accessibility))
            let deleted = allowed("delete \(accessibility) in \(state)") { try keyring.delete(matching: query) }
            XCTAssertEqual(deleted, Self.deviceAllows(accessibility, in: state), "delete \(accessibility) in \(state)")
        }
        try home.home.setLockState(.unlocked)
        let remaining = try keyring.items(matching: ItemQuery(service: "lock")).map(\.account)
        XCTAssertEqual(remaining, Self.combinations.filter { !Self.deviceAllows($1, in: $0) }.map { account($0, $1) })
    }

    func testUpdatingToAClassNotUsableNowIsInteractionNotAllowed() throws {
        try keyring.add(KeychainItem(service: "lock", account: "a", secret: Data("s".utf8), accessibility: .afterFirstUnlock))
        try home.home.setLockState(.locked)
        var changes = ItemChanges()
        changes.accessibility = .whenUnlocked
        XCTAssertThrowsError(try keyring.update(matching: ItemQuery(service: "lock"), with: changes)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed)
        }
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock")).accessibility, .afterFirstUnlock)
    }

    func testAQueryMatchingAnyInaccessibleItemFailsEvenWithLimitOne() throws {
        try keyring.add(KeychainItem(service: "lock", account: "usable", secret: Data("s".utf8), accessibility: .afterFirstUnlock))
        try keyring.add(KeychainItem(service: "lock", account: "locked-away", secret: Data("s".utf8), accessibility: .whenUnlocked))
        try home.home.setLockState(.locked)
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(service: "lock"), limit: .one)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed)
        }
    }

    func testAQueryThatExcludesInaccessibleItemsSucceedsWhileLocked() throws {
        try keyring.add(KeychainItem(service: "lock", account: "usable", secret: Data("s".utf8), accessibility: .afterFirstUnlock))
        try keyring.add(KeychainItem(service: "lock", account: "locked-away", secret: Data("s".utf8), accessibility: .whenUnlocked))
        try home.home.setLockState(.locked)
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock", account: "usable")).secret, Data("s".utf8))
    }

    func testInteractionNotAllowedNamesTheStateAndTheClass() throws {
        try keyring.add(KeychainItem(service: "lock", account: "a", secret: Data("s".utf8), accessibility: .whenUnlocked))
        try home.home.setLockState(.beforeFirstUnlock)
        XCTAssertThrowsError(try keyring.item(matching: ItemQuery(service: "lock"))) { error in
            let reason = (error as? KeyringError)?.reason ?? ""
            XCTAssertTrue(reason.contains("beforeFirstUnlock"), reason)
            XCTAssertTrue(reason.contains("whenUnlocked"), reason)
        }
    }
}
