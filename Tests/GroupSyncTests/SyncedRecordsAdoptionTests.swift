import Foundation
import GroupSync
import Keyring
import SealedStorage
import Vault
import XCTest

/// A group's Vault record opted into sync (`SyncedRecords.adopt`): taken only as a Vault read
/// would take it, and never over a value that would be lost or kept too long.
final class SyncedRecordsAdoptionTests: SyncSandboxTestCase {
    private struct Profile: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 1
        var displayName: String
    }

    private var vault: Vault!
    private var records: SyncedRecords!

    override func setUpWithError() throws {
        try super.setUpWithError()
        vault = try Vault(keyring: sandbox.keyrings[0], group: SyncSandbox.group)
        records = try SyncedRecords(group: SyncSandbox.group, keyring: sandbox.keyrings[0], configuration: .some(nil))
    }

    /// Asserts that adopting "profile" fails with `code` (and `refusal`) and writes nothing.
    private func assertAdoptionRefused(
        _ code: SyncError.Code, refusal: VaultError.Code? = nil, from vault: Vault? = nil, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try records.adopt(Profile.self, from: vault ?? self.vault, name: "profile"), file: file, line: line) { error in
            XCTAssertEqual((error as? SyncError)?.code, code, "\(error)", file: file, line: line)
            XCTAssertEqual((error as? SyncError)?.refusal, refusal, "\(error)", file: file, line: line)
        }
        XCTAssertEqual(records.names(), [], "nothing was written", file: file, line: line)
        XCTAssertEqual(records.status.pendingWrites, 0, file: file, line: line)
    }

    func testAnAdoptedRecordIsReadFromTheSyncedRecordsAndPending() throws {
        try vault.write(Profile(displayName: "Ada"), to: "profile")

        try records.adopt(Profile.self, from: vault, name: "profile")

        XCTAssertEqual(try records.read(Profile.self, from: "profile"), Profile(displayName: "Ada"))
        XCTAssertEqual(records.status.pendingWrites, 1, "pushed by the next exchange")
        XCTAssertEqual(try vault.read(Profile.self, from: "profile"), Profile(displayName: "Ada"), "the Vault's record is left as it is")
    }

    func testARolledBackVaultRecordIsRefusedWithTheVaultsReason() throws {
        try vault.write(Profile(displayName: "old"), to: "profile")
        let file = vault.recordPath(try RecordName(validating: "profile")).string
        let older = try Data(contentsOf: URL(fileURLWithPath: file))
        try vault.write(Profile(displayName: "new"), to: "profile")
        try older.write(to: URL(fileURLWithPath: file))

        assertAdoptionRefused(.refused, refusal: .rollback)
    }

    func testARecordWithAnExpiryIsRefusedSinceSyncedRecordsDoNotExpire() throws {
        try vault.write(Profile(displayName: "Ada"), to: "profile", expiresAt: Date().addingTimeInterval(3600))

        assertAdoptionRefused(.invalidArgument)
    }

    func testARecordOfASchemaTheTypeDoesNotReadIsRefused() throws {
        struct ProfileVersion2: VaultRecord {
            static let schemaVersion: UInt32 = 2
            var displayName: String
        }
        try vault.write(ProfileVersion2(displayName: "Ada"), to: "profile")

        assertAdoptionRefused(.refused, refusal: .unsupportedSchema)
    }

    func testAnAbsentRecordIsAnInvalidArgument() {
        assertAdoptionRefused(.invalidArgument)
    }

    func testAVaultOfAnotherGroupIsRefused() throws {
        let other = try Vault(keyring: sandbox.keyrings[0], group: SyncSandbox.otherGroup)
        try other.write(Profile(displayName: "Ada"), to: "profile")

        assertAdoptionRefused(.invalidArgument, from: other)
    }

    func testARecordSyncedAlreadyIsNotReplacedByTheVaultsCopy() throws {
        try records.write(Profile(displayName: "synced"), to: "profile")
        try vault.write(Profile(displayName: "vault"), to: "profile")

        XCTAssertThrowsError(try records.adopt(Profile.self, from: vault, name: "profile")) { error in
            XCTAssertEqual((error as? SyncError)?.code, .invalidArgument, "\(error)")
        }
        XCTAssertEqual(try records.read(Profile.self, from: "profile"), Profile(displayName: "synced"))
    }
}
