import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// Keysets shared by real processes: first use and rotation race between child processes
/// (`GroupVaultFixture keyset-*`) released together from a start barrier.
final class KeysetRaceTests: XCTestCase {
    private static let processCount = 8
    private var scenario: KeysetScenario!

    override func setUpWithError() throws {
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: FixtureProcess.executableURL.path),
            "GroupVaultFixture is not built at \(FixtureProcess.executableURL.path); run `swift build --build-tests` first")
        scenario = try KeysetScenario()
    }

    override func tearDown() {
        scenario?.remove()
        scenario = nil
    }

    func testProcessesRacingOnFirstUseAgreeOnOneKey() throws {
        let results = try runTogether("keyset-group-key")

        let lines = Set(results.map(\.output))
        XCTAssertEqual(lines.count, 1, "every process must print the same key id and fingerprint: \(results.map(\.output))")
        let parts = try XCTUnwrap(lines.first).split(separator: " ")
        XCTAssertEqual(parts.count, 3, "expected `key <id> <fingerprint>`: \(parts)")
        XCTAssertEqual(parts.first, "key")
        XCTAssertEqual(try scenario.app.keys(in: scenario.group).count, 1, "exactly one key was created")
        let key = try scenario.app.groupKey(for: scenario.group)
        XCTAssertEqual(String(parts[1]), "\(key.id)")
        XCTAssertEqual(String(parts[2]), hexadecimal(Digest.blake2b256(key.key.exportedBytes())), "the children's key is the one stored")
    }

    func testProcessesRotatingConcurrentlyEachAddOneKey() throws {
        _ = try scenario.app.groupKey(for: scenario.group)

        let results = try runTogether("keyset-rotate")

        let rotatedIDs = results.compactMap { UInt32($0.output.dropFirst("rotated ".count)) }
        XCTAssertEqual(rotatedIDs.count, Self.processCount, "every process reports its new key: \(results.map(\.output))")
        XCTAssertEqual(Set(rotatedIDs), Set(2...UInt32(Self.processCount + 1)), "each rotation got its own id: \(rotatedIDs)")
        let keys = try scenario.app.keys(in: scenario.group)
        XCTAssertEqual(keys.map(\.id), Array(1...UInt32(Self.processCount + 1)), "no rotation was lost")
        XCTAssertEqual(keys.filter { $0.status == .primary }.map(\.id), [UInt32(Self.processCount + 1)], "exactly one primary, the last")
        XCTAssertEqual(keys.filter { $0.status == .active }.count, Self.processCount)
    }

    // MARK: Running the children

    private struct ChildResult {
        var status: Int32
        var output: String
    }

    /// Starts ``processCount`` fixture children running `command` on the scenario's home, waits
    /// until all are ready, releases them at once, and returns what each printed after the barrier.
    private func runTogether(_ command: String) throws -> [ChildResult] {
        let barrier = scenario.directory.url.appendingPathComponent("start").path
        let arguments = [command, "--team", "ABCDE12345", "--group", scenario.group.rawValue, "--barrier", barrier]
        let environment = ["GROUPVAULT_HOME": scenario.home.root.path]
        var children: [FixtureProcess] = []
        // Whatever happens here, open the barrier so no child is left waiting for it.
        defer { _ = FileManager.default.createFile(atPath: barrier, contents: nil) }
        for _ in 0..<Self.processCount {
            children.append(try FixtureProcess(arguments, environment: environment))
        }

        let deadline = Date().addingTimeInterval(60)
        while children.contains(where: { !$0.standardOutput.hasPrefix("ready\n") }) && Date() < deadline {
            usleep(1_000)
        }
        XCTAssertFalse(children.contains { !$0.standardOutput.hasPrefix("ready\n") }, "every child reached the barrier within 60 s")
        XCTAssertTrue(FileManager.default.createFile(atPath: barrier, contents: nil))

        return children.map { child in
            let status = child.wait()
            XCTAssertEqual(status, 0, "child \(child.pid) failed: \(child.standardError)")
            let output = child.standardOutput.dropFirst("ready\n".count).trimmingCharacters(in: .whitespacesAndNewlines)
            return ChildResult(status: status, output: output)
        }
    }
}

private func hexadecimal(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
