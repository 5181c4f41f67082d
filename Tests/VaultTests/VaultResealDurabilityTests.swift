import Foundation
import Keyring
import SealedStorage
import Vault
import XCTest

/// How a reseal batch makes its temporary files durable before renaming any: one `syncfs` for
/// the batch, or, when `syncfs` fails or is unavailable, one `fsync` per temporary file, and a
/// temporary file that cannot be proven durable is never renamed (docs/FORMAT.md, "Resealing in
/// batches"). A single write keeps its own `fsync`.
final class VaultResealDurabilityTests: VaultTestCase {
    override func tearDown() {
        FaultInjection.disarmAll()
        super.tearDown()
    }

    private func writeRecords(_ count: Int, in vault: Vault) throws -> [String] {
        let names = (0..<count).map { String(format: "record-%05d", $0) }
        for (index, name) in names.enumerated() {
            try vault.write(index.isMultiple(of: 2) ? AuthState.signedIn : AuthState.signedOut, to: name)
        }
        return names
    }

    /// The key each record is sealed with now, by name.
    private func keyIDs(in vault: Vault) throws -> [String: UInt32] {
        var keys: [String: UInt32] = [:]
        for record in try vault.list() { keys[record.name] = try record.header.get().keyID }
        return keys
    }

    private func temporaries(in sandbox: VaultSandbox, of vault: Vault) throws -> [String] {
        try sandbox.recordsDirectoryEntries(of: vault).filter { $0.hasPrefix(".") && $0.contains(".tmp-") }
    }

    func testResealAllWithoutSyncfsFsyncsEachTemporaryAndResealsEveryRecord() throws {
        let vault = try sandbox.vault()
        let names = try writeRecords(5, in: vault)
        let old = try sandbox.keyring.groupKey(for: VaultSandbox.group).id
        let rotated = try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        // As on a kernel before 5.8 or on Darwin: syncfs is reported unavailable.
        try FaultInjection.withProcessWideFault(.fail(.noFunction), at: .call(.syncFileSystem)) {
            XCTAssertEqual(try vault.resealAll(), 5)
        }

        try sandbox.keyring.retireKey(id: old, in: VaultSandbox.group)
        XCTAssertEqual(Set(try keyIDs(in: vault).values), [rotated.id])
        for (index, name) in names.enumerated() {
            XCTAssertEqual(try vault.read(AuthState.self, from: name), index.isMultiple(of: 2) ? .signedIn : .signedOut)
        }
        XCTAssertEqual(try temporaries(in: sandbox, of: vault), [])
    }

    func testResealAllNeverRenamesATemporaryWhoseSyncfsAndFsyncFailed() throws {
        let vault = try sandbox.vault()
        let names = try writeRecords(4, in: vault)
        let old = try sandbox.keyring.groupKey(for: VaultSandbox.group).id
        let rotated = try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        // syncfs reports a writeback error; of the fallback fsyncs, the second fails too.
        try FaultInjection.withProcessWideFault(.fail(.ioError), at: .call(.syncFileSystem)) {
            try FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.syncTemporary), afterPassing: 1) {
                XCTAssertThrowsError(try vault.resealAll()) { error in
                    XCTAssertEqual((error as? VaultError)?.code, .storage, "\(error)")
                    XCTAssertTrue("\(error)".contains(names[1]), "the error names the record not resealed: \(error)")
                }
            }
        }

        // The record whose temporary was not proven durable is the previous version, intact
        // and readable; the others were resealed; no temporary file is left behind.
        let keys = try keyIDs(in: vault)
        XCTAssertEqual(keys[names[1]], old)
        XCTAssertEqual(Set(names.filter { $0 != names[1] }.map { keys[$0] }), [rotated.id])
        XCTAssertEqual(try vault.read(AuthState.self, from: names[1]), .signedOut)
        XCTAssertEqual(try temporaries(in: sandbox, of: vault), [])
        // Its announcement was withdrawn or is harmless: the next pass reseals it.
        XCTAssertEqual(try vault.resealAll(), 1)
        try sandbox.keyring.retireKey(id: old, in: VaultSandbox.group)
        for (index, name) in names.enumerated() {
            XCTAssertEqual(try vault.read(AuthState.self, from: name), index.isMultiple(of: 2) ? .signedIn : .signedOut)
        }
    }

    /// Between a batch's unsynced writes and its renames no writer lock is held: a writer of one
    /// of its records sweeps the batch's temporary file as a leftover and publishes its own
    /// version, and the batch leaves that record to it instead of renaming anything over it.
    func testResealAllKeepsAWriteMadeWhileItsTemporaryFilesAwaitTheirRename() throws {
        let vault = try assertAWriterAtTheSeamWinsOverResealAll(.afterTemporariesWritten, in: sandbox)
        // The writer swept the batch's temporary for "second"; none of the others is left over.
        XCTAssertEqual(try temporaries(in: sandbox, of: vault), [])
    }

    func testResealAllSyncsTheBatchWithSyncfsWhileASingleWriteStillFsyncsItsFile() throws {
        let vault = try sandbox.vault()
        let names = try writeRecords(3, in: vault)
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        let records = try DirectoryHandle(opening: vault.recordsDirectory, sharing: .ownerOnly)
        do {
            try records.syncFileSystem()
        } catch {
            throw XCTSkip("syncfs is not available here (\(error)): every batch takes the per-file fsync path")
        }
        // Any per-file fsync of a temporary fails while this is armed: the batch must not make one.
        try FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.syncTemporary)) {
            XCTAssertEqual(try vault.resealAll(), 3)

            for name in names { XCTAssertNoThrow(try vault.read(AuthState.self, from: name)) }
            // The fault is still armed, and a single write reaches it: it fsyncs its own file.
            assertRefused(.storage) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: names[0]) }
        }
        XCTAssertEqual(try vault.read(AuthState.self, from: names[0]), .signedIn)
    }
}
