import Dispatch
import Foundation
import GroupVaultTestKit
import SealedStorage
import Synchronization
import SystemPackage
import XCTest

/// Specification of the exclusive lock: holders never overlap, even as threads of one process.
final class FileLockTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-filelock")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// Each worker does a read-modify-write of a counter file that is not atomic by itself
    /// (read, parse, write back plus one); only the lock keeps increments from being lost.
    func testLockSerializesReadModifyWriteAcrossThreads() throws {
        let workers = 4
        let incrementsPerWorker = 100
        let counter = root.appending("counter")
        let lockPath = root.appending("counter.lock")
        try FileInspection.write(Array("0".utf8), to: counter)
        let holders = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let failures = Locked<[String]>([])

        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            for _ in 0..<incrementsPerWorker {
                do {
                    try withExclusiveLock(at: lockPath, sharing: .ownerOnly) {
                        if holders.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
                            overlaps.add(1, ordering: .sequentiallyConsistent)
                        }
                        defer { holders.subtract(1, ordering: .sequentiallyConsistent) }
                        let text = String(decoding: try FileInspection.contents(of: counter), as: UTF8.self)
                        guard let value = Int(text) else { throw CocoaError(.fileReadCorruptFile) }
                        try FileInspection.write(Array(String(value + 1).utf8), to: counter)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }

        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(overlaps.load(ordering: .sequentiallyConsistent), 0, "two holders were inside the lock at once")
        XCTAssertEqual(String(decoding: try FileInspection.contents(of: counter), as: UTF8.self), String(workers * incrementsPerWorker))
    }

    func testLockIsFreeAgainAfterTheHolderReleasesIt() throws {
        let lockPath = root.appending("state.lock")
        try withExclusiveLock(at: lockPath, sharing: .ownerOnly) {}

        let reacquired = try withExclusiveLock(at: lockPath, sharing: .ownerOnly) { true }

        XCTAssertTrue(reacquired)
    }

    func testLockFileIsCreatedWithTheSharingMode() throws {
        let ownerOnly = root.appending("owner.lock")
        let unixGroup = root.appending("group.lock")

        try FileInspection.withUmask(0o077) {
            try withExclusiveLock(at: ownerOnly, sharing: .ownerOnly) {}
            try withExclusiveLock(at: unixGroup, sharing: .unixGroup) {}
        }

        XCTAssertEqual(try FileInspection.mode(of: ownerOnly) & 0o077, 0, "an owner-only lock file gives others nothing")
        XCTAssertEqual(try FileInspection.mode(of: unixGroup) & 0o007, 0, "a group lock file gives others nothing")
    }

    /// Another member of the group must be able to open the lock file this process created,
    /// whatever this process's umask was (found in review: 022 made it 0640).
    func testAGroupLockFileHasExactlyTheGroupModeWhateverTheUmask() throws {
        let path = root.appending("group.lock")

        try FileInspection.withUmask(0o022) {
            try withExclusiveLock(at: path, sharing: .unixGroup) {}
        }

        XCTAssertEqual(try FileInspection.mode(of: path) & 0o777, 0o660)
    }

    func testLockRefusesASymbolicLink() throws {
        let real = root.appending("real.lock")
        let link = root.appending("link.lock")
        try FileInspection.write([], to: real)
        try FileManager.default.createSymbolicLink(atPath: link.string, withDestinationPath: real.string)

        let error = try storageError { _ = try FileLock(exclusiveAt: link, sharing: .ownerOnly) }

        XCTAssertEqual(error.operation, "open lock file")
    }
}
