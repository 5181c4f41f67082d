import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// Writers and readers in separate processes on one record: whole records, in order, none lost.
final class MultiProcessVaultTests: XCTestCase {
    private var testbed: VaultTestbed!

    override func setUpWithError() throws {
        testbed = try VaultTestbed()
    }

    override func tearDown() {
        testbed.remove()
    }

    func testConcurrentWriterProcessesLoseNoWrite() async throws {
        let writers = try (1...3).map { index in
            try testbed.start("vault-write", ["--writer", "w\(index)", "--count", "10"])
        }
        for writer in writers {
            XCTAssertEqual(writer.wait(), 0, writer.standardError)
        }

        let sequences = writers.flatMap { VaultTestbed.writtenSequences(in: $0.standardOutput) }
        XCTAssertEqual(sequences.sorted(), Array(1...30), "each write took its own sequence, none skipped or repeated")
        XCTAssertEqual(try testbed.currentSequence(), 30, "the final sequence counts every write")
    }

    /// Every write of every process commits twice to the one keyring database: none of those
    /// commits may be lost, whichever record they are for.
    func testConcurrentWriterProcessesOfDifferentRecordsLoseNoLedgerEntry() throws {
        let writers = try (0..<4).map { index in
            try testbed.start("vault-write", ["--writer", "w\(index)", "--name", "record-\(index)", "--count", "10"])
        }
        for writer in writers {
            XCTAssertEqual(writer.wait(), 0, writer.standardError)
        }

        let vault = testbed.vault
        XCTAssertEqual(try vault.ledger.recordNames(), (0..<4).map { "record-\($0)" })
        for index in 0..<4 {
            let name = try RecordName(validating: "record-\(index)")
            let row = try XCTUnwrap(vault.ledger.row(for: name))
            XCTAssertEqual(row.confirmed, 10, "record-\(index)")
            XCTAssertNil(row.pending, "record-\(index)")
            XCTAssertEqual(try vault.read(CounterRecord.self, from: name.rawValue), CounterRecord(writer: "w\(index)", counter: 10))
        }
    }

    /// A warm reader holds the master secret and the lock state it read, revalidated by one
    /// `lstat` each: a lock state set by another process is obeyed by the very next read.
    func testALockStateSetByAnotherProcessIsObeyedByTheNextReadOfAWarmReader() throws {
        let vault = testbed.vault
        try vault.write(CounterRecord(writer: "w", counter: 1), to: "counter")
        XCTAssertEqual(try vault.read(CounterRecord.self, from: "counter").counter, 1)

        let environment = ["GROUPVAULT_HOME": testbed.home.path]
        let locked = try FixtureProcess.run(["home-set-lock-state", "beforeFirstUnlock"], environment: environment)
        XCTAssertEqual(locked.status, 0, locked.errors)
        XCTAssertThrowsError(try vault.read(CounterRecord.self, from: "counter")) { error in
            XCTAssertEqual((error as? VaultError)?.code, .keyring, "\(error)")
        }

        let unlocked = try FixtureProcess.run(["home-set-lock-state", "unlocked"], environment: environment)
        XCTAssertEqual(unlocked.status, 0, unlocked.errors)
        XCTAssertEqual(try vault.read(CounterRecord.self, from: "counter").counter, 1)
    }

    func testReaderProcessesSeeOnlyWholeAuthenticRecordsInOrderWhileWritersRun() async throws {
        // Readers first, so they are reading before, during and after the writes.
        let readers = try (1...2).map { _ in
            try testbed.start("vault-read-loop", ["--until-sequence", "30", "--seconds", "60"])
        }
        let writers = try (1...3).map { index in
            try testbed.start("vault-write", ["--writer", "w\(index)", "--count", "10"])
        }
        for writer in writers {
            XCTAssertEqual(writer.wait(), 0, writer.standardError)
        }

        for reader in readers {
            XCTAssertEqual(reader.wait(), 0, "reader saw a violation: \(reader.standardError)")
            let summary = try XCTUnwrap(VaultTestbed.summary(in: reader.standardOutput), reader.standardOutput)
            XCTAssertEqual(summary["violations"], 0)
            XCTAssertEqual(summary["lastSequence"], 30, "the reader saw the final version")
            XCTAssertGreaterThan(summary["authentic"] ?? 0, 0, "the reader read authentic records")
        }
    }

    func testRestoredOlderBlobIsRefusedAsRollbackByANewReaderProcess() async throws {
        try testbed.vault.write(CounterRecord(writer: "test", counter: 1), to: "state")
        let older = try Data(contentsOf: testbed.recordURL("state"))
        try testbed.vault.write(CounterRecord(writer: "test", counter: 2), to: "state")

        let first = try testbed.run("vault-read-once")
        XCTAssertEqual(first.output, "value test 2 sequence 2\n", first.errors)

        try older.write(to: testbed.recordURL("state"))
        let second = try testbed.run("vault-read-once")
        XCTAssertEqual(second.output, "refused rollback\n", second.errors)
    }
}

/// The record the fixture's vault commands write (`FixtureCounter`): the same JSON shape.
struct CounterRecord: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    var writer: String
    var counter: Int
}

/// A throw-away home shared by the test process and its `GroupVaultFixture` children, and an
/// in-process vault over it with an identity entitled to the same group.
struct VaultTestbed {
    static let team = "ABCDE12345"
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!

    let home: TemporaryDirectory
    let vault: Vault

    init() throws {
        home = try TemporaryDirectory(prefix: "vault-processes")
        let identity = Identity(teamID: Self.team, bundleID: "com.example.tests", applicationGroups: [Self.group])
        vault = try Vault(keyring: Keyring(identity: identity, home: KeyringHome(root: home.url)), group: Self.group)
    }

    func remove() {
        KeyringDatabase.closeAll()
        home.remove()
    }

    /// Starts `GroupVaultFixture <command> --team .. --group .. <arguments>` over this home.
    func start(_ command: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> FixtureProcess {
        try FixtureProcess(
            [command, "--team", Self.team, "--group", Self.group.rawValue] + arguments,
            environment: ["GROUPVAULT_HOME": home.path].merging(environment) { _, extra in extra })
    }

    /// Runs a fixture command to completion.
    func run(_ command: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> (status: Int32, output: String, errors: String) {
        let child = try start(command, arguments, environment: environment)
        let status = child.wait()
        return (status, child.standardOutput, child.standardError)
    }

    func recordURL(_ name: String) -> URL {
        URL(fileURLWithPath: vault.recordsDirectory.appending("\(name).gvr").string)
    }

    /// The temporary files of writes to `name` that are still in the records directory.
    func temporaryFiles(of name: String) -> [String] {
        let prefix = AtomicFile.temporaryPrefix(for: vault.recordsDirectory.appending("\(name).gvr"))
        return DirectoryListing.names(in: vault.recordsDirectory).filter { $0.hasPrefix(prefix) }
    }

    /// The authenticated sequence of the record file as it is now.
    func currentSequence(of name: String = "state") throws -> UInt64 {
        try vault.openRecord(RecordName(validating: name)).header.sequence
    }

    /// The sequences in `wrote <counter> sequence <seq>` lines.
    static func writtenSequences(in output: String) -> [UInt64] {
        output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            return words.count == 4 && words[0] == "wrote" ? UInt64(words[3]) : nil
        }
    }

    /// The counters in `wrote <counter> sequence <seq>` lines.
    static func writtenCounters(in output: String) -> [Int] {
        output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            return words.count == 4 && words[0] == "wrote" ? Int(words[1]) : nil
        }
    }

    /// The fields of a `summary key=value ...` line.
    static func summary(in output: String) -> [String: UInt64]? {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("summary ") }) else { return nil }
        var fields: [String: UInt64] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = UInt64(parts[1]) { fields[String(parts[0])] = value }
        }
        return fields
    }
}
