import Foundation
import Keyring
import XCTest

/// Names chosen by another member of the group (SharedDefaults keys, item attributes) reach
/// the terminal escaped, in text and in `--json` output: no escape sequence, no C1 control,
/// no bidirectional override, no line break of their own.
final class UntrustedOutputTests: VaultCLITestCase {
    /// Clears the screen, starts a control sequence on many terminals (C1 CSI), reverses what
    /// follows, and starts a forged line.
    private let hostile = "k\u{1b}[2J\u{9b}31m\u{202e}gpj.exe\nforged line"

    /// The characters that must never reach the terminal as they are.
    private let dangerous: [Unicode.Scalar] = ["\u{1b}", "\u{9b}", "\u{202e}"]

    private func assertInert(_ output: String, lines: Int, file: StaticString = #filePath, line: UInt = #line) {
        for scalar in dangerous {
            XCTAssertFalse(output.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) printed as is: \(output.debugDescription)", file: file, line: line)
        }
        XCTAssertEqual(output.filter { $0 == "\n" }.count, lines, "a line break of its own: \(output.debugDescription)", file: file, line: line)
    }

    private func writeHostileKey() throws {
        let result = try vaultcli("defaults", "write", "--group", group, hostile, "dark")
        XCTAssertEqual(result.status, 0, result.transcript)
    }

    func testDefaultsListEscapesAHostileKeyInText() throws {
        try writeHostileKey()
        let result = try vaultcli("defaults", "list", "--group", group)
        XCTAssertEqual(result.status, 0, result.transcript)
        assertInert(result.output, lines: 2)  // the header and the key's row
    }

    func testDefaultsListEscapesAHostileKeyInJSONWhichStillDecodesToTheKey() throws {
        try writeHostileKey()
        let result = try vaultcli("defaults", "list", "--group", group, "--json")
        assertInert(result.output, lines: 1)
        let keys = try XCTUnwrap(try json(result)["keys"] as? [[String: Any]])
        XCTAssertEqual(keys.first?["key"] as? String, hostile)
        XCTAssertTrue(result.output.contains("\\u009b") && result.output.contains("\\u202e"), result.output)
    }

    func testDefaultsReadEscapesAHostileKeyInJSON() throws {
        let result = try vaultcli("defaults", "read", "--group", group, hostile, "--json")
        XCTAssertEqual(result.status, 4, "absent: \(result.transcript)")
        assertInert(result.output, lines: 1)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        XCTAssertEqual(object?["key"] as? String, hostile)
    }

    func testDefaultsReadEscapesAHostileValueShownWithReveal() throws {
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "theme", hostile).status, 0)
        let result = try vaultcli("defaults", "read", "--group", group, "theme", "--reveal")
        XCTAssertEqual(result.status, 0, result.transcript)
        assertInert(result.output, lines: 1)
    }

    func testDefaultsImportEscapesAHostileKeyOfThePlist() throws {
        let plist = directory.url.appendingPathComponent("prefs.plist")
        try PropertyListSerialization.data(fromPropertyList: [hostile: "dark"], format: .binary, options: 0).write(to: plist)
        let text = try vaultcli("defaults", "import", "--group", group, "--file", plist.path, "--dry-run")
        XCTAssertEqual(text.status, 0, text.transcript)
        assertInert(text.output, lines: 1)
        let json = try vaultcli("defaults", "import", "--group", group, "--file", plist.path, "--dry-run", "--json")
        assertInert(json.output, lines: 1)
        XCTAssertEqual((try self.json(json)["moved"] as? [String])?.first, hostile)
    }

    func testItemsListEscapesAHostileLabelInJSON() throws {
        try keyring().add(KeychainItem(service: "api.example.com", account: "ada", secret: Data("s".utf8), label: hostile))
        let result = try vaultcli("items", "list", "--json")
        for scalar in dangerous {
            XCTAssertFalse(result.output.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) printed as is: \(result.output.debugDescription)")
        }
        let items = try XCTUnwrap(try json(result)["items"] as? [[String: Any]])
        XCTAssertEqual(items.first?["label"] as? String, hostile, "the JSON still decodes to the label")
    }

    func testItemsListEscapesAHostileLabelInText() throws {
        try keyring().add(KeychainItem(service: "api.example.com", account: "ada", secret: Data("s".utf8), label: hostile))
        let result = try vaultcli("items")
        XCTAssertEqual(result.status, 0, result.transcript)
        assertInert(result.output, lines: 2)
    }

    func testAUsageErrorQuotingAHostileArgumentIsOneInertLine() throws {
        // Scripts pass names read from disk as arguments; ArgumentParser quotes them back.
        let result = try vaultcli("items", "--\(hostile)")
        assertFails(result, with: 2, mentioning: [])
        assertInert(result.errors, lines: 1)
    }
}
