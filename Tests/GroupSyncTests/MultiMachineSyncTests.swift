import Foundation
import GroupSync
import GroupSyncTestKit
import GroupVaultTestKit
import Keyring
import XCTest

/// Machines as real processes with homes of their own (GroupSyncFixture), through one real
/// PostgreSQL server: convergence, concurrent writers, a server restarted and a machine killed
/// mid run, and a hostile server's every attack.
final class MultiMachineSyncTests: SyncServerTestCase {
    override class var machines: Int { 3 }

    // MARK: Arrangement

    private func machine(_ index: Int, _ command: String, _ options: [String: String] = [:]) throws -> FixtureProcess {
        var arguments = [command, "--home", sandbox.homes[index].path, "--url", server.url]
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { arguments += ["--\(key)", value] }
        return try FixtureProcess(arguments, executable: "GroupSyncFixture")
    }

    private func finish(_ child: FixtureProcess, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        let status = child.wait()
        XCTAssertEqual(status, 0, "fixture failed: \(child.standardError)", file: file, line: line)
        return status
    }

    private struct Dump {
        var values: [String: String] = [:]
        var status: SyncStatus?
    }

    /// What machine `index` holds after a full exchange with the server.
    private func dump(_ index: Int) throws -> Dump {
        let child = try machine(index, "dump")
        _ = finish(child)
        return try Self.parse(child.standardOutput)
    }

    private static func parse(_ output: String) throws -> Dump {
        var dump = Dump()
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            if parts.first == "value", parts.count == 3 { dump.values[parts[1]] = parts[2] }
            if parts.first == "status" {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .millisecondsSince1970
                dump.status = try decoder.decode(SyncStatus.self, from: Data(line.dropFirst("status ".count).utf8))
            }
        }
        return dump
    }

    /// The last value each key was set to, from a writer's "set <key> <value>" lines.
    private static func lastSets(_ output: String) -> [String: String] {
        var last: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            if parts.first == "set", parts.count == 3 { last[parts[1]] = parts[2] }
        }
        return last
    }

    /// How many writes a writer has acknowledged ("set" lines printed).
    private static func setLines(_ output: String) -> Int {
        output.split(separator: "\n").count { $0.hasPrefix("set ") }
    }

    private static func index(of value: String) -> Int { Int(value.split(separator: ":").last ?? "") ?? -1 }

    // MARK: Tests

    func testTwoProcessesOfOneHomeWritingAtOnceLoseNoWrite() throws {
        // Offline: nothing reaches the server before the dump, so every value it shows was
        // read from the home's one journal that both processes appended to.
        let writers = try ["a", "b"].map { try machine(0, "write", ["machine": "m0\($0)", "prefix": $0, "count": "400", "keys": "20", "offline": "yes"]) }
        for writer in writers { _ = finish(writer) }
        let written = writers.map { Self.lastSets($0.standardOutput) }.reduce(into: [String: String]()) { $0.merge($1) { first, _ in first } }

        let home = try dump(0)
        let elsewhere = try dump(1)
        XCTAssertEqual(written.count, 40)
        XCTAssertEqual(home.values, written)
        XCTAssertEqual(elsewhere.values, written)
        XCTAssertEqual(home.status?.pendingWrites, 0)
        XCTAssertEqual(home.status?.refusedCount, 0, String(describing: home.status))
    }

    func testThreeMachinesConvergeAfterThousandsOfWrites() throws {
        let writers = try (0..<3).map { try machine($0, "write", ["machine": "m\($0)", "count": "1000", "keys": "50"]) }
        for writer in writers { _ = finish(writer) }

        let dumps = try (0..<3).map(dump)
        XCTAssertEqual(dumps[0].values.count, 50)
        XCTAssertEqual(dumps[0].values, dumps[1].values)
        XCTAssertEqual(dumps[1].values, dumps[2].values)
        for (index, dump) in dumps.enumerated() {
            XCTAssertEqual(dump.status?.pendingWrites, 0, "machine \(index)")
            XCTAssertEqual(dump.status?.refusedCount, 0, "machine \(index): \(String(describing: dump.status))")
        }
    }

    func testTwoMachinesWritingOneKeyAThousandTimesEachLoseNothingSilently() throws {
        let writers = try (0..<2).map { try machine($0, "write", ["machine": "m\($0)", "count": "1000", "keys": "1"]) }
        for writer in writers { _ = finish(writer) }

        let dumps = try (0..<2).map(dump)
        XCTAssertEqual(dumps[0].values, dumps[1].values)
        for (index, dump) in dumps.enumerated() {
            let status = try XCTUnwrap(dump.status)
            // Every write reached the server, was replaced by the same machine's next write
            // before it was pushed, or lost to a more recent write and was reported.
            XCTAssertEqual(status.pushedWrites + status.coalescedWrites + status.superseded, 1000, "machine \(index): \(status)")
            XCTAssertEqual(status.pendingWrites, 0)
        }
        let final = try XCTUnwrap(dumps[0].values["k0"])
        XCTAssertTrue(final == "m0:999" || final == "m1:999", "the last write of one machine wins, got \(final)")
        // The counts are each machine's own; the server's side: every write it stored raised the
        // entry's sequence by one, so its sequence is the pushes of both machines together.
        let pushed = try dumps.map { try XCTUnwrap($0.status).pushedWrites }.reduce(0, +)
        XCTAssertEqual(try server.value("SELECT sequence FROM groupsync_entry"), String(pushed), "the server stored exactly the writes the machines count as pushed")
    }

    func testAServerStoppedAndRestartedMidRunLosesNoWrite() async throws {
        let writers = try (0..<2).map { try machine($0, "write", ["machine": "m\($0)", "count": "5000", "keys": "20", "prefix": "m\($0)-"]) }
        // Stopped once both write, and started again once both wrote more while it was down:
        // the outage falls inside the run, with acknowledged writes in it.
        for writer in writers {
            let writing = await writer.waitForOutput { $0.contains("set ") }
            XCTAssertTrue(writing, "the writer never acknowledged a write: \(writer.standardError)")
        }
        try server.stop()
        for writer in writers {
            let atStop = Self.setLines(writer.standardOutput)
            let wroteOffline = await writer.waitForOutput { Self.setLines($0) >= atStop + 50 }
            XCTAssertTrue(wroteOffline, "the writer acknowledged no writes while the server was down: \(writer.standardError)")
        }
        try server.start()
        for writer in writers { _ = finish(writer) }

        let expected = Self.lastSets(writers[0].standardOutput).merging(Self.lastSets(writers[1].standardOutput)) { first, _ in first }
        XCTAssertEqual(expected.count, 40)
        for index in 0..<3 {
            XCTAssertEqual(try dump(index).values, expected, "machine \(index)")
        }
    }

    func testAHostileServerIsRefusedAndCountedByAnotherMachinesProcessesAndHealedByTheWriter() throws {
        _ = finish(try machine(0, "write", ["machine": "old", "count": "3", "keys": "3"]))
        let replayed = try server.psql("SELECT encode(name, 'hex') || ' ' || encode(blob, 'hex') || ' ' || sequence FROM groupsync_entry ORDER BY change LIMIT 1")
            .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let earlier = server.dumpPath
        try server.dump(to: earlier)
        _ = finish(try machine(0, "write", ["machine": "new", "count": "3", "keys": "3"]))
        let trusted = ["k0": "new:0", "k1": "new:1", "k2": "new:2"]
        XCTAssertEqual(try dump(1).values, trusted)

        // Each attack, then machine 1 in a new process of its own: its values stay, and its
        // status counts the refusal under the Vault's reason (counts are the home's, so they add up).
        func assertRefused(_ attack: String, counts: [String: Int]) throws {
            let reader = try dump(1)
            XCTAssertEqual(reader.values, trusted, attack)
            XCTAssertEqual(reader.status?.refusals, counts, "\(attack): \(String(describing: reader.status))")
        }
        try tamperWithBlobs(of: .newest)
        try assertRefused("a blob altered", counts: ["authenticationFailed": 1])
        try server.psql("""
            WITH ranked AS (SELECT name, blob, sequence, row_number() OVER (ORDER BY change) AS rank FROM groupsync_entry)
            UPDATE groupsync_entry AS a SET blob = b.blob, sequence = b.sequence, change = nextval('groupsync_change')
            FROM ranked AS b WHERE a.name = (SELECT name FROM ranked WHERE rank = 1) AND b.rank = 2
            """)
        try assertRefused("a value moved to another key", counts: ["authenticationFailed": 2])
        // Another group's newest row (machine 0 holds both groups' keys) copied over one of ours,
        // above the sequence the reader saw.
        _ = finish(try machine(0, "write", ["group": SyncSandbox.otherGroup.rawValue, "machine": "theirs", "count": "1", "keys": "1"]))
        try server.psql("""
            WITH theirs AS (SELECT space, blob FROM groupsync_entry ORDER BY change DESC LIMIT 1)
            UPDATE groupsync_entry SET blob = (SELECT blob FROM theirs), sequence = sequence + 1, change = nextval('groupsync_change')
            WHERE name = (SELECT name FROM groupsync_entry WHERE space <> (SELECT space FROM theirs) ORDER BY change LIMIT 1)
            """)
        try assertRefused("a value swapped in from another group", counts: ["authenticationFailed": 3])
        try server.psql("""
            UPDATE groupsync_entry SET blob = decode('\(replayed[1])', 'hex'), sequence = \(replayed[2]), change = nextval('groupsync_change')
            WHERE name = decode('\(replayed[0])', 'hex')
            """)
        try assertRefused("an older row replayed", counts: ["authenticationFailed": 3, "rollback": 1])
        try server.restore(from: earlier)
        // The counter went back (one), and each of the three rows is older than the one seen.
        try assertRefused("the database restored from an earlier dump", counts: ["authenticationFailed": 3, "rollback": 5])

        // The writer finds the same rollback and pushes what it holds again; a machine that
        // joins after it reads the newer values.
        _ = finish(try machine(0, "sync"))
        XCTAssertEqual(try dump(2).values, trusted)
    }

    func testAMachineKilledMidPushLosesNothingItAcknowledged() async throws {
        var generator = SeededGenerator()
        let delay = Int.random(in: 0...1300, using: &generator)
        let writer = try machine(0, "write", ["machine": "m0", "count": "100000", "keys": "20"])
        // The delay counts from the first acknowledged write, not from the start: a loaded
        // machine may take longer than any fixed delay to start the writer and open its home.
        let wrote = await writer.waitForOutput { $0.contains("set ") }
        try await Task.sleep(for: .milliseconds(delay))
        writer.kill(SIGKILL)
        _ = writer.wait()
        let acknowledged = Self.lastSets(writer.standardOutput)
        XCTAssertTrue(wrote, "seed \(generator.seed): the writer never acknowledged a write: \(writer.standardError)")
        XCTAssertFalse(acknowledged.isEmpty, "seed \(generator.seed): the writer was killed before its first write")

        // The killed machine starts again and pushes what it kept.
        _ = finish(try machine(0, "sync"))
        let other = try dump(1)
        for (key, value) in acknowledged {
            let seen = try XCTUnwrap(other.values[key], "seed \(generator.seed): \(key) lost")
            // A write after the last printed one may have been durable before the kill.
            XCTAssertGreaterThanOrEqual(Self.index(of: seen), Self.index(of: value), "seed \(generator.seed): \(key)")
        }
        XCTAssertEqual(try dump(0).values, other.values, "seed \(generator.seed)")
    }
}
