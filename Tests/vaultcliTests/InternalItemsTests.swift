import Foundation
import Keyring
import XCTest

/// SharedDefaults' naming key is a keychain item of the group, but the library's, not the
/// operator's: deleting it makes every setting of the group unreadable. A broad selector
/// (`--group`) must not reach it unless asked with `--include-internal`.
final class InternalItemsTests: VaultCLITestCase {
    private let namingKeyService = "org.groupvault.shared-defaults"

    /// A setting written (which creates the naming key) and one operator item, both in `group`.
    private func arrangeASettingAndAnOperatorItem() throws {
        let written = try vaultcli("defaults", "write", "--group", group, "theme", "dark")
        XCTAssertEqual(written.status, 0, written.transcript)
        try keyring().add(KeychainItem(service: "api.example.com", account: "ada", accessGroup: try GroupIdentifier(validating: group),
                                       secret: Data("token".utf8)))
    }

    private func assertTheSettingIsStillReadable(file: StaticString = #filePath, line: UInt = #line) throws {
        let read = try vaultcli("defaults", "read", "--group", group, "theme", "--reveal")
        XCTAssertEqual(read.status, 0, read.transcript, file: file, line: line)
        XCTAssertTrue(read.output.contains("dark"), read.transcript, file: file, line: line)
    }

    func testDeletingByGroupIsRefusedWhenItWouldIncludeTheNamingKey() throws {
        try arrangeASettingAndAnOperatorItem()
        let refused = try vaultcli("items", "delete", "--group", group)
        assertFails(refused, with: 2, mentioning: ["internal", namingKeyService, "--include-internal"])
        XCTAssertEqual(try keyring().items(matching: ItemQuery(service: "api.example.com"), includingSecrets: false).count, 1,
                       "a refused delete deletes nothing")
        try assertTheSettingIsStillReadable()
    }

    func testANarrowSelectorStillDeletesTheOperatorsItemsOfTheGroup() throws {
        try arrangeASettingAndAnOperatorItem()
        let deleted = try vaultcli("items", "delete", "--group", group, "--service", "api.example.com")
        XCTAssertEqual(deleted.status, 0, deleted.transcript)
        XCTAssertEqual(deleted.output, "deleted 1 item\n")
        try assertTheSettingIsStillReadable()
    }

    func testIncludeInternalDeletesTheNamingKeyWhenAsked() throws {
        try arrangeASettingAndAnOperatorItem()
        let deleted = try vaultcli("items", "delete", "--group", group, "--include-internal")
        XCTAssertEqual(deleted.status, 0, deleted.transcript)
        XCTAssertEqual(deleted.output, "deleted 2 items\n")
    }

    func testUpdatingByGroupIsRefusedWhenItWouldIncludeTheNamingKey() throws {
        try arrangeASettingAndAnOperatorItem()
        let refused = try vaultcli("items", "update", "--group", group, "--new-secret", input: "overwritten")
        assertFails(refused, with: 2, mentioning: ["internal", namingKeyService, "--include-internal"])
        try assertTheSettingIsStillReadable()
    }

    func testListMarksTheNamingKeyAsInternal() throws {
        try arrangeASettingAndAnOperatorItem()
        let listed = try vaultcli("items", "list", "--json")
        let items = try XCTUnwrap(try json(listed)["items"] as? [[String: Any]], listed.transcript)
        let namingKey = try XCTUnwrap(items.first { $0["service"] as? String == namingKeyService }, listed.output)
        let operatorItem = try XCTUnwrap(items.first { $0["service"] as? String == "api.example.com" }, listed.output)
        XCTAssertEqual(namingKey["internal"] as? Bool, true, listed.output)
        XCTAssertEqual(operatorItem["internal"] as? Bool, false, listed.output)
        let table = try vaultcli("items", "list")
        XCTAssertTrue(table.output.split(separator: "\n").contains { $0.contains(namingKeyService) && $0.contains("internal") },
                      table.transcript)
    }
}
