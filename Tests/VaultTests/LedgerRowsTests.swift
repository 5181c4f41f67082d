import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// `Vault.ledgerRows()`: the group's trust ledger as stored, enough for an outsider holding the
/// master secret to check rollback protection from docs/FORMAT.md ("Trust ledger") alone.
final class LedgerRowsTests: VaultTestCase {
    private func blobDigest(_ name: String) throws -> String {
        let blob = Array(try Data(contentsOf: sandbox.recordURL(name, in: sandbox.vault())))
        return Hex.lowercase(Digest.blake2b256(blob))
    }

    func testAGroupNothingWroteHasNoRows() throws {
        XCTAssertEqual(try sandbox.vault().ledgerRows(), [])
    }

    func testEachRecordHasItsConfirmedSequenceAndTheDigestOfItsBlob() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try vault.write(AuthState.signedInAgain, to: "auth-state")
        try vault.write(AuthState.signedOut, to: "another")

        let rows = try vault.ledgerRows()

        XCTAssertEqual(rows.map(\.record), ["another", "auth-state"], "sorted by record name")
        XCTAssertEqual(rows.map(\.confirmed), [1, 2])
        XCTAssertEqual(rows.map(\.confirmedDigest), [try blobDigest("another"), try blobDigest("auth-state")])
        XCTAssertEqual(rows.map(\.pending), [nil, nil], "no write is in flight")
        XCTAssertEqual(rows.map(\.isAuthentic), [true, true])
    }

    /// The tag recomputed by the letter of docs/FORMAT.md from `master.key` and the row's fields.
    func testTheTagIsTheDocumentedKeyedHashOfTheRow() throws {
        try sandbox.vault().write(AuthState.signedIn, to: "auth-state")
        let row = try XCTUnwrap(try sandbox.vault().ledgerRows().first)

        let master = try SymmetricKey(bytes: Data(contentsOf: sandbox.home.root.appendingPathComponent("Keychains/master.key")))
        let key = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 4)
        var message = Array("GroupVault ledger row 1".utf8)
        func counted(_ text: String) {
            message += withUnsafeBytes(of: UInt32(text.utf8.count).bigEndian, Array.init) + Array(text.utf8)
        }
        func sequence(_ value: UInt64?) {
            message += [value == nil ? 0 : 1] + withUnsafeBytes(of: (value ?? 0).bigEndian, Array.init)
        }
        counted(VaultSandbox.group.rawValue)
        counted(row.record)
        sequence(row.confirmed)
        counted(row.confirmedDigest)
        sequence(row.pending)
        counted(row.pendingDigest ?? "")
        message.append(row.pendingDigest == nil ? 0 : 1)

        XCTAssertEqual(message.count, 156, "docs/FORMAT.md's example row is 156 bytes")
        XCTAssertEqual(row.tag, Digest.keyedBLAKE2b256(message, key: key))
    }

    /// Readers refuse an altered row; the listing shows it, marked, beside the intact ones.
    func testARowAlteredWithoutTheMasterKeyIsListedAsNotAuthentic() throws {
        try sandbox.vault().write(AuthState.signedIn, to: "auth-state")
        try sandbox.vault().write(AuthState.signedOut, to: "kept")
        let digest = try blobDigest("auth-state")
        KeyringDatabase.closeAll()
        let url = sandbox.home.root.appendingPathComponent("Keychains").appendingPathComponent(KeyringDatabase.fileName)
        var bytes = Array(try Data(contentsOf: url))
        let offset = try XCTUnwrap(bytes.indices.first { Array(bytes[$0...].prefix(digest.utf8.count)) == Array(digest.utf8) })
        bytes[offset] = bytes[offset] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        try Data(bytes).write(to: url)

        let rows = try sandbox.vault().ledgerRows()

        XCTAssertEqual(rows.map(\.record), ["auth-state", "kept"])
        XCTAssertEqual(rows.map(\.isAuthentic), [false, true])
    }
}
