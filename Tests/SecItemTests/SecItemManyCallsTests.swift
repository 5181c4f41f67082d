// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Security
import XCTest

/// Wrappers' own test suites make thousands of SecItem calls (their concurrency tests loop
/// over set/get/update/delete). This makes 2,000 calls through the SecItem path, in rounds of
/// add, read, update and delete over a set of keys, and checks every result; how long it takes
/// is measured by the benchmarks, never asserted here.
final class SecItemManyCallsTests: SecItemTestCase {
    static let rounds = 10
    static let keys = 50

    func testTwoThousandCallsEachReturnTheRightResult() {
        var calls = 0
        for round in 0..<Self.rounds {
            for index in 0..<Self.keys {
                let status = add(genericPassword(account: "key-\(index)"), secret: "value-\(round)-\(index)")
                XCTAssertEqual(status, errSecSuccess, describe(status))
                calls += 1
            }
            for index in 0..<Self.keys {
                let (status, result) = copy(genericPassword(account: "key-\(index)", [kSecReturnData as String: true]))
                XCTAssertEqual(status, errSecSuccess, describe(status))
                XCTAssertEqual(result as? Data, Data("value-\(round)-\(index)".utf8))
                calls += 1
            }
            for index in 0..<Self.keys {
                let status = SecItemUpdate(
                    genericPassword(account: "key-\(index)") as CFDictionary,
                    [kSecValueData as String: Data("updated-\(round)-\(index)".utf8)] as CFDictionary)
                XCTAssertEqual(status, errSecSuccess, describe(status))
                calls += 1
            }
            // Every update landed on its own item and on no other.
            let (status, result) = copy([
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api",
                kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true, kSecReturnData as String: true,
            ])
            XCTAssertEqual(status, errSecSuccess, describe(status))
            let items = (result as? [[String: Any]]) ?? []
            XCTAssertEqual(items.count, Self.keys)
            for item in items {
                let account = item[kSecAttrAccount as String] as? String ?? ""
                let expected = "updated-\(round)-" + account.dropFirst("key-".count)
                XCTAssertEqual(item[kSecValueData as String] as? Data, Data(expected.utf8), account)
            }
            for index in 0..<Self.keys {
                let status = SecItemDelete(genericPassword(account: "key-\(index)") as CFDictionary)
                XCTAssertEqual(status, errSecSuccess, describe(status))
                calls += 1
            }
            XCTAssertEqual(copy(genericPassword(account: "key-0")).status, errSecItemNotFound)
        }
        XCTAssertEqual(calls, 2_000)
    }
}
#endif
