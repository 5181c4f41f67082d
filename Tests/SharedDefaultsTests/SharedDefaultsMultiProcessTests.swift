import Foundation
import GroupVaultTestKit
import SharedDefaults
import Vault
import XCTest

/// Real child processes (GroupStoresFixture) writing, observing and reading one suite.
final class SharedDefaultsMultiProcessTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    private func start(_ arguments: [String]) throws -> FixtureProcess {
        try FixtureProcess(arguments, environment: sandbox.childEnvironment, executable: "GroupStoresFixture")
    }

    private func waitForReady(_ child: FixtureProcess, file: StaticString = #filePath, line: UInt = #line) {
        // Readiness is a line the child prints once its watch is in place; no time is assumed.
        while !child.standardOutput.contains("ready") {
            if !child.standardError.isEmpty { XCTFail(child.standardError, file: file, line: line); return }
            usleep(1000)
        }
    }

    func testProcessesSettingTheirOwnKeysOneThousandTimesEachLoseNothing() throws {
        let processes = 3, keys = 10, rounds = 100  // 1,000 sets per process
        let writers = try (0..<processes).map { index in
            try start(["defaults-set", "--suite", "race", "--prefix", "p\(index)", "--keys", "\(keys)", "--rounds", "\(rounds)"])
        }
        for writer in writers {
            XCTAssertEqual(writer.wait(), 0, writer.standardError)
            XCTAssertEqual(writer.standardOutput, "done\n")
        }
        let suite = try sandbox.defaults("race")
        XCTAssertEqual(suite.values().count, processes * keys)
        XCTAssertEqual(try suite.refusals(), [:])
        for index in 0..<processes {
            for key in 0..<keys {
                XCTAssertEqual(suite.integer(forKey: "p\(index)-\(key)"), rounds, "p\(index)-\(key)")
            }
        }
    }

    func testAnObserverProcessSeesTheFinalValueAndNeverGoesBack() throws {
        let observer = try start(["defaults-observe", "--suite", "watched", "--key", "counter", "--until", "300"])
        waitForReady(observer)
        let writer = try sandbox.defaults("watched")
        for value in 1...300 { try writer.set(value, forKey: "counter") }
        XCTAssertEqual(observer.wait(), 0, observer.standardError)
        let seen = observer.standardOutput.split(separator: "\n").filter { $0.hasPrefix("value ") }.compactMap { Int($0.dropFirst(6)) }
        XCTAssertEqual(seen.last, 300)
        XCTAssertEqual(seen, seen.sorted(), "an observer never sees a value go back")
    }

    func testAWriteFromAnotherProcessReachesALiveSuiteObjectWithoutReopening() throws {
        let reader = try sandbox.defaults("live")
        XCTAssertNil(reader.object(forKey: "p0-0"))
        let changes = try reader.changes(forKey: "p0-0")
        let writer = try start(["defaults-set", "--suite", "live", "--prefix", "p0", "--keys", "1", "--rounds", "3"])
        XCTAssertEqual(writer.wait(), 0, writer.standardError)
        let expectation = expectation(description: "the final value arrives")
        let task = Task {
            for await _ in changes where reader.integer(forKey: "p0-0") == 3 {
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }

    func testARolledBackEntryIsRefusedInAnotherProcessWithTheVaultReason() throws {
        let writer = try sandbox.defaults("tamper")
        try writer.set(1, forKey: "plan")
        let file = try XCTUnwrap(try sandbox.recordFiles().first)
        let old = try Data(contentsOf: file)
        try writer.set(2, forKey: "plan")
        XCTAssertEqual(try run(["defaults-read", "--suite", "tamper", "--key", "plan"]), "value 2 int\n")
        try old.write(to: file)  // put the older sealed entry back
        XCTAssertEqual(try run(["defaults-read", "--suite", "tamper", "--key", "plan"]), "refused rollback\n")
    }

    func testATamperedEntryIsRefusedInAnotherProcessWithTheVaultReason() throws {
        let writer = try sandbox.defaults("tamper")
        try writer.set("pro", forKey: "plan")
        let file = try XCTUnwrap(try sandbox.recordFiles().first)
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes[bytes.count - 1] ^= 0x01
        try Data(bytes).write(to: file)
        XCTAssertEqual(try run(["defaults-read", "--suite", "tamper", "--key", "plan"]), "refused authenticationFailed\n")
    }

    func testAnEntryCopiedOverAnotherKeyIsRefused() throws {
        let writer = try sandbox.defaults("tamper")
        try writer.set("free", forKey: "plan")
        try writer.set("pro", forKey: "promo")
        let files = try sandbox.recordFiles()
        let plan = try XCTUnwrap(files.first { $0.lastPathComponent == writer.recordName(forKey: "plan") + ".gvr" })
        let promo = try XCTUnwrap(files.first { $0 != plan })
        try Data(contentsOf: promo).write(to: plan)
        XCTAssertEqual(try run(["defaults-read", "--suite", "tamper", "--key", "plan"]), "refused authenticationFailed\n")
    }

    func testAnEntryWhoseFileWasDeletedIsRefusedAsMissingInAnotherProcess() throws {
        let writer = try sandbox.defaults("tamper")
        try writer.set("pro", forKey: "plan")
        let file = try XCTUnwrap(try sandbox.recordFiles().first)
        try FileManager.default.removeItem(at: file)  // as anyone who can write the container can
        XCTAssertEqual(try run(["defaults-read", "--suite", "tamper", "--key", "plan"]), "refused missing\n")
    }

    func testTheLiveObjectOfTheWriterAlsoRefusesARollback() throws {
        let writer = try sandbox.defaults("tamper")
        try writer.set(1, forKey: "plan")
        let file = try XCTUnwrap(try sandbox.recordFiles().first)
        let old = try Data(contentsOf: file)
        try writer.set(2, forKey: "plan")
        let changes = try writer.changes(forKey: "plan")
        try old.write(to: file)
        let expectation = expectation(description: "the rollback is noticed")
        let task = Task {
            for await _ in changes {
                do throws(SharedDefaultsError) { _ = try writer.value(forKey: "plan") } catch {
                    if error.vaultError?.code == .rollback { expectation.fulfill(); return }
                }
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
        XCTAssertNil(writer.object(forKey: "plan"), "a refused entry reads as absent")
    }

    func testRefusalsListTheRefusedKeyWithTheVaultReason() throws {
        let writer = try sandbox.defaults("tamper")
        try writer.set("pro", forKey: "plan")
        try writer.set("kept", forKey: "other")
        let file = try XCTUnwrap(try sandbox.recordFiles().first { $0.lastPathComponent == writer.recordName(forKey: "plan") + ".gvr" })
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes[bytes.count - 1] ^= 0x01
        try Data(bytes).write(to: file)
        let reader = try sandbox.defaults("tamper")
        let refusals = try reader.refusals()
        XCTAssertEqual(refusals.count, 1)
        XCTAssertEqual(refusals.values.first?.code, .authenticationFailed)
        XCTAssertEqual(reader.string(forKey: "other"), "kept", "one refused entry does not take the suite down")
        XCTAssertNil(reader.string(forKey: "plan"))
    }

    private func run(_ arguments: [String]) throws -> String {
        let result = try FixtureProcess.run(arguments, environment: sandbox.childEnvironment, executable: "GroupStoresFixture")
        XCTAssertEqual(result.status, 0, result.errors)
        return result.output
    }
}
