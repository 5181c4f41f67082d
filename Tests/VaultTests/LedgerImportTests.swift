import Foundation
import Keyring
import SealedStorage
import Vault
import XCTest

/// A group whose trust ledger is in the sealed-JSON layout of earlier versions
/// (`Keychains/<group>/vault-ledger.sealed`) is imported into the keyring database on first
/// use, once, and the old file is kept.
final class LedgerImportTests: VaultTestCase {
    private let digest = String(repeating: "ab", count: 32)

    override func setUpWithError() throws {
        try super.setUpWithError()
        // Written the way the earlier versions wrote it: a sealed document of kind vault-ledger.
        try legacyDocument.update { (content: inout TrustLedger.Content?) throws(KeyringError) in
            content = TrustLedger.Content(records: ["auth-state": TrustLedger.Entry(sequence: 5, digest: digest)])
        }
    }

    private var legacyDocument: SealedDocument<TrustLedger.Content> {
        SealedDocument(home: sandbox.home, group: VaultSandbox.group, kind: TrustLedger.kind)
    }

    func testTheEntriesOfASealedLedgerAreImported() throws {
        let entry = try sandbox.vault().ledger.entry(for: RecordName(validating: "auth-state"))

        XCTAssertEqual(entry, TrustLedger.Entry(sequence: 5, digest: digest))
    }

    func testAWriteContinuesAboveTheImportedSequence() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        XCTAssertEqual(try vault.ledger.entry(for: RecordName(validating: "auth-state"))?.sequence, 6)
    }

    func testTheSealedLedgerFileIsKept() throws {
        _ = try sandbox.vault().ledger.entry(for: RecordName(validating: "auth-state"))

        XCTAssertTrue(FileManager.default.fileExists(atPath: legacyDocument.path.string))
    }
}
