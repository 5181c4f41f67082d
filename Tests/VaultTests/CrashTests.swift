import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// Writer processes that die mid-write: the record stays the previous or the new version,
/// never torn, and the leftovers of a dead writer do not accumulate.
final class CrashTests: XCTestCase {
    private var testbed: VaultTestbed!
    private var vault: Vault { testbed.vault }

    override func setUpWithError() throws {
        testbed = try VaultTestbed()
        // Written here so that the keys, the ledger and the record exist before any child
        // runs: a child's armed fault then hits the record's replacement, nothing else.
        try vault.write(CounterRecord(writer: "setup", counter: 0), to: "state")
    }

    override func tearDown() {
        testbed.remove()
    }

    // MARK: SIGKILL at random moments

    func testWriterKilledAtRandomMomentsLeavesThePreviousOrTheNewVersion() async throws {
        var rng = SeededGenerator()
        var start = 1
        for round in 1...6 {
            let (lastWritten, _) = try await killWriterAtRandomMoment(start: start, using: &rng, round: round)

            let value = try vault.read(CounterRecord.self, from: "state")
            // The write after the last one printed may have been renamed into place just
            // before the kill: that is the new version, the one printed is the previous.
            XCTAssertEqual(value.writer, "killed", "round \(round), \(rng.describe)")
            XCTAssertTrue(
                [lastWritten, lastWritten + 1].contains(value.counter),
                "round \(round): read counter \(value.counter) after last written \(lastWritten), \(rng.describe)")
            start = lastWritten + 2
        }
    }

    func testNextWriteAfterRandomKillsLeavesNoTemporaryFiles() async throws {
        var rng = SeededGenerator()
        var start = 1
        for round in 1...4 {
            start = try await killWriterAtRandomMoment(start: start, using: &rng, round: round).lastWritten + 2
        }

        try vault.write(CounterRecord(writer: "test", counter: start), to: "state")

        XCTAssertEqual(testbed.temporaryFiles(of: "state"), [], rng.describe)
        XCTAssertEqual(try vault.read(CounterRecord.self, from: "state"), CounterRecord(writer: "test", counter: start), rng.describe)
    }

    func testTemporaryFilesOfKilledWritersDoNotAccumulate() throws {
        // Each of these writers dies right after creating its temporary file, so each leaves
        // one; the next writer removes it under the writer lock before making its own.
        var previous: [String] = []
        for counter in 1...3 {
            let child = try testbed.run("vault-write", ["--start", "\(counter)"], environment: ["GROUPVAULT_FAULT": "write-temporary:terminate"])
            XCTAssertEqual(child.status, 137, child.errors)
            let left = testbed.temporaryFiles(of: "state")
            XCTAssertEqual(left.count, 1, "writer \(counter): only its own leftover remains: \(left)")
            XCTAssertTrue(Set(left).isDisjoint(with: previous), "writer \(counter): the previous leftover \(previous) was removed")
            previous = left
        }

        try vault.write(CounterRecord(writer: "test", counter: 4), to: "state")

        XCTAssertEqual(testbed.temporaryFiles(of: "state"), [], "the next successful write removed the last leftover")
    }

    // MARK: Death at each step of a write

    func testDeathBeforeCommittingTheLedgerIntentLeavesThePreviousVersion() throws {
        try assertWriterDies(at: .ledgerIntent, leaving: .previous, temporaryFiles: 0)
    }

    func testDeathBeforeCreatingTheTemporaryFileLeavesThePreviousVersion() throws {
        try assertWriterDies(at: .createTemporary, leaving: .previous, temporaryFiles: 0)
    }

    func testDeathBeforeWritingTheTemporaryFileLeavesThePreviousVersion() throws {
        try assertWriterDies(at: .writeTemporary, leaving: .previous, temporaryFiles: 1)
    }

    func testDeathBeforeSyncingTheTemporaryFileLeavesThePreviousVersion() throws {
        try assertWriterDies(at: .syncTemporary, leaving: .previous, temporaryFiles: 1)
    }

    func testDeathBeforeTheRenameLeavesThePreviousVersion() throws {
        try assertWriterDies(at: .rename, leaving: .previous, temporaryFiles: 1)
    }

    func testDeathBeforeSyncingTheDirectoryLeavesTheNewVersion() throws {
        try assertWriterDies(at: .syncDirectory, leaving: .new, temporaryFiles: 0)
    }

    func testDeathBeforeConfirmingInTheLedgerLeavesTheNewVersion() throws {
        try assertWriterDies(at: .ledgerConfirm, leaving: .new, temporaryFiles: 0)
    }

    func testEveryFaultPointIsCoveredByATest() {
        // The seven tests above, one per step of a Vault write; a new step must get its own.
        // The keyring's item steps are killed at in ItemMultiProcessTests.
        XCTAssertEqual(
            Set(FaultPoint.fileLayerSteps + FaultPoint.ledgerSteps),
            [.ledgerIntent, .createTemporary, .writeTemporary, .syncTemporary, .rename, .syncDirectory, .ledgerConfirm])
    }

    /// Child processes are armed by these names (`GROUPVAULT_FAULT=<step>:terminate`): they are
    /// an interface of the test harness and stay as they are wherever the steps are declared.
    func testTheStepsOfAWriteKeepTheirFaultNames() {
        XCTAssertEqual(
            (FaultPoint.ledgerSteps + FaultPoint.fileLayerSteps).map(\.rawValue),
            ["ledger-intent", "ledger-confirm", "create-temporary", "write-temporary", "sync-temporary", "rename", "sync-directory"])
        XCTAssertEqual(FaultPoint.itemSteps.map(\.rawValue), ["item-step", "item-commit"])
    }

    // MARK: Helpers

    private enum Version {
        case previous, new
    }

    /// Runs one writer armed to die at `point` (`GROUPVAULT_FAULT=<point>:terminate`) and checks
    /// that it died there: exit status 137, no write reported, the record file the version the
    /// step implies, and the temporary file present exactly when the step comes after its creation.
    private func assertWriterDies(
        at point: FaultPoint, leaving version: Version, temporaryFiles: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let child = try testbed.run("vault-write", ["--writer", "armed", "--start", "1"], environment: ["GROUPVAULT_FAULT": "\(point.rawValue):terminate"])

        XCTAssertEqual(child.status, 137, "the writer must die at \(point.rawValue): \(child.errors)", file: file, line: line)
        XCTAssertFalse(child.output.contains("wrote"), "the write must not have returned", file: file, line: line)
        XCTAssertEqual(testbed.temporaryFiles(of: "state").count, temporaryFiles, "temporary files after death at \(point.rawValue)", file: file, line: line)
        let expected = version == .previous ? CounterRecord(writer: "setup", counter: 0) : CounterRecord(writer: "armed", counter: 1)
        XCTAssertEqual(try vault.read(CounterRecord.self, from: "state"), expected, "record after death at \(point.rawValue)", file: file, line: line)
    }

    /// Starts a writer that writes forever from counter `start`, lets it write at least once,
    /// kills it with SIGKILL after a seeded random delay, and returns the last counter it
    /// reported written.
    private func killWriterAtRandomMoment(start: Int, using rng: inout SeededGenerator, round: Int) async throws -> (lastWritten: Int, status: Int32) {
        let writer = try testbed.start("vault-write-forever", ["--writer", "killed", "--start", "\(start)"])
        let started = await writer.waitForOutput { $0.contains("wrote") }
        let delay = Int.random(in: 0...60, using: &rng)
        try await Task.sleep(for: .milliseconds(delay))
        writer.kill(SIGKILL)
        let status = writer.wait()
        XCTAssertTrue(started, "round \(round): the writer never wrote: \(writer.standardError), \(rng.describe)")
        XCTAssertEqual(status, 128 + SIGKILL, "round \(round): the writer died of the kill, not of an error: \(writer.standardError), \(rng.describe)")
        let lastWritten = try XCTUnwrap(VaultTestbed.writtenCounters(in: writer.standardOutput).last, "round \(round), \(rng.describe)")
        return (lastWritten, status)
    }
}
