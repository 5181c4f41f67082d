import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import XCTest

/// Specification of per-group keysets: `groupKey(for:)`, `key(id:in:)`, `rotateKey(in:)`,
/// `retireKey(id:in:)`, `keys(in:)` and `exportKey(id:in:)`.
final class KeysetTests: XCTestCase {
    private var scenario: KeysetScenario!

    override func setUpWithError() throws {
        scenario = try KeysetScenario()
    }

    override func tearDown() {
        scenario?.remove()
        scenario = nil
    }

    // MARK: First use

    func testKeysetIsEmptyBeforeFirstUse() throws {
        XCTAssertEqual(try scenario.app.keys(in: scenario.group), [])
    }

    func testFirstUseCreatesKeyOneAsPrimary() throws {
        let key = try scenario.app.groupKey(for: scenario.group)

        XCTAssertEqual(key.id, 1)
        XCTAssertEqual(key.group, scenario.group)
        let keys = try scenario.app.keys(in: scenario.group)
        XCTAssertEqual(keys.map(\.id), [1])
        XCTAssertEqual(keys.map(\.status), [.primary])
    }

    func testSecondCallReturnsTheSameKey() throws {
        let first = try scenario.app.groupKey(for: scenario.group)
        let second = try scenario.app.groupKey(for: scenario.group)

        XCTAssertEqual(second.id, first.id)
        XCTAssertTrue(second.key.constantTimeEquals(first.key))
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).count, 1)
    }

    func testAnotherKeyringOnTheSameHomeGetsTheSameKey() throws {
        let fromApp = try scenario.app.groupKey(for: scenario.group)
        let fromWidget = try scenario.widget.groupKey(for: scenario.group)

        XCTAssertEqual(fromWidget.id, fromApp.id)
        XCTAssertTrue(fromWidget.key.constantTimeEquals(fromApp.key))
    }

    func testGroupsHaveIndependentKeysets() throws {
        let shared = try scenario.app.groupKey(for: scenario.group)
        let own = try scenario.app.groupKey(for: scenario.teamGroup)

        XCTAssertEqual(own.id, 1)
        XCTAssertFalse(own.key.constantTimeEquals(shared.key))
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).count, 1)
    }

    // MARK: Rotation

    func testRotateMakesANewPrimaryAndKeepsThePreviousForOpening() throws {
        let original = try scenario.app.groupKey(for: scenario.group)

        let rotated = try scenario.app.rotateKey(in: scenario.group)

        XCTAssertEqual(rotated.id, 2)
        XCTAssertEqual(rotated.status, .primary)
        XCTAssertEqual(try scenario.app.groupKey(for: scenario.group).id, 2)
        XCTAssertTrue(try scenario.app.key(id: 1, in: scenario.group).key.constantTimeEquals(original.key))
        let keys = try scenario.app.keys(in: scenario.group)
        XCTAssertEqual(keys.map(\.id), [1, 2])
        XCTAssertEqual(keys.map(\.status), [.active, .primary])
        XCTAssertEqual(keys.last, rotated, "the descriptor returned is the one stored")
    }

    func testRotateOnAnEmptyKeysetCreatesKeyOne() throws {
        let created = try scenario.app.rotateKey(in: scenario.group)

        XCTAssertEqual(created.id, 1)
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).map(\.status), [.primary])
        XCTAssertEqual(try scenario.app.groupKey(for: scenario.group).id, 1)
    }

    func testRotatedKeysAreDistinct() throws {
        let first = try scenario.app.groupKey(for: scenario.group)
        try scenario.app.rotateKey(in: scenario.group)
        let second = try scenario.app.groupKey(for: scenario.group)

        XCTAssertFalse(second.key.constantTimeEquals(first.key))
    }

    // MARK: Retirement

    func testRetireErasesTheKeyAndKeepsItsDescriptor() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        try scenario.app.rotateKey(in: scenario.group)

        try scenario.app.retireKey(id: 1, in: scenario.group)

        let keys = try scenario.app.keys(in: scenario.group)
        XCTAssertEqual(keys.map(\.id), [1, 2])
        XCTAssertEqual(keys.map(\.status), [.retired, .primary])
        XCTAssertNotNil(keys[0].retiredAt)
        let stored = try XCTUnwrap(try scenario.storedKeyset())
        XCTAssertNil(stored.entry(id: 1)?.key, "a retired key's bytes are gone from the keyset")
        // Its row seals nothing: version, nonce and tag only.
        XCTAssertEqual(try scenario.sealedKeyRow(id: 1).count, 1 + 24 + 16)
    }

    func testRetiredIdsAreNeverReused() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        try scenario.app.rotateKey(in: scenario.group)
        try scenario.app.retireKey(id: 1, in: scenario.group)

        XCTAssertEqual(try scenario.app.rotateKey(in: scenario.group).id, 3)
    }

    func testRetiringARetiredKeyChangesNothing() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        try scenario.app.rotateKey(in: scenario.group)
        try scenario.app.retireKey(id: 1, in: scenario.group)
        let before = try scenario.app.keys(in: scenario.group)

        try scenario.app.retireKey(id: 1, in: scenario.group)

        XCTAssertEqual(try scenario.app.keys(in: scenario.group), before)
    }

    func testRetiredKeyIsRefusedWithAReasonSayingRetired() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        try scenario.app.rotateKey(in: scenario.group)
        try scenario.app.retireKey(id: 1, in: scenario.group)

        let opening = try keyringError { try scenario.app.key(id: 1, in: scenario.group) }
        let exporting = try keyringError { try scenario.app.exportKey(id: 1, in: scenario.group) }

        for error in [opening, exporting] {
            XCTAssertEqual(error.status, .itemNotFound)
            XCTAssertTrue(error.reason.contains("retired"), error.reason)
            XCTAssertTrue(error.reason.contains("#1"), error.reason)
            XCTAssertTrue(error.reason.contains(scenario.group.rawValue), error.reason)
        }
    }

    func testUnknownKeyIsRefusedWithAReasonNamingTheIdAndGroup() throws {
        _ = try scenario.app.groupKey(for: scenario.group)

        let error = try keyringError { try scenario.app.key(id: 7, in: scenario.group) }

        XCTAssertEqual(error.status, .itemNotFound)
        XCTAssertTrue(error.reason.contains("#7"), error.reason)
        XCTAssertTrue(error.reason.contains(scenario.group.rawValue), error.reason)
        XCTAssertFalse(error.reason.contains("retired"), "an unknown key must not be reported as retired: \(error.reason)")
    }

    func testUnknownKeyInAGroupWithoutKeysetIsItemNotFound() throws {
        let error = try keyringError { try scenario.app.key(id: 1, in: scenario.group) }

        XCTAssertEqual(error.status, .itemNotFound)
        XCTAssertTrue(error.reason.contains("#1"), error.reason)
    }

    func testPrimaryKeyCannotBeRetired() throws {
        _ = try scenario.app.groupKey(for: scenario.group)

        let error = try keyringError { try scenario.app.retireKey(id: 1, in: scenario.group) }

        XCTAssertEqual(error.status, .invalidParameter)
        XCTAssertTrue(error.reason.contains("rotate first"), error.reason)
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).map(\.status), [.primary])
    }

    func testRetiringAnUnknownKeyIsItemNotFound() throws {
        _ = try scenario.app.groupKey(for: scenario.group)

        let error = try keyringError { try scenario.app.retireKey(id: 9, in: scenario.group) }

        XCTAssertEqual(error.status, .itemNotFound)
        XCTAssertTrue(error.reason.contains("#9"), error.reason)
    }

    // MARK: Export

    func testExportGivesTheBytesOfTheKeyThatSeals() throws {
        let key = try scenario.app.groupKey(for: scenario.group)

        let exported = try scenario.app.exportKey(id: key.id, in: scenario.group)

        XCTAssertEqual(exported.count, 32)
        XCTAssertTrue(try SymmetricKey(bytes: exported).constantTimeEquals(key.key))
    }

    // MARK: Access

    func testEveryOperationRequiresTheEntitlement() throws {
        let stranger = Keyring(identity: Identity(teamID: "ZZZZZ99999", bundleID: "com.other.app"), home: scenario.home)

        for (name, operation) in scenario.everyOperation {
            let error = try keyringError(name) { try operation(stranger) }
            XCTAssertEqual(error.status, .missingEntitlement, "\(name): \(error)")
            XCTAssertTrue(error.reason.contains(scenario.group.rawValue), "\(name): \(error.reason)")
        }
        XCTAssertNil(try scenario.storedKeyset(), "a refused caller created no keyset")
    }

    func testBeforeFirstUnlockEveryOperationIsRefused() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        try scenario.home.setLockState(.beforeFirstUnlock)

        for (name, operation) in scenario.everyOperation {
            let error = try keyringError(name) { try operation(scenario.app) }
            XCTAssertEqual(error.status, .interactionNotAllowed, "\(name): \(error)")
            XCTAssertTrue(error.reason.contains("first unlock"), "\(name): \(error.reason)")
        }
    }

    func testLockedDeviceStillGivesGroupKeys() throws {
        let created = try scenario.app.groupKey(for: scenario.group)
        try scenario.home.setLockState(.locked)

        let read = try scenario.widget.groupKey(for: scenario.group)

        XCTAssertTrue(read.key.constantTimeEquals(created.key))
        XCTAssertEqual(try scenario.widget.rotateKey(in: scenario.group).id, 2)
    }

    // MARK: Secrecy

    func testDescriptionsNeverContainKeyBytes() throws {
        let key = try scenario.app.groupKey(for: scenario.group)
        try scenario.app.rotateKey(in: scenario.group)
        let exported = try scenario.app.exportKey(id: key.id, in: scenario.group)
        let stored = try XCTUnwrap(try scenario.storedKeyset())
        let entry = try XCTUnwrap(stored.entry(id: key.id))
        let forms = [
            Data(exported).map { String(format: "%02x", $0) }.joined(),
            Data(exported).map { String(format: "%02X", $0) }.joined(),
            exported.base64EncodedString(),
        ]

        var texts: [String: String] = [
            "GroupKey.description": key.description,
            "GroupKey.debugDescription": key.debugDescription,
            "String(reflecting: GroupKey)": String(reflecting: key),
            "Keyset.description": stored.description,
            "String(reflecting: Keyset)": String(reflecting: stored),
            "Keyset.Entry.description": entry.description,
            "String(reflecting: Keyset.Entry)": String(reflecting: entry),
            "keys(in:)": String(describing: try scenario.app.keys(in: scenario.group)),
        ]
        texts["dump(GroupKey)"] = dumped(key)
        texts["dump(Keyset)"] = dumped(stored)
        texts["dump(Keyset.Entry)"] = dumped(entry)

        for (name, text) in texts {
            for form in forms {
                XCTAssertFalse(text.contains(form), "\(name) reveals the key bytes: \(text)")
            }
        }
    }

    // MARK: Integrity

    func testTamperedKeysetIsReportedAsDecodeAndNotOverwritten() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        var bytes = try scenario.sealedKeyRow(id: 1)
        bytes[bytes.count - 1] ^= 0x01
        try scenario.replaceSealedKeyRow(id: 1, with: bytes)

        let reading = try keyringError { try scenario.app.groupKey(for: scenario.group) }
        let rotating = try keyringError { try scenario.app.rotateKey(in: scenario.group) }

        XCTAssertEqual(reading.status, .decode, reading.description)
        XCTAssertEqual(rotating.status, .decode, rotating.description)
        XCTAssertTrue(reading.reason.contains("keyring.db"), reading.reason)
        XCTAssertEqual(try scenario.sealedKeyRow(id: 1), bytes, "the tampered row is left for inspection, not overwritten")
    }

    func testKeysetCopiedFromAnotherGroupIsRefused() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        try scenario.app.rotateKey(in: scenario.teamGroup)  // the other group's key 1
        try scenario.replaceSealedKeyRow(id: 1, in: scenario.teamGroup, with: try scenario.sealedKeyRow(id: 1))

        let error = try keyringError { try scenario.app.groupKey(for: scenario.teamGroup) }

        XCTAssertEqual(error.status, .decode, error.description)
    }
}

/// A throw-away home with an app and a widget entitled to one shared group.
struct KeysetScenario {
    /// The app group shared by the app and its widget.
    let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    /// A team-prefixed keychain access group only the app has.
    let teamGroup = GroupIdentifier(rawValue: "ABCDE12345.com.example.private")!
    let directory: TemporaryDirectory
    let home: KeyringHome
    let app: Keyring
    let widget: Keyring

    init() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-keyset")
        home = KeyringHome(root: directory.url.appendingPathComponent("home", isDirectory: true))
        app = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", keychainAccessGroups: [teamGroup], applicationGroups: [group]),
            home: home)
        widget = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app.widget", applicationGroups: [group]),
            home: home)
    }

    /// The keyset of `group` (the shared group by default) as the keyring database holds it.
    func storedKeyset(for group: GroupIdentifier? = nil) throws -> Keyset? {
        try KeysetTable(home: home).keyset(of: group ?? self.group)
    }

    /// The sealed column of key `id`'s row in the keyring database.
    func sealedKeyRow(id: UInt32, in group: GroupIdentifier? = nil) throws -> [UInt8] {
        let group = group ?? self.group
        return try KeyringDatabase.shared(for: home).read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [UInt8] in
            try transaction.query("SELECT sealed FROM keys WHERE access_group = ? AND id = ?", [.text(group.rawValue), .integer(Int64(id))]) { $0.blob(0) }.first ?? []
        }
    }

    /// Overwrites the sealed column of key `id`'s row, as an attacker or a damaged disk could.
    func replaceSealedKeyRow(id: UInt32, in group: GroupIdentifier? = nil, with bytes: [UInt8]) throws {
        let group = group ?? self.group
        try KeyringDatabase.shared(for: home).write("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            _ = try transaction.run("UPDATE keys SET sealed = ? WHERE access_group = ? AND id = ?", [.blob(bytes), .text(group.rawValue), .integer(Int64(id))])
        }
    }

    /// Every row of the shared group's keyset, to put back later.
    func keyRows() throws -> [[SQLiteConnection.Value]] {
        try KeyringDatabase.shared(for: home).read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [[SQLiteConnection.Value]] in
            try transaction.query("SELECT access_group, id, status, created_at, retired_at, sealed FROM keys WHERE access_group = ?", [.text(group.rawValue)]) { row in
                [.text(row.text(0)), .integer(row.integer(1)), .text(row.text(2)), .real(row.double(3)),
                 row.isNull(4) ? .null : .real(row.double(4)), .blob(row.blob(5))]
            }
        }
    }

    /// Replaces the shared group's keyset rows with `rows`, as a restored backup would.
    func putBack(_ rows: [[SQLiteConnection.Value]]) throws {
        try KeyringDatabase.shared(for: home).write("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            _ = try transaction.run("DELETE FROM keys WHERE access_group = ?", [.text(group.rawValue)])
            for row in rows {
                _ = try transaction.run("INSERT INTO keys (access_group, id, status, created_at, retired_at, sealed) VALUES (?, ?, ?, ?, ?, ?)", row)
            }
        }
    }

    /// Every keyset operation on the shared group, by name.
    var everyOperation: [(String, (Keyring) throws(KeyringError) -> Void)] {
        let group = self.group
        return [
            ("groupKey(for:)", { keyring throws(KeyringError) in _ = try keyring.groupKey(for: group) }),
            ("key(id:in:)", { keyring throws(KeyringError) in _ = try keyring.key(id: 1, in: group) }),
            ("exportKey(id:in:)", { keyring throws(KeyringError) in _ = try keyring.exportKey(id: 1, in: group) }),
            ("rotateKey(in:)", { keyring throws(KeyringError) in try keyring.rotateKey(in: group) }),
            ("retireKey(id:in:)", { keyring throws(KeyringError) in try keyring.retireKey(id: 1, in: group) }),
            ("keys(in:)", { keyring throws(KeyringError) in _ = try keyring.keys(in: group) }),
        ]
    }

    func remove() { directory.remove() }
}

/// The ``KeyringError`` `body` throws; fails the test if it succeeds or throws anything else.
private func keyringError<Result>(
    _ context: String = "",
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws -> Result
) throws -> KeyringError {
    let result: Result
    do {
        result = try body()
    } catch let error as KeyringError {
        return error
    }
    XCTFail("expected a KeyringError\(context.isEmpty ? "" : " from \(context)"), got \(result)", file: file, line: line)
    throw UnexpectedSuccess()
}

/// Ends a test whose operation should have failed but did not.
private struct UnexpectedSuccess: Error {}

/// What `dump` prints for `value`.
private func dumped<Value>(_ value: Value) -> String {
    var text = ""
    dump(value, to: &text)
    return text
}
