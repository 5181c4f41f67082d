import Foundation
import GroupVaultTestKit
import Vault
import XCTest
import SealedStorage

/// `Vault.changes(to:)`: every write seen, nothing else, in this process and in another.
///
/// Exact counts without timing: inotify delivers one directory's events in order, so once an
/// event caused by a later "marker" write has arrived, every event of the earlier writes has too.
final class ObservationTests: XCTestCase {
    private var testbed: VaultTestbed!
    private var vault: Vault { testbed.vault }

    override func setUpWithError() throws {
        testbed = try VaultTestbed()
    }

    override func tearDown() {
        testbed.remove()
    }

    // MARK: In this process

    func testEachWriteOfARecordIsObservedOnce() async throws {
        let recorder = ChangeRecorder(try vault.changes())
        defer { recorder.cancel() }

        for counter in 1...5 {
            try vault.write(CounterRecord(writer: "test", counter: counter), to: "state")
        }
        try vault.write(CounterRecord(writer: "test", counter: 0), to: "marker")

        let changes = await recorder.wait { $0.contains(.init(name: "marker", kind: .written)) }
        XCTAssertEqual(changes.filter { $0.name == "state" }, Array(repeating: .init(name: "state", kind: .written), count: 5))
        XCTAssertEqual(changes.last, .init(name: "marker", kind: .written))
    }

    func testObserverOfOneRecordDoesNotSeeWritesOfAnother() async throws {
        let recorder = ChangeRecorder(try vault.changes(to: "state"))
        defer { recorder.cancel() }

        for counter in 1...3 {
            try vault.write(CounterRecord(writer: "test", counter: counter), to: "other")
        }
        try vault.write(CounterRecord(writer: "test", counter: 1), to: "state")

        let changes = await recorder.wait { !$0.isEmpty }
        XCTAssertEqual(changes, [.init(name: "state", kind: .written)])
    }

    func testDeletingARecordIsObservedAsAWrite() async throws {
        try vault.write(CounterRecord(writer: "test", counter: 1), to: "state")
        let recorder = ChangeRecorder(try vault.changes(to: "state"))
        defer { recorder.cancel() }

        // A deletion seals a tombstone over the record: readers must re-read to learn of it.
        try vault.delete("state")

        let changes = await recorder.wait { !$0.isEmpty }
        XCTAssertEqual(changes, [.init(name: "state", kind: .written)])
    }

    func testRemovingARecordFileIsObservedAsRemoved() async throws {
        try vault.write(CounterRecord(writer: "test", counter: 1), to: "state")
        let recorder = ChangeRecorder(try vault.changes(to: "state"))
        defer { recorder.cancel() }

        try FileManager.default.removeItem(at: testbed.recordURL("state"))

        let changes = await recorder.wait { !$0.isEmpty }
        XCTAssertEqual(changes, [.init(name: "state", kind: .removed)])
    }

    func testTemporaryAndForeignFilesAreNotReported() async throws {
        let recorder = ChangeRecorder(try vault.changes())
        defer { recorder.cancel() }

        let directory = URL(fileURLWithPath: vault.recordsDirectory.string)
        for name in [".state.gvr.tmp-0123456789abcdef", "notes.txt", "state.gvr.bak", "bad..name.gvr", ".gvr", "state.GVR"] {
            try Data("x".utf8).write(to: directory.appendingPathComponent(name))
        }
        try vault.write(CounterRecord(writer: "test", counter: 0), to: "marker")

        let changes = await recorder.wait { $0.contains(.init(name: "marker", kind: .written)) }
        XCTAssertEqual(changes, [.init(name: "marker", kind: .written)])
    }

    func testObservingBeforeTheFirstWriteCreatesTheRecordsDirectory() async throws {
        let directory = vault.recordsDirectory.string
        try FileManager.default.removeItem(atPath: directory)

        let recorder = ChangeRecorder(try vault.changes(to: "state"))
        defer { recorder.cancel() }
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue)

        try vault.write(CounterRecord(writer: "test", counter: 1), to: "state")
        let changes = await recorder.wait { !$0.isEmpty }
        XCTAssertEqual(changes, [.init(name: "state", kind: .written)])
    }

    func testRemovingTheRecordsDirectoryReportsOverflowAndEndsTheStream() async throws {
        let recorder = ChangeRecorder(try vault.changes(to: "state"))
        defer { recorder.cancel() }

        try FileManager.default.removeItem(atPath: vault.recordsDirectory.string)

        let finished = await recorder.waitUntilFinished()
        XCTAssertTrue(finished, "the stream ends when the records directory goes away")
        XCTAssertEqual(recorder.elements, [.init(name: nil, kind: .overflow)])
    }

    func testInvalidRecordNameIsRefused() {
        for name in ["../state", ".state", "", "a/b"] {
            XCTAssertThrowsError(try vault.changes(to: name), "name \"\(name)\"") { error in
                XCTAssertEqual((error as? VaultError)?.code, .invalidName, "name \"\(name)\"")
            }
        }
    }

    func testSymbolicLinkInPlaceOfTheRecordsDirectoryIsRefused() throws {
        let directory = vault.recordsDirectory.string
        let elsewhere = testbed.home.url.appendingPathComponent("elsewhere").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createSymbolicLink(atPath: directory, withDestinationPath: elsewhere)

        XCTAssertThrowsError(try vault.changes()) { error in
            XCTAssertEqual((error as? VaultError)?.code, .storage)
        }
    }

    // MARK: In another process

    func testObserverInAnotherProcessSeesEachWrite() async throws {
        let writes = 5
        let observer = try testbed.start("vault-observe", ["--until", "marker", "--seconds", "60"])
        defer { observer.kill(SIGKILL) }
        let ready = await observer.waitForOutput { $0.hasPrefix("ready\n") }
        XCTAssertTrue(ready, "the observer never subscribed: \(observer.standardError)")

        for counter in 1...writes {
            try vault.write(CounterRecord(writer: "test", counter: counter), to: "state")
            // One write at a time: the next is made only after the observer printed this one,
            // so the count below is exact without any assumption about timing.
            let seen = await observer.waitForOutput { Self.changeLines(in: $0).count >= counter }
            XCTAssertTrue(seen, "write \(counter) not observed: \(observer.standardOutput)")
        }
        try vault.write(CounterRecord(writer: "test", counter: 0), to: "marker")

        XCTAssertEqual(observer.wait(), 0, observer.standardError)
        XCTAssertEqual(
            Self.changeLines(in: observer.standardOutput),
            Array(repeating: "change written state", count: writes) + ["change written marker"])
    }

    private static func changeLines(in output: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix("change ") }.map(String.init)
    }
}

/// Records what a stream of changes yields, from a task of its own, so a test can wait for a
/// change with a bound instead of hanging on `next()` when one never comes.
final class ChangeRecorder: Sendable {
    private final class Storage: Sendable {
        let state = Locked<(elements: [VaultChange], finished: Bool)>(([], false))
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<VaultChange>) {
        let storage = storage
        task = Task {
            for await element in stream { storage.state.withLock { $0.elements.append(element) } }
            storage.state.withLock { $0.finished = true }
        }
    }

    /// Everything recorded so far.
    var elements: [VaultChange] { storage.state.withLock { $0.elements } }

    /// Waits (at most `timeout`, a liveness bound, not a performance claim) until `condition`
    /// holds for the recorded changes, and returns them.
    func wait(timeout: Duration = .seconds(10), until condition: ([VaultChange]) -> Bool) async -> [VaultChange] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = elements
            if condition(current) { return current }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return elements
    }

    /// Waits (at most `timeout`) for the stream to end; returns whether it did.
    func waitUntilFinished(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if storage.state.withLock({ $0.finished }) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    /// Stops consuming: the stream's consumer goes away.
    func cancel() {
        task.cancel()
    }
}
