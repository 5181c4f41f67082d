import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// Size and range limits: refused before anything is written, with the limit in the reason.
final class ItemLimitsTests: ItemTestCase {
    private func expectError(_ status: KeyringStatus, mentioning words: [String], _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? KeyringError else { return XCTFail("not a KeyringError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.status, status, error.reason, file: file, line: line)
            for word in words {
                XCTAssertTrue(error.reason.contains(word), "reason lacks \"\(word)\": \(error.reason)", file: file, line: line)
            }
        }
    }

    func testASecretAtTheLimitIsAccepted() throws {
        let secret = Data(repeating: 7, count: KeychainItem.maximumSecretSize)
        try keyring.add(KeychainItem(service: "big", secret: secret))
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "big")).secret, secret)
    }

    func testASecretOverTheLimitIsDataTooLargeStatingTheLimit() {
        let secret = Data(repeating: 7, count: KeychainItem.maximumSecretSize + 1)
        expectError(.dataTooLarge, mentioning: ["\(KeychainItem.maximumSecretSize)", "secret"]) {
            try keyring.add(KeychainItem(service: "big", secret: secret))
        }
    }

    func testAnAttributeOverTheLimitIsDataTooLargeNamingTheAttributeAndLimit() {
        let label = String(repeating: "x", count: KeychainItem.maximumAttributeSize + 1)
        expectError(.dataTooLarge, mentioning: ["label", "\(KeychainItem.maximumAttributeSize)"]) {
            try keyring.add(KeychainItem(service: "api", secret: Data("s".utf8), label: label))
        }
    }

    func testAnAttributeIsMeasuredInUTF8Bytes() {
        // 2 bytes per "é": half the limit in characters is already over it in bytes.
        let account = String(repeating: "é", count: KeychainItem.maximumAttributeSize / 2 + 1)
        expectError(.dataTooLarge, mentioning: ["account"]) {
            try keyring.add(KeychainItem(service: "api", account: account, secret: Data("s".utf8)))
        }
    }

    func testGenericDataOverTheLimitIsDataTooLarge() {
        expectError(.dataTooLarge, mentioning: ["generic"]) {
            try keyring.add(KeychainItem(service: "api", secret: Data("s".utf8), generic: Data(count: KeychainItem.maximumAttributeSize + 1)))
        }
    }

    func testAPortOutsideTheValidRangeIsInvalidParameter() {
        for port in [-1, 65536] {
            expectError(.invalidParameter, mentioning: ["port", "\(port)"]) {
                try keyring.add(KeychainItem(.internetPassword, account: "me", secret: Data("s".utf8), server: "example.com", port: port))
            }
        }
    }

    func testAnUpdateOverTheSecretLimitIsDataTooLargeAndChangesNothing() throws {
        try keyring.add(KeychainItem(service: "api", secret: Data("small".utf8)))
        var changes = ItemChanges()
        changes.secret = Data(count: KeychainItem.maximumSecretSize + 1)
        expectError(.dataTooLarge, mentioning: ["\(KeychainItem.maximumSecretSize)"]) {
            try keyring.update(matching: ItemQuery(service: "api"), with: changes)
        }
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api")).secret, Data("small".utf8))
    }

    func testAnUpdateOverTheAttributeLimitIsDataTooLarge() throws {
        try keyring.add(KeychainItem(service: "api", secret: Data("s".utf8)))
        var changes = ItemChanges()
        changes.comment = String(repeating: "c", count: KeychainItem.maximumAttributeSize + 1)
        expectError(.dataTooLarge, mentioning: ["comment", "\(KeychainItem.maximumAttributeSize)"]) {
            try keyring.update(matching: ItemQuery(service: "api"), with: changes)
        }
    }

    func testAnUpdateToAnInvalidPortIsInvalidParameter() throws {
        try keyring.add(KeychainItem(.internetPassword, account: "me", secret: Data("s".utf8), server: "example.com", port: 443))
        var changes = ItemChanges()
        changes.port = 70000
        expectError(.invalidParameter, mentioning: ["70000"]) {
            try keyring.update(matching: ItemQuery(.internetPassword, server: "example.com"), with: changes)
        }
    }

    func testTheReasonNeverQuotesTheOversizedValue() {
        let marker = "SECRET-MARKER-"
        let label = marker + String(repeating: "x", count: KeychainItem.maximumAttributeSize)
        XCTAssertThrowsError(try keyring.add(KeychainItem(service: "api", secret: Data("s".utf8), label: label))) { error in
            XCTAssertFalse(String(describing: error).contains(marker), String(describing: error))
        }
    }
}
