import Foundation
import Keyring
import SealedStorage
import SystemPackage
import Vault
import XCTest

/// A vault error keeps what it was made from as a value (the `StorageError` and its `Errno`, the
/// `KeyringError`, whatever a locked body threw) and, where the fix is certain, a remedy.
final class VaultErrorCauseTests: VaultTestCase {
    override func tearDown() {
        FaultInjection.disarmAll()
        super.tearDown()
    }

    private struct WriteSucceeded: Error {}

    /// The error of a write whose temporary file's fsync finds the disk full.
    private func writeOnAFullDisk() throws -> VaultError {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        return try FaultInjection.withFault(.fail(.noSpace), at: .step(.syncTemporary)) { () throws -> VaultError in
            do {
                try vault.write(AuthState.signedOut, to: "auth-state")
            } catch let error as VaultError {
                return error
            }
            throw WriteSucceeded()
        }
    }

    func testAStorageFailureKeepsTheStorageErrorWithItsErrno() throws {
        let error = try writeOnAFullDisk()
        let storage = try XCTUnwrap(error.underlyingError as? StorageError, "\(error)")
        XCTAssertEqual(storage.kind, .system(.noSpace))
    }

    func testTheErrnoOfAStorageFailureIsFoundThroughTheChain() throws {
        XCTAssertEqual(try writeOnAFullDisk().cause(as: Errno.self), .noSpace)
    }

    func testAFullDiskCarriesTheFreeSpaceRemedy() throws {
        XCTAssertEqual(try writeOnAFullDisk().remedy, .freeSpace)
    }

    func testAKeyringFailureKeepsTheKeyringErrorAndItsRemedy() {
        let locked = KeyringError(.interactionNotAllowed, "the home is locked", underlyingError: nil, remedy: .unlock)
        let error = VaultError(keyring: locked, while: "read auth-state")
        XCTAssertEqual(error.underlyingError as? KeyringError, locked)
        XCTAssertEqual(error.remedy, .unlock)
    }

    func testAnErrorOfNoKnownTypeIsKeptAsTheCauseNotReducedToItsTypeName() {
        struct Unforeseen: Error, Equatable { let detail = 7 }
        let error = VaultError(any: Unforeseen(), while: "update the ledger")
        XCTAssertEqual(error.code, .storage)
        XCTAssertEqual(error.underlyingError as? Unforeseen, Unforeseen())
    }

    func testAnUnentitledIdentityIsToldToGrantTheGroup() {
        let stranger = Keyring(identity: Identity(teamID: "ZZZZZ99999", bundleID: "com.other.app", applicationGroups: [VaultSandbox.otherGroup]), home: sandbox.home)
        do {
            _ = try Vault(keyring: stranger, group: VaultSandbox.group)
            XCTFail("an unentitled identity opened the vault")
        } catch {
            XCTAssertEqual(error.remedy, .grantEntitlement(group: VaultSandbox.group.rawValue), "\(error)")
        }
    }

    func testEqualityComparesCodeReasonAndRemedyButNotTheCause() {
        let a = VaultError(.storage, "r", underlyingError: Errno.noSpace, remedy: .freeSpace)
        XCTAssertEqual(a, VaultError(.storage, "r", underlyingError: Errno.ioError, remedy: .freeSpace))
        XCTAssertNotEqual(a, VaultError(.storage, "r", underlyingError: Errno.noSpace, remedy: nil))
    }
}
