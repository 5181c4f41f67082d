import Foundation
import Keyring
@testable import Vault
import SealedStorage
import SystemPackage
import XCTest

/// Rotation, resealAll and retirement racing writers: once resealAll returns, no record can still
/// be sealed with an older key, so retiring it strands nothing.
final class VaultResealRaceTests: XCTestCase {
    func testResealAllWaitsForAWriterThatFetchedTheOlderKey() throws {
        let sandbox = try VaultSandbox()
        defer { sandbox.remove() }
        let vault = try sandbox.vault()
        let first = try vault.write(AuthState.signedIn, as: "auth-state").keyID
        // Hold the writer lock of a new record, so a writer stops right after fetching its key.
        let recordLock = try FileLock(exclusiveAt: vault.lockPath(RecordName(validating: "new-state")), sharing: .ownerOnly)
        let writer = Thread.detach { try vault.write(AuthState.signedOut, as: "new-state") }
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

        XCTAssertEqual(try vault.read(AuthState.self, name: "new-state"), AuthState.signedOut)
        XCTAssertEqual(try vault.read(AuthState.self, name: "auth-state"), AuthState.signedIn)
    }

    func testResealAllSkipsFilesThatAreNotRecordNames() throws {
        let sandbox = try VaultSandbox()
        defer { sandbox.remove() }
        let vault = try sandbox.vault()
        let first = try vault.write(AuthState.signedIn, as: "auth-state").keyID
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: vault.recordsDirectory.appending("My File.gvr").string))
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        XCTAssertEqual(try vault.resealAll(), 1)
        try sandbox.keyring.retireKey(id: first, in: VaultSandbox.group)
        XCTAssertEqual(try vault.read(AuthState.self, name: "auth-state"), AuthState.signedIn)
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
