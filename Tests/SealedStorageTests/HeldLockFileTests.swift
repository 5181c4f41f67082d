import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// Specification of a lock file held open and locked again for each operation: objects of one
/// file exclude each other as ``FileLock``s do, and unlocking frees the file at once.
final class HeldLockFileTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var handle: DirectoryHandle!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-heldlock")
        handle = try DirectoryHandle(opening: FilePath(directory.path), sharing: .ownerOnly)
    }

    override func tearDown() {
        handle = nil
        directory?.remove()
        directory = nil
    }

    private func lockFile() throws -> HeldLockFile { try HeldLockFile(in: handle, name: "state.lock") }

    func testAnExclusiveLockKeepsEveryOtherObjectOfTheFileOutUntilItIsUnlocked() throws {
        let holder = try lockFile()
        let other = try lockFile()
        try holder.lock(exclusive: true)

        XCTAssertFalse(try other.tryLock(exclusive: true))
        XCTAssertFalse(try other.tryLock(exclusive: false))
        holder.unlock()
        XCTAssertTrue(try other.tryLock(exclusive: true))
    }

    func testSharedLocksOfTwoObjectsHoldTogetherAndKeepAnExclusiveOneOut() throws {
        let first = try lockFile()
        let second = try lockFile()
        let writer = try lockFile()
        try first.lock(exclusive: false)

        XCTAssertTrue(try second.tryLock(exclusive: false))
        XCTAssertFalse(try writer.tryLock(exclusive: true))
    }

    func testAHeldLockExcludesAFileLockOfTheSameFile() throws {
        let holder = try lockFile()
        try holder.lock(exclusive: true)

        let error = try storageError { _ = try FileLock(exclusiveIn: handle, name: "state.lock", waitLimit: .zero) }
        XCTAssertEqual(error.kind, .system(.wouldBlock))
    }

    func testALockWaitedForInVainEndsWithAnErrorNamingTheLock() throws {
        let holder = try lockFile()
        try holder.lock(exclusive: true)

        XCTAssertThrowsError(try lockFile().lock(exclusive: true, waitLimit: .zero)) { error in
            XCTAssertEqual((error as? StorageError)?.operation, "lock")
            XCTAssertTrue("\(error)".contains("state.lock"), "\(error)")
        }
    }

    func testAnAsyncWaiterGetsTheLockOnceItsHolderUnlocks() async throws {
        let holder = try lockFile()
        try holder.lock(exclusive: true)
        let waiter = try lockFile()

        let waiting = Task { try await waiter.lockUnlessCancelled(exclusive: true) }
        await Task.yield()
        holder.unlock()

        let taken = try await waiting.value
        XCTAssertTrue(taken)
        XCTAssertFalse(try lockFile().tryLock(exclusive: false), "the waiter must hold the lock it was given")
    }

    func testAnAsyncWaiterWhoseTaskIsCancelledGivesUpWithoutTheLock() async throws {
        let holder = try lockFile()
        try holder.lock(exclusive: true)
        let waiter = try lockFile()

        let waiting = Task { try await waiter.lockUnlessCancelled(exclusive: true) }
        waiting.cancel()

        let taken = try await waiting.value
        XCTAssertFalse(taken)
        holder.unlock()
        XCTAssertTrue(try lockFile().tryLock(exclusive: true), "a waiter that gave up must not hold the lock")
    }

    func testASymbolicLinkInThePlaceOfTheLockFileIsRefused() throws {
        try FileInspection.write([], to: FilePath(directory.path).appending("real.lock"))
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/state.lock", withDestinationPath: directory.path + "/real.lock")

        XCTAssertThrowsError(try lockFile()) { error in
            XCTAssertEqual((error as? StorageError)?.operation, "open lock file")
        }
    }
}
