import Foundation
import Keyring
import Vault
import XCTest

/// Specification of `records(sealedWithKey:)` and `recordsMissingFromDisk()`: what `keys
/// retire`, `records verify` and `doctor` rely on.
final class VaultKeyUsageTests: VaultTestCase {
    func testRecordsSealedWithAKeyAreNamedUntilResealed() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "b")
        try vault.write(AuthState.signedIn, to: "a")
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        try vault.write(AuthState.signedIn, to: "c")
        XCTAssertEqual(try vault.records(sealedWithKey: 1), ["a", "b"])
        XCTAssertEqual(try vault.records(sealedWithKey: 2), ["c"])
        try vault.reseal("a")
        XCTAssertEqual(try vault.records(sealedWithKey: 1), ["b"])
    }

    func testARecordWhoseFileWasRemovedIsMissingFromDisk() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "kept")
        try vault.write(AuthState.signedIn, to: "gone")
        XCTAssertEqual(try vault.recordsMissingFromDisk(), [])
        try FileManager.default.removeItem(at: sandbox.recordURL("gone", in: vault))
        XCTAssertEqual(try vault.recordsMissingFromDisk(), ["gone"])
    }

    func testADeletedRecordIsNotMissing() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "note")
        try vault.delete("note")
        XCTAssertEqual(try vault.recordsMissingFromDisk(), [])
    }
}
