import Foundation
import Keyring
import SealedStorage
@testable import Vault
import XCTest

/// A read of a record whose file and keyring database did not change since an earlier read
/// returns the value judged then, without opening the file again; every change, of the file,
/// the ledger, the key, the clock or the type's checks, sends the read down its full path, with
/// its usual verdict (docs/ARCHITECTURE.md, "A read while nothing changed returns the value it
/// judged"). Each attack is made after two reads, once a value is kept.
final class UnchangedRecordReadTests: VaultTestCase {
    private var vault: Vault!

    override func setUpWithError() throws {
        try super.setUpWithError()
        vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
    }

    override func tearDown() {
        vault = nil
        super.tearDown()
    }

    /// Reads the record twice: the first read notes the keyring database, the second keeps the value.
    private func readTwice(_ vault: Vault? = nil) throws {
        for _ in 0..<2 { XCTAssertEqual(try (vault ?? self.vault).read(AuthState.self, from: "auth-state"), .signedIn) }
    }

    /// The system calls `read` makes on the record's file, by name.
    private func callsOnTheRecordFile(of vault: Vault) throws -> [SystemCall] {
        try FileLayerDriver.with { driver in
            XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedIn)
            return driver.trace.filter { $0.name == "auth-state.gvr" }.map(\.call)
        }
    }

    func testAReadOfAnUnchangedRecordLooksAtItsFileWithoutOpeningIt() throws {
        try readTwice()
        XCTAssertEqual(try callsOnTheRecordFile(of: vault), [.status])
    }

    func testAVaultThatCachesNoValuesOpensTheFileOnEveryRead() throws {
        let uncached = try Vault(keyring: sandbox.keyring, group: VaultSandbox.group, cachesReadValues: false)
        XCTAssertFalse(uncached.cachesReadValues)
        try readTwice(uncached)
        XCTAssertTrue(try callsOnTheRecordFile(of: uncached).contains(.open))
    }

    func testAValueWrittenByAnotherVaultIsReadAfterTheKeptOne() throws {
        try readTwice()
        try sandbox.vault().write(AuthState.signedInAgain, to: "auth-state")
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedInAgain)
    }

    func testAnOlderBlobPutBackInPlaceIsRefusedAsARollback() throws {
        let older = try sandbox.blob("auth-state", in: vault)
        try vault.write(AuthState.signedInAgain, to: "auth-state")
        for _ in 0..<2 { XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedInAgain) }
        // Data.write truncates and writes the existing file: the same inode, changed in place.
        try sandbox.place(older, as: "auth-state", in: vault)
        assertRefused(.rollback) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testAByteFlippedInPlaceIsRefusedAsFailingAuthentication() throws {
        try readTwice()
        // The same size, the same inode, within the same tick of the file system's clock as
        // the write before it, likely: only the directory's watch tells this change apart.
        let file = try FileHandle(forUpdating: sandbox.recordURL("auth-state", in: vault))
        let last = try file.seekToEnd() - 1
        try file.seek(toOffset: last)
        let byte = try XCTUnwrap(file.readData(ofLength: 1).first)
        try file.seek(toOffset: last)
        try file.write(contentsOf: [byte ^ 0x01])
        try file.close()
        assertRefused(.authenticationFailed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testAFileChangedThroughALinkElsewhereIsRefused() throws {
        try readTwice()
        // A change through a second link in another directory reaches no watch of the records
        // directory; the change time of the file (the link made, the bytes written) shows it.
        let link = sandbox.directory.url.appendingPathComponent("elsewhere.gvr")
        try FileManager.default.linkItem(at: sandbox.recordURL("auth-state", in: vault), to: link)
        var bytes = try Data(contentsOf: link)
        bytes[bytes.count - 1] ^= 0x01
        let file = try FileHandle(forWritingTo: link)
        try file.write(contentsOf: bytes)
        try file.close()
        assertRefused(.authenticationFailed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testALedgerRaisedAboveTheFileMakesTheReadARollback() throws {
        try readTwice()
        let header = try vault.readWithHeader(AuthState.self, from: "auth-state").header
        // The ledger alone changes: the file and its directory stay as they were.
        try vault.ledger.confirm(try RecordName(validating: "auth-state"), sequence: header.sequence + 1, digest: "another blob")
        assertRefused(.rollback) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testARetiredKeyIsRefusedAfterTheValueWasKept() throws {
        try readTwice()
        _ = try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        try sandbox.keyring.retireKey(id: 1, in: VaultSandbox.group)
        assertRefused(.retiredKey) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testAKeyringBeforeItsFirstUnlockIsRefusedAfterTheValueWasKept() throws {
        try readTwice()
        // The lock state lives in a file of the home, not in the database: only the key's own
        // checks see it.
        try sandbox.home.setLockState(.beforeFirstUnlock)
        assertRefused(.keyring) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testAChangeElsewhereInTheRecordsDirectoryMakesTheReadOpenTheFile() throws {
        try readTwice()
        // Nothing the file's status or the database shows: only the directory's watch sees it.
        XCTAssertTrue(FileManager.default.createFile(atPath: vault.recordsDirectory.appending("unrelated").string, contents: Data()))
        XCTAssertTrue(try callsOnTheRecordFile(of: vault).contains(.open))
    }

    func testAnExpiryReachedAfterTheValueWasKeptIsRefused() throws {
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: sandbox.clock.now.addingTimeInterval(60))
        try readTwice()
        sandbox.clock.advance(by: 60 + Vault.defaultClockSkewAllowance + 1)
        assertRefused(.expired) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testTheTypesValidationRunsOnEveryRead() throws {
        try vault.write(Switchable(), to: "switchable")
        for _ in 0..<2 { XCTAssertNoThrow(try vault.read(Switchable.self, from: "switchable")) }
        Switchable.refuses.withLock { $0 = true }
        defer { Switchable.refuses.withLock { $0 = false } }
        assertRefused(.invalidRecord) { () throws(VaultError) in try vault.read(Switchable.self, from: "switchable") }
    }

    func testAnotherTypeReadingTheRecordGetsItsOwnVerdict() throws {
        try readTwice()
        assertRefused(.unsupportedSchema) { () throws(VaultError) in try vault.read(SchemaTwo.self, from: "auth-state") }
    }

    func testADeletionByAnotherVaultIsSeen() throws {
        try readTwice()
        try sandbox.vault().delete("auth-state")
        assertRefused(.deleted) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testARemovedFileIsRefusedAsMissing() throws {
        try readTwice()
        try FileManager.default.removeItem(at: sandbox.recordURL("auth-state", in: vault))
        assertRefused(.missing) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    /// A record whose validation a test can turn into a refusal.
    private struct Switchable: VaultRecord {
        static let schemaVersion: UInt32 = 1
        static let refuses = Locked(false)
        struct Refused: Error {}
        func validate() throws {
            if Self.refuses.withLock({ $0 }) { throw Refused() }
        }
    }

    /// A type that reads schema 2 only.
    private struct SchemaTwo: VaultRecord {
        static let schemaVersion: UInt32 = 2
        var isAuthenticated: Bool
    }
}
