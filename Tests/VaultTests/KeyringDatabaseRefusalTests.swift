import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// The keyring database (`Keychains/keyring.db`, which holds the trust ledger) is refused with a
/// reason when it is not this home's intact database: copied from another home, truncated, a
/// damaged page, a row altered without the master key. What a whole-file rollback does (and
/// does not) achieve is pinned down too (SECURITY.md, "The keyring database").
final class KeyringDatabaseRefusalTests: VaultTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try sandbox.vault().write(AuthState.signedIn, to: "auth-state")
    }

    override func tearDown() {
        KeyringDatabase.closeAll()
        super.tearDown()
    }

    private func databaseURL(of sandbox: VaultSandbox) -> URL {
        sandbox.home.root.appendingPathComponent("Keychains").appendingPathComponent(KeyringDatabase.fileName)
    }

    /// Closes this process's connections (the last close checkpoints the WAL into the file),
    /// so the file holds everything and the next use opens it anew, as a new process would.
    private func closeDatabases() {
        KeyringDatabase.closeAll()
    }

    private func databaseBytes() throws -> [UInt8] {
        Array(try Data(contentsOf: databaseURL(of: sandbox)))
    }

    private func replaceDatabase(with bytes: [UInt8]) throws {
        let url = databaseURL(of: sandbox)
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        try Data(bytes).write(to: url)
    }

    private func assertReadRefused(naming words: [String], file: StaticString = #filePath, line: UInt = #line) {
        do {
            let value = try sandbox.vault().read(AuthState.self, from: "auth-state")
            XCTFail("read \(value) through a damaged keyring database", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .keyring, error.reason, file: file, line: line)
            for word in words {
                XCTAssertTrue(error.reason.contains(word), "reason does not say \"\(word)\": \(error.reason)", file: file, line: line)
            }
        }
    }

    func testADatabaseFromAnotherHomeIsRefused() throws {
        let other = try VaultSandbox()
        defer { other.remove() }
        try other.vault().write(AuthState.signedOut, to: "auth-state")
        closeDatabases()

        try replaceDatabase(with: Array(try Data(contentsOf: databaseURL(of: other))))

        assertReadRefused(naming: ["keyring.db", "another home"])
    }

    func testATruncatedDatabaseIsRefused() throws {
        closeDatabases()
        let bytes = try databaseBytes()
        XCTAssertGreaterThan(bytes.count, 4096, "the database has more than its first page")

        try replaceDatabase(with: Array(bytes.prefix(4096)))

        assertReadRefused(naming: ["keyring.db", "damaged"])
    }

    func testAFileThatIsNotADatabaseIsRefused() throws {
        closeDatabases()
        var rng = SeededGenerator()

        try replaceDatabase(with: rng.bytes(count: 8192))

        assertReadRefused(naming: ["keyring.db", "not a SQLite database"])
    }

    func testADamagedPageIsRefused() throws {
        closeDatabases()
        var bytes = try databaseBytes()
        let page = try XCTUnwrap(pageHolding(Array("auth-state".utf8), in: bytes), "the ledger row is on some page")
        XCTAssertGreaterThan(page, 0, "the ledger is not on the schema page")
        // The b-tree page type byte: no valid page has 0xFF there.
        bytes[page * 4096] = 0xFF

        try replaceDatabase(with: bytes)

        assertReadRefused(naming: ["keyring.db", "damaged"])
    }

    func testALedgerRowAlteredWithoutTheMasterKeyIsRefused() throws {
        let digest = try XCTUnwrap(sandbox.vault().ledger.entry(for: RecordName(validating: "auth-state"))?.digest)
        closeDatabases()
        var bytes = try databaseBytes()
        let offset = try XCTUnwrap(range(of: Array(digest.utf8), in: bytes), "the digest is stored as text")
        // Another hex digit: still well-formed, but no longer what the row's tag covers.
        bytes[offset] = bytes[offset] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")

        try replaceDatabase(with: bytes)

        assertReadRefused(naming: ["trust ledger", "fails authentication"])
    }

    /// A whole-file rollback cannot be told from the real thing without a counter kept
    /// somewhere the attacker cannot write; what it must not do is make the current record
    /// unreadable, or let an old blob in while the current one is in place.
    func testARolledBackDatabaseStillAcceptsTheCurrentRecordAndRaisesTheLedgerAgain() throws {
        closeDatabases()
        let snapshot = try databaseBytes()
        try sandbox.vault().write(AuthState.signedOut, to: "auth-state")
        closeDatabases()

        try replaceDatabase(with: snapshot)

        XCTAssertEqual(try sandbox.vault().read(AuthState.self, from: "auth-state"), AuthState.signedOut)
        XCTAssertEqual(try sandbox.vault().ledger.entry(for: RecordName(validating: "auth-state"))?.sequence, 2)
    }

    func testTheDatabaseAndItsJournalFilesHaveTheHomesFileMode() throws {
        let url = databaseURL(of: sandbox)
        for path in [url.path, url.path + "-wal", url.path + "-shm"] where FileManager.default.fileExists(atPath: path) {
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            XCTAssertEqual(mode & 0o777, 0o600, path)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path + "-wal"), "the database runs in WAL mode")
    }

    // MARK: Helpers

    private func range(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    private func pageHolding(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        range(of: needle, in: bytes).map { $0 / 4096 }
    }
}
