import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// The fault-injection check lives inside the system-call wrappers, so any call can be made to
/// fail where it is made (reads, opens, listings, inotify), and faults can be armed for a scope.
final class SyscallFaultTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }

    override func setUpWithError() throws {
        #if DEBUG
        directory = try TemporaryDirectory(prefix: "groupvault-syscallfault")
        try FileInspection.write(Array("content".utf8), to: root.appending("file"))
        #else
        throw XCTSkip("FaultInjection is compiled out of release builds")
        #endif
    }

    override func tearDown() {
        FaultInjection.disarmAll()
        directory?.remove()
        directory = nil
    }

    private func storageError(_ body: () throws(StorageError) -> Void, file: StaticString = #filePath, line: UInt = #line) -> StorageError? {
        do {
            try body()
            XCTFail("expected a StorageError", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testFailedReadIsReportedNamingTheFile() {
        let error = FaultInjection.withFault(.fail(.ioError), at: .call(.read)) {
            storageError { () throws(StorageError) in _ = try SafeFile.readIfPresent(root.appending("file"), maximumSize: 100) }
        }
        XCTAssertEqual(error?.kind, .system(.ioError))
        XCTAssertEqual(error?.path, root.appending("file").string)
    }

    func testFailedOpenIsReported() {
        let error = FaultInjection.withFault(.fail(.tooManyOpenFiles), at: .call(.open)) {
            storageError { () throws(StorageError) in _ = try SafeFile.readIfPresent(root.appending("file"), maximumSize: 100) }
        }
        XCTAssertEqual(error?.kind, .system(.tooManyOpenFiles))
    }

    func testFailedDirectoryListingIsReportedNotTakenForAnEmptyDirectory() {
        let error = FaultInjection.withFault(.fail(.ioError), at: .call(.listDirectory)) {
            storageError { () throws(StorageError) in _ = try DirectoryListing.entries(in: root) }
        }
        XCTAssertEqual(error?.kind, .system(.ioError))
        XCTAssertEqual(error?.operation, "list directory")
    }

    #if os(Linux)
    func testFailedInotifyWatchIsReportedWithTheWatchLimitHint() {
        let watcher = DirectoryWatcher(directory: root)
        let error = FaultInjection.withFault(.fail(.noSpace), at: .call(.inotifyAddWatch)) {
            storageError { () throws(StorageError) in _ = try watcher.events() }
        }
        XCTAssertEqual(error?.kind, .system(.noSpace))
        XCTAssertTrue(error?.description.contains("max_user_watches") ?? false, "\(String(describing: error))")
    }
    #endif

    func testFaultArmedForAScopeIsGoneAfterIt() throws {
        FaultInjection.withFault(.fail(.ioError), at: .call(.read)) {}
        XCTAssertEqual(try SafeFile.readIfPresent(root.appending("file"), maximumSize: 100), Array("content".utf8))
    }

    func testWriteStepFaultFiresInsideTheWrapperThatPerformsTheStep() {
        let error = FaultInjection.withFault(.fail(.noSpace), at: .step(.writeTemporary)) {
            storageError { () throws(StorageError) in
                try AtomicFile.replace(root.appending("file"), with: [1, 2, 3], sharing: .ownerOnly, durability: .full)
            }
        }
        XCTAssertEqual(error?.kind, .system(.noSpace))
        XCTAssertEqual(error?.operation, "write temporary file")
    }
}
