import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import XCTest

/// POSIX semaphores and shared memory live in `/dev/shm`, which every user of the machine can
/// write: what is found under a group's name there is vetted before its mode is changed.
final class SharedObjectFileTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    /// A file of this user in /dev/shm (so that it can be hard-linked there), mode 0640.
    private var victim: String!

    override func setUpWithError() throws {
        sandbox = try MessagingSandbox()
        victim = "/dev/shm/groupvault-victim-\(getpid())"
        // The size of a sem_t, zeroed, so that sem_open can map it as glibc would.
        XCTAssertTrue(FileManager.default.createFile(atPath: victim, contents: Data(count: 32)))
        XCTAssertEqual(chmod(victim, 0o640), 0)
    }

    override func tearDown() {
        unlink(victim)
        sandbox.remove()
    }

    func testAHardLinkPlantedAtASemaphoreNameIsRefusedAndItsTargetKeepsItsMode() throws {
        let name = try GroupIPCName(.semaphore, "h\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSemaphore.unlink(name) }
        XCTAssertEqual(link(victim, "/dev/shm/sem." + name.posixName.dropFirst()), 0)
        XCTAssertThrowsError(try GroupSemaphore(name, keyring: sandbox.keyring)) { error in
            XCTAssertTrue("\(error)".contains("hard links"), "\(error)")
        }
        XCTAssertEqual(mode(of: victim), 0o640, "opening the semaphore changed the mode of the file its name links to")
    }

    func testAHardLinkPlantedAtASharedMemoryNameIsRefusedAndItsTargetKeepsItsMode() throws {
        let name = try GroupIPCName(.sharedMemory, "h\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSharedMemory.unlink(name) }
        XCTAssertEqual(link(victim, "/dev/shm" + name.posixName), 0)
        XCTAssertThrowsError(try GroupSharedMemory.open(name, keyring: sandbox.keyring).close()) { error in
            XCTAssertTrue("\(error)".contains("hard links"), "\(error)")
        }
        XCTAssertEqual(mode(of: victim), 0o640, "opening the shared memory changed the mode of the file its name links to")
    }

    func testAFIFOPlantedAtASharedMemoryNameIsRefused() throws {
        let name = try GroupIPCName(.sharedMemory, "f\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSharedMemory.unlink(name) }
        XCTAssertEqual(mkfifo("/dev/shm" + name.posixName, 0o600), 0)
        XCTAssertThrowsError(try GroupSharedMemory.open(name, keyring: sandbox.keyring).close()) { error in
            XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
        }
    }

    private func mode(of path: String) -> mode_t {
        var status = stat()
        XCTAssertEqual(lstat(path, &status), 0, path)
        return status.st_mode & 0o7777
    }
}
