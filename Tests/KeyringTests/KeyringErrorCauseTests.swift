import CSQLite
import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import SystemPackage
import XCTest

/// A keyring error keeps what it was made from as a value (the `StorageError` and its `Errno`,
/// the SQLite result code, a nested keyring error) and, where the fix is certain, a remedy:
/// code branches on values, never on the reason's words.
final class KeyringErrorCauseTests: ItemTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
    }

    private func addOnAFullDisk() -> KeyringError? {
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            keyringError { try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("second".utf8))) }
        }
    }

    func testAStorageFailureKeepsTheStorageErrorWithItsErrno() throws {
        let error = try XCTUnwrap(addOnAFullDisk())
        let storage = try XCTUnwrap(error.underlyingError as? StorageError, "\(String(describing: error.underlyingError))")
        XCTAssertEqual(storage.kind, .system(.noSpace))
    }

    func testTheErrnoOfAStorageFailureIsFoundThroughTheChain() throws {
        let error = try XCTUnwrap(addOnAFullDisk())
        XCTAssertEqual(error.cause(as: Errno.self), .noSpace)
    }

    func testAFullDiskCarriesTheFreeSpaceRemedy() throws {
        XCTAssertEqual(try XCTUnwrap(addOnAFullDisk()).remedy, .freeSpace)
    }

    func testAStorageFailureKeepsItsAppleStatus() throws {
        XCTAssertEqual(try XCTUnwrap(addOnAFullDisk()).status, .ioError)
    }

    func testASQLiteFailureKeepsItsResultCode() throws {
        let error = try XCTUnwrap(keyringError {
            try KeyringDatabase.shared(for: home.home).write("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
                _ = try transaction.run("INSERT INTO no_such_table (x) VALUES (1)")
            }
        })
        let failure = try XCTUnwrap(error.cause(as: SQLiteFailure.self), "\(error)")
        XCTAssertEqual(failure.primaryCode, SQLITE_ERROR)
    }

    func testADamagedDatabaseKeepsTheSQLiteCodeAndSaysRestoreFromBackup() throws {
        KeyringDatabase.closeAll()
        let file = try FileHandle(forWritingTo: home.databaseFile)
        try file.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try file.close()
        let error = try XCTUnwrap(keyringError { _ = try KeyringDatabase.shared(for: home.home) })
        let failure = try XCTUnwrap(error.cause(as: SQLiteFailure.self), "\(error)")
        XCTAssertTrue(failure.isCorruption, "\(failure)")
        XCTAssertEqual(error.remedy?.kind, .restoreFromBackup)
        XCTAssertEqual(error.remedy?.path, home.databaseFile.path)
    }

    func testARewrappedKeyringErrorKeepsTheInnerErrorAndItsRemedy() throws {
        let inner = KeyringError(.interactionNotAllowed, "locked", underlyingError: nil, remedy: .unlock)
        let outer = KeyringError(inner.status, "read: \(inner.reason)", underlyingError: inner, remedy: inner.remedy)
        XCTAssertEqual(outer.underlyingError as? KeyringError, inner)
        XCTAssertEqual(outer.remedy, .unlock)
    }

    func testEqualityComparesStatusReasonAndRemedyButNotTheCause() {
        let a = KeyringError(.ioError, "r", underlyingError: Errno.noSpace, remedy: .freeSpace)
        let b = KeyringError(.ioError, "r", underlyingError: Errno.ioError, remedy: .freeSpace)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, KeyringError(.ioError, "r", underlyingError: Errno.noSpace, remedy: .retry))
    }

    func testTheTwoArgumentInitializerHasNoCauseAndNoRemedy() {
        let error = KeyringError(.itemNotFound, "nothing matched")
        XCTAssertNil(error.underlyingError)
        XCTAssertNil(error.remedy)
    }

    func testARemedyDescribesItsKindAndFacts() {
        XCTAssertEqual(ErrorRemedy.importKey(group: "g").description, "importKey(group: g)")
        XCTAssertEqual(ErrorRemedy.unlock.description, "unlock")
    }
}
