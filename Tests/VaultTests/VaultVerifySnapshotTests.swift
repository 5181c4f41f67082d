import Foundation
import Keyring
import SealedStorage
import Vault
import XCTest

/// verifyAll judges the group against one snapshot of its ledger, read in one query, instead of
/// one lookup per record. These tests pin down that this changes the cost and nothing else: the
/// verdicts are a reader's, record by record, and a ledger that moves on during the pass (a
/// writer, a reader, an attacker putting a blob back) never makes the snapshot refuse what the
/// ledger accepts now, accept what it no longer accepts, or move the ledger.
final class VaultVerifySnapshotTests: VaultTestCase {
    override func tearDown() {
        FaultInjection.disarmAll()
        super.tearDown()
    }

    private func name(_ index: Int) -> String { String(format: "record-%04d", index) }

    /// 200 records, every tenth of each kind: authentic, tampered (a byte of the ciphertext
    /// flipped), gone (its file removed), rolled back (an older blob put back), announced but
    /// never confirmed (the writer's confirmation failed after the rename), deleted (a
    /// tombstone, which verifies). verifyAll reports exactly what a reader reports for each.
    func testVerifyAllOfManyRecordsReportsWhatAReaderReportsForEach() throws {
        let vault = try sandbox.vault()
        var expected: [String: VaultError.Code?] = [:]
        for index in 0..<200 {
            let name = name(index)
            try vault.write(AuthState.signedIn, to: name)
            switch index % 10 {
            case 1:
                var blob = try sandbox.blob(name, in: vault)
                blob[blob.count - 20] ^= 0x01
                try sandbox.place(blob, as: name, in: vault)
                expected[name] = .authenticationFailed
            case 2:
                try FileManager.default.removeItem(at: sandbox.recordURL(name, in: vault))
                expected[name] = .notFound
            case 3:
                let old = try sandbox.blob(name, in: vault)
                try vault.write(AuthState.signedOut, to: name)
                try sandbox.place(old, as: name, in: vault)
                expected[name] = .rollback
            case 4:
                _ = try FaultInjection.withFault(.fail(.ioError), at: .step(.ledgerConfirm)) {
                    XCTAssertThrowsError(try vault.write(AuthState.signedOut, to: name))
                }
                expected[name] = .some(nil)
            case 5:
                try vault.delete(name)
                expected[name] = .some(nil)
            default:
                expected[name] = .some(nil)
            }
        }

        let report = try sandbox.vault().verifyAll()

        let findings = Dictionary(uniqueKeysWithValues: report.findings.map { ($0.name, $0.error.code) })
        XCTAssertEqual(report.passed, expected.values.filter { $0 == nil }.count)
        XCTAssertEqual(findings, expected.compactMapValues { $0 })
        // The per-record path (one ledger lookup each) agrees, record by record.
        let reader = try sandbox.vault()
        for (name, code) in expected {
            do {
                _ = try reader.openTrustedRecord(RecordName(validating: name))
                XCTAssertNil(code, name)
            } catch {
                XCTAssertEqual(error.code, code, "\(name): \(error)")
            }
        }
    }

    /// The announced version that verifyAll accepted is confirmed, as a reader confirms it.
    func testVerifyAllConfirmsAnAnnouncedVersionItAccepts() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        _ = try FaultInjection.withFault(.fail(.ioError), at: .step(.ledgerConfirm)) {
            XCTAssertThrowsError(try vault.write(AuthState.signedOut, to: "auth-state"))
        }

        let report = try vault.verifyAll()
        XCTAssertEqual(report.records.map(\.name), ["auth-state"])
        XCTAssertEqual(report.records.map(\.outcome), [.authentic])
        XCTAssertEqual(report.findings, [])

        let row = try XCTUnwrap(vault.ledger.row(for: RecordName(validating: "auth-state")))
        XCTAssertEqual(row.confirmed, 2)
        XCTAssertNil(row.pending)
    }

    /// A record written again while the pass runs, before the pass reaches it: its file is
    /// newer than the snapshot's row, and passes against the row as it is now.
    func testARecordWrittenDuringThePassPasses() throws {
        let vault = try sandbox.vault()
        for index in 0..<5 { try vault.write(AuthState.signedIn, to: name(index)) }
        let writer = try sandbox.vault()

        let report = try vault.verifyAll { progress in
            if progress.name == self.name(0) { _ = try? writer.write(AuthState.signedOut, to: self.name(3)) }
        }

        XCTAssertEqual(report.records.map(\.outcome), Array(repeating: .authentic, count: 5))
        XCTAssertEqual(report.passed, 5)
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(try vault.ledger.entry(for: RecordName(validating: name(3)))?.sequence, 2)
    }

    /// A record the pass already accepted from the snapshot is written again and its older blob
    /// put back before the pass ends: the snapshot's acceptance is stale, the record is judged
    /// again against the ledger as it is, and the rollback is reported.
    func testARecordRolledBackAfterThePassAcceptedItIsReported() throws {
        let vault = try sandbox.vault()
        for index in 0..<5 { try vault.write(AuthState.signedIn, to: name(index)) }
        let old = try sandbox.blob(name(1), in: vault)
        let writer = try sandbox.vault()

        let report = try vault.verifyAll { progress in
            guard progress.name == self.name(3) else { return }
            _ = try? writer.write(AuthState.signedOut, to: self.name(1))
            try? self.sandbox.place(old, as: self.name(1), in: vault)
        }

        XCTAssertEqual(report.passed, 4)
        XCTAssertEqual(report.findings.map(\.name), [name(1)])
        XCTAssertEqual(report.findings.map(\.error.code), [.rollback])
    }

    /// The snapshot holds an announcement (a writer's confirmation failed after its rename);
    /// before the pass reaches that record, it is written again and the announced blob put
    /// back. The snapshot would accept that blob and raise the ledger to it; the ledger has
    /// gone past it, so it is a rollback, and the ledger keeps its newer entry.
    func testAnAnnouncedBlobTheLedgerHasSincePassedIsARollbackAndTheLedgerStays() throws {
        let vault = try sandbox.vault()
        for index in 0..<5 { try vault.write(AuthState.signedIn, to: name(index)) }
        _ = try FaultInjection.withFault(.fail(.ioError), at: .step(.ledgerConfirm)) {
            XCTAssertThrowsError(try vault.write(AuthState.signedOut, to: name(3)))
        }
        let announced = try sandbox.blob(name(3), in: vault)
        let writer = try sandbox.vault()
        let record = try RecordName(validating: name(3))

        let report = try vault.verifyAll { progress in
            guard progress.name == self.name(0) else { return }
            _ = try? writer.write(AuthState.signedInAgain, to: self.name(3))
            try? self.sandbox.place(announced, as: self.name(3), in: vault)
        }

        XCTAssertEqual(report.findings.map(\.name), [name(3)])
        XCTAssertEqual(report.findings.map(\.error.code), [.rollback])
        let row = try XCTUnwrap(vault.ledger.row(for: record))
        XCTAssertEqual(row.confirmed, 3)
        XCTAssertNil(row.pending)
    }
}
