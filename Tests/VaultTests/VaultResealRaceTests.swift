import Foundation
import Keyring
@testable import Vault
import SealedStorage
import SystemPackage
import XCTest

/// Rotation, resealAll and retirement racing writers: once resealAll returns, no record can still
/// be sealed with an older key, so retiring it strands nothing.
final class VaultResealRaceTests: VaultTestCase {
    func testResealAllWaitsForAWriterThatFetchedTheOlderKey() throws {
        let vault = try sandbox.vault()
        let first = try vault.write(AuthState.signedIn, to: "auth-state").keyID
        // Hold the writer lock of a new record, so a writer stops right after fetching its key.
        let recordLock = try FileLock(exclusiveAt: vault.lockPath(RecordName(validating: "new-state")), sharing: .ownerOnly)
        let writer = Thread.detach { try vault.write(AuthState.signedOut, to: "new-state") }
        try waitUntilHeldByAnother(vault.groupLockPath)

        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        let resealer = Thread.detach { try vault.resealAll() }
        // Give an unordered resealAll the chance to finish before the writer (the bug this test
        // pins down); the assertions below do not depend on how long this takes.
        Thread.sleep(forTimeInterval: 0.2)
        _ = consume recordLock
        try writer.result()
        try resealer.result()
        try sandbox.keyring.retireKey(id: first, in: VaultSandbox.group)

        XCTAssertEqual(try vault.read(AuthState.self, from: "new-state"), AuthState.signedOut)
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testResealAllSkipsFilesThatAreNotRecordNames() throws {
        let vault = try sandbox.vault()
        let first = try vault.write(AuthState.signedIn, to: "auth-state").keyID
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: vault.recordsDirectory.appending("My File.gvr").string))
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        XCTAssertEqual(try vault.resealAll(), 1)
        try sandbox.keyring.retireKey(id: first, in: VaultSandbox.group)
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    /// A batch announces its records, then renames them one by one: a writer of one of them in
    /// between wins, and the batch leaves that record to it instead of overwriting it.
    func testResealAllKeepsAWriteMadeBetweenItsAnnouncementAndItsRename() throws {
        _ = try assertAWriterAtTheSeamWinsOverResealAll(.afterAnnouncement, in: sandbox)
    }

    /// A writer that announces a record of the batch and then fails leaves it on the old key:
    /// the batch must not count it as done, but reseal it on its own.
    func testResealAllResealsARecordWhoseInterveningWriterFailed() throws {
        let vault = try sandbox.vault()
        let old = try vault.write(AuthState.signedIn, to: "first").keyID
        try vault.write(AuthState.signedIn, to: "second")
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        Vault.resealBatchAnnounced.withLock {
            $0 = {
                // The writer announces, then fails before its rename and withdraws.
                FaultInjection.withFault(.fail(.noSpace), at: .step(.rename)) {
                    _ = try? vault.write(AuthState.signedOut, to: "second")
                }
            }
        }
        defer { Vault.resealBatchAnnounced.withLock { $0 = nil } }

        XCTAssertEqual(try vault.resealAll(), 2)
        Vault.resealBatchAnnounced.withLock { $0 = nil }
        try sandbox.keyring.retireKey(id: old, in: VaultSandbox.group)

        XCTAssertEqual(try vault.read(AuthState.self, from: "first"), AuthState.signedIn)
        XCTAssertEqual(try vault.read(AuthState.self, from: "second"), AuthState.signedIn)
    }

    /// More records than one batch: every one is resealed and reported once, in order.
    func testResealAllOfMoreRecordsThanOneBatchResealsAndReportsEachOnce() throws {
        let vault = try sandbox.vault()
        let count = Vault.resealBatchSize + 3
        let names = (0..<count).map { String(format: "record-%04d", $0) }
        let old = try vault.write(AuthState.signedIn, to: names[0]).keyID
        for name in names.dropFirst() { try vault.write(AuthState.signedIn, to: name) }
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        var reported: [Int] = []

        XCTAssertEqual(try vault.resealAll { reported.append($0.completed) }, count)
        try sandbox.keyring.retireKey(id: old, in: VaultSandbox.group)

        XCTAssertEqual(reported, Array(1...count))
        XCTAssertEqual(try vault.verifyAll().passed, count)
    }

    /// Polls (bounded) until another open file description holds a lock on `path`.
    private func waitUntilHeldByAnother(_ path: FilePath) throws {
        for _ in 0..<5000 {
            let descriptor = open(path.string, O_RDWR | O_CLOEXEC)
            if descriptor >= 0 {
                let free = flock(descriptor, LOCK_EX | LOCK_NB) == 0
                close(descriptor)
                if !free { return }
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        XCTFail("the writer never took the group lock")
    }
}

/// A thread running a throwing closure, whose outcome can be awaited.
private final class DetachedWork<Value>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Value, any Error>?

    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread {
            self.outcome = Result { try body() }
            self.done.signal()
        }.start()
    }

    /// Waits for the thread and returns its value or rethrows its error.
    @discardableResult
    func result() throws -> Value {
        done.wait()
        return try outcome!.get()
    }
}

private extension Thread {
    static func detach<Value>(_ body: @escaping @Sendable () throws -> Value) -> DetachedWork<Value> {
        DetachedWork(body)
    }
}
