import Dispatch
import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// Specification of reading untrusted files: only regular files, never through a link,
/// never more than the limit, never blocking.
final class SafeFileTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-safefile")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    func testMissingFileReadsAsNil() throws {
        XCTAssertNil(try SafeFile.readIfPresent(root.appending("absent"), maximumSize: 64))
    }

    func testRegularFileReadsWhole() throws {
        var rng = SeededGenerator()
        let bytes = rng.bytes(count: 1000)
        try FileInspection.write(bytes, to: root.appending("file"))

        XCTAssertEqual(try SafeFile.readIfPresent(root.appending("file"), maximumSize: 1000), bytes, rng.describe)
    }

    func testEmptyFileReadsAsNoBytes() throws {
        try FileInspection.write([], to: root.appending("empty"))

        XCTAssertEqual(try SafeFile.readIfPresent(root.appending("empty"), maximumSize: 64), [])
    }

    func testSymbolicLinkIsRefused() throws {
        let real = root.appending("real")
        let link = root.appending("link")
        try FileInspection.write([1], to: real)
        try FileManager.default.createSymbolicLink(atPath: link.string, withDestinationPath: real.string)

        let error = try storageError { try SafeFile.readIfPresent(link, maximumSize: 64) }

        XCTAssertEqual(error.kind, .symbolicLink)
        XCTAssertTrue(error.description.contains("symbolic link"), error.description)
    }

    func testDanglingSymbolicLinkIsRefusedNotMissing() throws {
        let link = root.appending("dangling")
        try FileManager.default.createSymbolicLink(atPath: link.string, withDestinationPath: root.appending("nowhere").string)

        let error = try storageError { try SafeFile.readIfPresent(link, maximumSize: 64) }

        XCTAssertEqual(error.kind, .symbolicLink)
    }

    func testFIFOIsRefusedWithoutHanging() throws {
        let fifo = root.appending("fifo")
        XCTAssertEqual(mkfifo(fifo.string, 0o600), 0)
        let outcome = Locked<Result<[UInt8]?, StorageError>?>(nil)
        let finished = DispatchSemaphore(value: 0)

        // A reader that opened a FIFO without O_NONBLOCK would wait for a writer forever; run it
        // off the test thread so such a regression fails the test instead of hanging the suite.
        DispatchQueue.global().async {
            let result = Result { () throws(StorageError) in try SafeFile.readIfPresent(fifo, maximumSize: 64) }
            outcome.withLock { $0 = result }
            finished.signal()
        }

        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success, "reading a FIFO blocked")
        guard case .failure(let error)? = outcome.withLock({ $0 }) else {
            return XCTFail("a FIFO was read as a file: \(String(describing: outcome.withLock { $0 }))")
        }
        XCTAssertEqual(error.kind, .wrongFileType)
    }

    func testDirectoryIsRefused() throws {
        let error = try storageError { try SafeFile.readIfPresent(root, maximumSize: 64) }

        XCTAssertEqual(error.kind, .wrongFileType)
    }

    func testFileOneByteOverTheLimitIsRefused() throws {
        try FileInspection.write([UInt8](repeating: 7, count: 65), to: root.appending("big"))

        let error = try storageError { try SafeFile.readIfPresent(root.appending("big"), maximumSize: 64) }

        XCTAssertEqual(error.kind, .tooLarge(limit: 64))
    }

    func testFileExactlyAtTheLimitIsRead() throws {
        try FileInspection.write([UInt8](repeating: 7, count: 64), to: root.appending("full"))

        XCTAssertEqual(try SafeFile.readIfPresent(root.appending("full"), maximumSize: 64)?.count, 64)
    }

    func testOwnershipCheckRefusesAFileOthersCanRead() throws {
        let file = root.appending("secret")
        try FileInspection.write([1], to: file)
        chmod(file.string, 0o644)

        let error = try storageError { try SafeFile.checkOwnership(file, sharing: .ownerOnly) }

        XCTAssertEqual(error.kind, .insecurePermissions(mode: 0o644))
    }

    func testOwnershipCheckAcceptsGroupAccessWhenSharedWithTheGroup() throws {
        let file = root.appending("shared")
        try FileInspection.write([1], to: file)
        chmod(file.string, 0o660)

        XCTAssertNoThrow(try SafeFile.checkOwnership(file, sharing: .unixGroup))
    }
}

