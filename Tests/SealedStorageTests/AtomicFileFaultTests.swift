import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// Specification of replacement under failure: a fault at any step before the rename leaves the
/// old content whole and no temporary file behind, and the error names the step that failed.
///
/// Faults come from the ``FaultInjection`` seam, which exists in debug builds only.
final class AtomicFileFaultTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }
    private var target: FilePath { root.appending("state") }
    private let oldContent: [UInt8] = Array("old, complete content".utf8)
    private let newContent: [UInt8] = Array("new content that must not half-appear".utf8)

    override func setUpWithError() throws {
        #if DEBUG
        directory = try TemporaryDirectory(prefix: "groupvault-atomicfault")
        try AtomicFile.replace(target, with: oldContent, sharing: .ownerOnly, durability: .full)
        #else
        throw XCTSkip("FaultInjection is compiled out of release builds")
        #endif
    }

    override func tearDown() {
        FaultInjection.disarmAll()
        directory?.remove()
        directory = nil
    }

    /// Arms an EIO at `point`, replaces, and checks what must hold whatever the step.
    private func replaceFailing(at point: FaultPoint, line: UInt = #line) throws -> StorageError {
        let error = try FaultInjection.withFault(.fail(.ioError), at: .step(point)) {
            try storageError(line: line) {
                try AtomicFile.replace(target, with: newContent, sharing: .ownerOnly, durability: .full)
            }
        }
        // After the rename nothing can be undone, and the kind says so.
        let expected: StorageError.Kind = point == .syncDirectory ? .notDurable(.ioError) : .system(.ioError)
        XCTAssertEqual(error.kind, expected, "\(point): \(error)", line: line)
        XCTAssertEqual(FileInspection.names(in: root), ["state"], "\(point): no temporary file may remain", line: line)
        return error
    }

    func testFailureCreatingTheTemporaryKeepsTheOldContent() throws {
        let error = try replaceFailing(at: .createTemporary)

        XCTAssertEqual(error.operation, "create temporary file")
        XCTAssertEqual(try FileInspection.contents(of: target), oldContent)
    }

    func testFailureWritingTheTemporaryKeepsTheOldContent() throws {
        let error = try replaceFailing(at: .writeTemporary)

        XCTAssertEqual(error.operation, "write temporary file")
        XCTAssertEqual(try FileInspection.contents(of: target), oldContent)
    }

    func testFailureSyncingTheTemporaryKeepsTheOldContent() throws {
        let error = try replaceFailing(at: .syncTemporary)

        XCTAssertEqual(error.operation, "sync temporary file")
        XCTAssertEqual(try FileInspection.contents(of: target), oldContent)
    }

    func testFailureRenamingKeepsTheOldContent() throws {
        let error = try replaceFailing(at: .rename)

        XCTAssertEqual(error.operation, "rename temporary file over")
        XCTAssertEqual(try FileInspection.contents(of: target), oldContent)
    }

    /// The directory fsync comes after the rename, which cannot be undone: the new content is
    /// visible, whole, and the caller is told that it may not survive a power loss.
    func testFailureSyncingTheDirectoryIsReportedAfterTheNewContentIsPublished() throws {
        let error = try replaceFailing(at: .syncDirectory)

        XCTAssertEqual(error.operation, "sync directory")
        XCTAssertEqual(error.kind, .notDurable(.ioError), "a failure after the rename is told apart from one before it")
        XCTAssertTrue(error.description.contains("already in place"), error.description)
        XCTAssertEqual(try FileInspection.contents(of: target), newContent)
    }

    func testErrorDescriptionNamesTheStepAndThePath() throws {
        let error = try replaceFailing(at: .syncTemporary)

        XCTAssertTrue(error.description.contains("sync temporary file"), error.description)
        XCTAssertTrue(error.description.contains(root.string), error.description)
    }

    func testFailedFileSyncNeverPublishesANewFile() throws {
        let fresh = root.appending("fresh")
        _ = try FaultInjection.withFault(.fail(.ioError), at: .step(.syncTemporary)) {
            try storageError { try AtomicFile.replace(fresh, with: newContent, sharing: .ownerOnly, durability: .full) }
        }

        XCTAssertNil(try Syscall.statusIfPresent(fresh), "the rename must not run after a failed fsync")
    }

    func testOutOfSpaceIsReportedAsSuchAndKeepsTheOldContent() throws {
        let error = try FaultInjection.withFault(.fail(.noSpace), at: .step(.writeTemporary)) {
            try storageError { try AtomicFile.replace(target, with: newContent, sharing: .ownerOnly, durability: .full) }
        }

        XCTAssertTrue(error.isOutOfSpace, error.description)
        XCTAssertTrue(error.description.contains("free disk space"), error.description)
        XCTAssertEqual(try FileInspection.contents(of: target), oldContent)
    }

    func testAtomicDurabilitySkipsTheDirectorySync() throws {
        try FaultInjection.withFault(.fail(.ioError), at: .step(.syncDirectory)) {
            try AtomicFile.replace(target, with: newContent, sharing: .ownerOnly, durability: .atomic)
        }

        XCTAssertEqual(try FileInspection.contents(of: target), newContent)
    }

    // The two rules below, for the process-wide table, which crash tests arm through the
    // environment; FileLayerDriverTests states them for a driver's faults.

    func testFaultArmedAfterPassesLetsEarlierArrivalsThrough() throws {
        try FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.rename), afterPassing: 1) {
            try AtomicFile.replace(target, with: newContent, sharing: .ownerOnly, durability: .full)
            _ = try storageError { try AtomicFile.replace(target, with: oldContent, sharing: .ownerOnly, durability: .full) }
        }

        XCTAssertEqual(try FileInspection.contents(of: target), newContent)
    }

    func testAFaultFiresOnceThenDisarms() throws {
        try FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.writeTemporary)) {
            _ = try storageError { try AtomicFile.replace(target, with: newContent, sharing: .ownerOnly, durability: .full) }

            try AtomicFile.replace(target, with: newContent, sharing: .ownerOnly, durability: .full)
        }

        XCTAssertEqual(try FileInspection.contents(of: target), newContent)
    }
}
