@testable import Keyring
import SealedStorage
import XCTest

/// The group's attribute hasher is made on first use only, and hashes as the one it stands for.
final class GroupAttributeHasherTests: XCTestCase {
    private let group = GroupIdentifier(rawValue: "group.com.example")!
    private let key = try! SymmetricKey(bytes: [UInt8](repeating: 9, count: 32))

    func testNothingIsMadeBeforeTheFirstUse() {
        let hasher = GroupAttributeHasher(group: group, key: key)

        XCTAssertFalse(hasher.isMade)
        hasher.use { _ in }
        XCTAssertTrue(hasher.isMade)
    }

    func testEachUseHashesAsTheGroupsHasherDoes() {
        let hasher = GroupAttributeHasher(group: group, key: key)
        let direct = ItemTable.Hashes.hasher(for: group, key: key)

        for value in ["api", "", "caf\u{E9}", "api"] {
            XCTAssertEqual(
                hasher.use { ItemTable.Hashes.attribute("service", value, hasher: $0) },
                ItemTable.Hashes.attribute("service", value, hasher: direct), value)
        }
    }
}
