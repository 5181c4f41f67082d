import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// The per-task seam: a ``FileLayerDriver`` bound to one task or thread fails and traces the
/// calls made there, and nowhere else, so tests that fail the same call can run side by side.
final class FileLayerDriverTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }
    private var file: FilePath { root.appending("file") }

    override func setUpWithError() throws {
        #if DEBUG
        directory = try TemporaryDirectory(prefix: "groupvault-driver")
        try FileInspection.write(Array("content".utf8), to: file)
        #else
        throw XCTSkip("FileLayerDriver is compiled out of release builds")
        #endif
    }

    override func tearDown() {
        FaultInjection.disarmAll()
        directory?.remove()
        directory = nil
    }

    /// Thread A arms a read fault on its driver and waits while thread B reads: B's read
    /// succeeds, and the fault is still there for A's own read afterwards.
    func testAFaultArmedOnOneThreadDoesNotFireOnAConcurrentThread() throws {
        let file = self.file
        let armed = DispatchSemaphore(value: 0)
        let otherRead = DispatchSemaphore(value: 0)
        let ownerDone = DispatchSemaphore(value: 0)
        let results = Locked<(own: StorageError.Kind?, other: [UInt8]??)>((nil, nil))
        let owner = Thread {
            FileLayerDriver.with { driver in
                driver.fail(.call(.read), with: .ioError)
                armed.signal()
                otherRead.wait()
                do {
                    _ = try SafeFile.readIfPresent(file, maximumSize: 100)
                } catch {
                    results.withLock { $0.own = (error as? StorageError)?.kind }
                }
            }
            ownerDone.signal()
        }
        let other = Thread {
            armed.wait()
            let bytes = try? SafeFile.readIfPresent(file, maximumSize: 100)
            results.withLock { $0.other = .some(bytes) }
            otherRead.signal()
        }
        owner.start()
        other.start()
        ownerDone.wait()

        let (own, otherBytes) = results.withLock { ($0.own, $0.other) }
        XCTAssertEqual(otherBytes, .some(Array("content".utf8)), "the other thread's read must not meet the fault")
        XCTAssertEqual(own, .system(.ioError), "the fault stays armed for the thread that armed it")
    }

    /// A task that does not descend from the binding one (here a detached task) runs beside it
    /// without its faults; the binding task still meets them.
    func testAFaultArmedInOneTaskDoesNotFireInAConcurrentTask() async throws {
        let file = self.file
        try await FileLayerDriver.with { driver in
            driver.fail(.call(.read), with: .ioError)
            let other = Task.detached { try SafeFile.readIfPresent(file, maximumSize: 100) }
            let otherBytes = try await other.value
            XCTAssertEqual(otherBytes, Array("content".utf8))
            XCTAssertThrowsError(try SafeFile.readIfPresent(file, maximumSize: 100)) { error in
                XCTAssertEqual((error as? StorageError)?.kind, .system(.ioError))
            }
        }
    }

    /// Child tasks inherit the driver: an operation split over `async let` is failed and traced whole.
    func testChildTasksShareTheDriverOfTheTaskThatBoundIt() async throws {
        let file = self.file
        let failure: StorageError.Kind? = await FileLayerDriver.with { driver in
            driver.fail(.call(.read), with: .ioError)
            async let child: StorageError.Kind? = {
                do {
                    _ = try SafeFile.readIfPresent(file, maximumSize: 100)
                    return nil
                } catch {
                    return (error as? StorageError)?.kind
                }
            }()
            let kind = await child
            XCTAssertTrue(driver.trace.contains { $0.call == .read }, "\(driver.trace)")
            return kind
        }
        XCTAssertEqual(failure, .system(.ioError))
    }

    /// `withFault` is scoped to the thread that calls it: a read on another thread during its
    /// body goes through.
    func testWithFaultDoesNotReachAnotherThread() throws {
        let file = self.file
        let bytes = FaultInjection.withFault(.fail(.ioError), at: .call(.read)) { () -> [UInt8]? in
            let done = DispatchSemaphore(value: 0)
            let read = Locked<[UInt8]?>(nil)
            Thread {
                read.withLock { $0 = try? SafeFile.readIfPresent(file, maximumSize: 100) }
                done.signal()
            }.start()
            done.wait()
            return read.withLock { $0 }
        }
        XCTAssertEqual(bytes, Array("content".utf8))
    }

    /// The trace shows every call of an operation, in order: a full replacement is exactly
    /// these system calls (open the directory, create the temporary in it, vet and set its
    /// mode, write, fsync, rename, fsync the directory), each write step at the call that
    /// performs it.
    func testTheTraceListsEveryCallOfAnAtomicReplacement() throws {
        let target = root.appending("state")
        let trace = try FileLayerDriver.with { driver throws(StorageError) in
            try AtomicFile.replace(target, with: [1, 2, 3], sharing: .ownerOnly, durability: .full)
            return driver.trace
        }
        XCTAssertEqual(trace.map(\.call), [.open, .open, .status, .changeMode, .write, .sync, .rename, .sync], "\(trace)")
        XCTAssertEqual(trace.compactMap(\.step), [.createTemporary, .writeTemporary, .syncTemporary, .rename, .syncDirectory], "\(trace)")
    }

    func testAFaultAfterPassesFailsTheCallThatMany() throws {
        let target = root.appending("state")
        let error = try FileLayerDriver.with { driver in
            driver.fail(.call(.sync), with: .ioError, afterPassing: 1)
            return try storageError { try AtomicFile.replace(target, with: [1], sharing: .ownerOnly, durability: .full) }
        }
        XCTAssertEqual(error.kind, .notDurable(.ioError), "the second fsync, of the directory, fails")
        XCTAssertEqual(try FileInspection.contents(of: target), [1])
    }

    /// An action armed before a call runs there, once, and the call then goes ahead: a race
    /// made exact without timing.
    func testAnActionArmedBeforeACallRunsOnceJustBeforeIt() throws {
        let seen = Locked<[Int]>([])
        let count = FileLayerDriver.with { driver in
            driver.run(before: .call(.read), afterPassing: 1) {
                seen.withLock { $0.append(driver.trace.filter { $0.call == .read }.count) }
            }
            XCTAssertNotNil(try? SafeFile.readIfPresent(file, maximumSize: 100))
            XCTAssertNotNil(try? SafeFile.readIfPresent(file, maximumSize: 100))
            return driver.trace.filter { $0.call == .read }.count
        }
        XCTAssertEqual(seen.withLock { $0 }.count, 1, "the action runs once")
        XCTAssertGreaterThan(count, 2, "every read went ahead")
    }

    /// The process-wide table still reaches a task that has its own driver.
    func testAProcessWideFaultStillFiresInsideADriver() {
        let kind = FaultInjection.withProcessWideFault(.fail(.ioError), at: .call(.read)) {
            FileLayerDriver.with { _ -> StorageError.Kind? in
                do {
                    _ = try SafeFile.readIfPresent(file, maximumSize: 100)
                    return nil
                } catch {
                    return (error as? StorageError)?.kind
                }
            }
        }
        XCTAssertEqual(kind, .system(.ioError))
    }

    func testADriverRecordsNothingOnceItsScopeHasEnded() throws {
        let driver = FileLayerDriver()
        let file = self.file
        driver.bind { _ in XCTAssertNotNil(try? SafeFile.readIfPresent(file, maximumSize: 100)) }
        let during = driver.trace.count

        _ = try SafeFile.readIfPresent(file, maximumSize: 100)

        XCTAssertGreaterThan(during, 0)
        XCTAssertEqual(driver.trace.count, during)
    }
}
