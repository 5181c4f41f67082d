import Foundation
import GroupSync
import GroupSyncTestKit
import GroupVaultTestKit
import Keyring
import XCTest

/// Machines as real processes with homes of their own (GroupSyncFixture), through one real
/// PostgreSQL server: convergence, concurrent writers, a server restarted and a machine killed
/// mid run.
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
    }

    func testAServerStoppedAndRestartedMidRunLosesNoWrite() throws {
        let writers = try (0..<2).map { try machine($0, "write", ["machine": "m\($0)", "count": "400", "keys": "20", "prefix": "m\($0)-"]) }
        try server.stop()
        try server.start()
        for writer in writers { _ = finish(writer) }

        let expected = Self.lastSets(writers[0].standardOutput).merging(Self.lastSets(writers[1].standardOutput)) { first, _ in first }
        XCTAssertEqual(expected.count, 40)
        for index in 0..<3 {
            XCTAssertEqual(try dump(index).values, expected, "machine \(index)")
        }
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
