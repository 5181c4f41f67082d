import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// Specification of `importKey(_:id:in:)`, the counterpart of `exportKey(id:in:)`.
final class KeyImportTests: XCTestCase {
    private var scenario: KeysetScenario!

    override func setUpWithError() throws {
        scenario = try KeysetScenario()
    }

    override func tearDown() {
        scenario?.remove()
        scenario = nil
    }

    private var bytes: Data { Data((0..<32).map { UInt8($0) }) }

    func testImportIntoAnEmptyKeysetMakesThePrimaryKey() throws {
        let descriptor = try scenario.app.importKey(bytes, id: 3, in: scenario.group)
        XCTAssertEqual(descriptor.status, .primary)
        XCTAssertEqual(try scenario.app.exportKey(id: 3, in: scenario.group), bytes)
        XCTAssertEqual(try scenario.app.groupKey(for: scenario.group).id, 3)
    }

    func testImportBesideExistingKeysAddsAnActiveKeyAndRotationSkipsItsId() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        XCTAssertEqual(try scenario.app.importKey(bytes, id: 5, in: scenario.group).status, .active)
        XCTAssertEqual(try scenario.app.rotateKey(in: scenario.group).id, 6)
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).map(\.status), [.active, .active, .primary])
    }

    func testImportOfARetiredKeyMakesItActiveAgain() throws {
        let original = try scenario.app.exportKey(id: scenario.app.groupKey(for: scenario.group).id, in: scenario.group)
        try scenario.app.rotateKey(in: scenario.group)
        try scenario.app.retireKey(id: 1, in: scenario.group)
        XCTAssertEqual(try scenario.app.importKey(original, id: 1, in: scenario.group).status, .active)
        XCTAssertEqual(try scenario.app.exportKey(id: 1, in: scenario.group), original)
    }

    func testImportOfTheSameBytesTwiceChangesNothing() throws {
        try scenario.app.importKey(bytes, id: 1, in: scenario.group)
        let before = try scenario.app.keys(in: scenario.group)
        try scenario.app.importKey(bytes, id: 1, in: scenario.group)
        XCTAssertEqual(try scenario.app.keys(in: scenario.group), before)
    }

    func testImportOfDifferentBytesUnderAnExistingIdIsRefused() throws {
        _ = try scenario.app.groupKey(for: scenario.group)
        XCTAssertThrowsError(try scenario.app.importKey(bytes, id: 1, in: scenario.group)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .duplicateItem)
        }
    }

    func testImportRefusesAKeyThatIsNot32Bytes() throws {
        XCTAssertThrowsError(try scenario.app.importKey(Data(count: 16), id: 1, in: scenario.group)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .invalidParameter)
        }
    }

    func testImportNeedsTheEntitlement() throws {
        XCTAssertThrowsError(try scenario.widget.importKey(bytes, id: 1, in: scenario.teamGroup)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .missingEntitlement)
        }
    }
}
