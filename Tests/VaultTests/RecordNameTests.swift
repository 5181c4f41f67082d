import Foundation
import Vault
import XCTest

final class RecordNameTests: VaultTestCase {
    static let valid = ["a", "auth-state", "Auth_State.v2", "0", "a.b.c", "x-", "a_", String(repeating: "n", count: 128)]
    static let invalid = [
        "", ".", "..", ".hidden", "a/b", "/abs", "a\\b", "../escape", "a..b", "a b", "tab\t", "nul\u{0}",
        "é", "emoji🙂", "semi;colon", "star*", String(repeating: "n", count: 129),
    ]

    func testEveryASCIICharacterIsAllowedExactlyWhenTheRulesAllowIt() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-".unicodeScalars)
        for value in UInt8(0)...UInt8(127) {
            let scalar = Unicode.Scalar(value)
            let name = "a\(Character(scalar))b"
            let accepted = (try? RecordName(validating: name)) != nil
            XCTAssertEqual(accepted, allowed.contains(scalar), name.debugDescription)
        }
    }

    func testValidNamesAreWrittenAndRead() throws {
        let vault = try sandbox.vault()

        for name in Self.valid {
            try vault.write(AuthState.signedIn, to: name)
            XCTAssertEqual(try vault.read(AuthState.self, from: name), AuthState.signedIn, name)
        }
    }

    func testInvalidNamesAreRefusedOnWrite() throws {
        let vault = try sandbox.vault()

        for name in Self.invalid {
            assertRefused(.invalidName, name.debugDescription) { () throws(VaultError) in try vault.write(AuthState.signedIn, to: name) }
        }
    }

    func testInvalidNamesAreRefusedOnRead() throws {
        let vault = try sandbox.vault()

        for name in Self.invalid {
            assertRefused(.invalidName, name.debugDescription) { () throws(VaultError) in try vault.read(AuthState.self, from: name) }
        }
    }

    func testInvalidNamesAreRefusedByDeleteAndReseal() throws {
        let vault = try sandbox.vault()

        assertRefused(.invalidName) { () throws(VaultError) in try vault.delete("../x") }
        assertRefused(.invalidName) { () throws(VaultError) in try vault.reseal("../x") }
    }

    func testInvalidNameLeavesNoFileOutsideTheRecordsDirectory() throws {
        let vault = try sandbox.vault()

        _ = try? vault.write(AuthState.signedIn, to: "../escape")

        let parent = URL(fileURLWithPath: vault.recordsDirectory.string).deletingLastPathComponent()
        XCTAssertFalse(FileManager.default.fileExists(atPath: parent.appendingPathComponent("escape.gvr").path))
    }

    func testRefusalReasonEscapesControlCharacters() throws {
        let vault = try sandbox.vault()

        do {
            try vault.write(AuthState.signedIn, to: "line\nforged log entry")
            XCTFail("a name with a newline was accepted")
        } catch {
            XCTAssertEqual(error.code, .invalidName)
            XCTAssertFalse(error.reason.contains("\n"), error.reason)
        }
    }
}
