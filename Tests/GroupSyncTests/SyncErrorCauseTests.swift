import GroupSyncCore
import GroupVaultTestKit
import Keyring
import XCTest

/// A GroupSync error keeps the error it was made from as ``SyncError/underlyingError`` (the name
/// every GroupVault error uses) and passes on the remedy the keyring knows.
final class SyncErrorCauseTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "sync-cause") }
    override func tearDown() { directory.remove() }

    /// The error loading the naming key of a group the identity is not entitled to.
    private func namingKeyOfAnUnentitledGroup() throws -> SyncError {
        let stranger = Keyring(
            identity: Identity(teamID: "ZZZZZ99999", bundleID: "com.other.app", applicationGroups: []),
            home: KeyringHome(root: directory.url))
        do {
            _ = try SyncNaming.load(group: GroupIdentifier(rawValue: "group.com.example.shared")!, keyring: stranger)
        } catch {
            return error
        }
        XCTFail("an unentitled identity read the naming key")
        throw SyncErrorCauseTestsNotRefused()
    }

    func testAKeyringRefusalKeepsTheKeyringErrorWithItsStatus() throws {
        let error = try namingKeyOfAnUnentitledGroup()
        XCTAssertEqual(error.code, .keyring)
        XCTAssertEqual(error.cause(as: KeyringError.self)?.status, .missingEntitlement, "\(error)")
    }

    func testAKeyringRefusalPassesOnTheKeyringsRemedy() throws {
        let error = try namingKeyOfAnUnentitledGroup()
        // The keyring knows the fix (entitle the identity), so it is not replaced by importKey.
        XCTAssertEqual(error.remedy, .grantEntitlement(group: "group.com.example.shared"), "\(error)")
    }
}

private struct SyncErrorCauseTestsNotRefused: Error {}
