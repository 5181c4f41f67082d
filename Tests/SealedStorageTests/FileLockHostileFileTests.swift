#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// Lock files sit where others may plant files: what is planted at a lock path is refused at
/// once, and a lock nobody releases ends the wait with a clear error instead of hanging.
final class FileLockHostileFileTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-filelock-hostile")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func lockRefusal(_ path: FilePath, sharing: FileSharing = .ownerOnly, waitLimit: Duration = FileLock.defaultWaitLimit,
                             file: StaticString = #filePath, line: UInt = #line) -> StorageError? {
        do {
            try withExclusiveLock(at: path, sharing: sharing, waitLimit: waitLimit) {}
            XCTFail("expected the lock to be refused", file: file, line: line)
            return nil
        } catch let error as StorageError {
            return error
        } catch {
            XCTFail("expected a StorageError, got \(error)", file: file, line: line)
            return nil
        }
    }

    /// The attack: a FIFO at the lock path blocked every writer in `open` forever.
    func testFIFOAtTheLockPathIsRefusedWithoutWaiting() throws {
        let path = root.appending("auth-state.lock")
        XCTAssertEqual(mkfifo(path.string, 0o600), 0)

        let error = lockRefusal(path)

        XCTAssertEqual(error?.kind, .wrongFileType)
        XCTAssertTrue(error?.description.contains("must be a regular file") ?? false, "\(String(describing: error))")
    }

    func testSymbolicLinkAtTheLockPathIsRefused() throws {
        let target = root.appending("elsewhere")
        try FileInspection.write([], to: target)
        let path = root.appending("auth-state.lock")
        XCTAssertEqual(symlink(target.string, path.string), 0)

        XCTAssertEqual(lockRefusal(path)?.kind, .symbolicLink)
    }

    /// The attack: with group sharing the lock file's mode is set to 0660 with `fchmod`, so a
    /// hard link at the lock path to a private file made that file group-readable.
    func testHardLinkedLockFileIsRefusedAndTheLinkedFileKeepsItsMode() throws {
        let secret = root.appending("private.key")
        try FileInspection.write(Array("secret".utf8), to: secret)
        XCTAssertEqual(chmod(secret.string, 0o600), 0)
        let path = root.appending(".group.lock")
        XCTAssertEqual(link(secret.string, path.string), 0)

        let error = lockRefusal(path, sharing: .unixGroup)

        XCTAssertEqual(error?.kind, .wrongFileType)
        XCTAssertTrue(error?.description.contains("2 hard links") ?? false, "\(String(describing: error))")
        var status = stat()
        XCTAssertEqual(lstat(secret.string, &status), 0)
        XCTAssertEqual(UInt32(status.st_mode) & 0o7777, 0o600, "the private file's mode was changed through the link")
    }

    /// The attack: another process holding `flock` forever hung every writer.
    func testLockHeldForeverByAnotherProcessEndsTheWaitWithAClearError() throws {
        let path = root.appending("auth-state.lock")
        let holder = try FixtureProcess(["hold-lock", path.string])
        defer {
            holder.kill(SIGKILL)
            holder.wait()
        }
        while !holder.standardOutput.contains("locked") {
            XCTAssertTrue(holder.standardError.isEmpty, holder.standardError)
            guard holder.standardError.isEmpty else { return }
            usleep(10_000)
        }

        let error = lockRefusal(path, waitLimit: .milliseconds(200))

        XCTAssertEqual(error?.kind, .system(.wouldBlock))
        XCTAssertTrue(error?.description.contains("locked by another process for") ?? false, "\(String(describing: error))")
    }

    func testLockIsTakenOnceTheOtherProcessReleasesIt() throws {
        let path = root.appending("auth-state.lock")
        let holder = try FixtureProcess(["hold-lock", path.string])
        while !holder.standardOutput.contains("locked"), holder.standardError.isEmpty { usleep(10_000) }
        XCTAssertTrue(holder.standardError.isEmpty, holder.standardError)
        holder.kill(SIGKILL)
        holder.wait()

        XCTAssertEqual(try withExclusiveLock(at: path, sharing: .ownerOnly) { 42 }, 42)
    }
}
