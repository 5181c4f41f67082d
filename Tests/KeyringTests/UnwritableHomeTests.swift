import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A home that cannot be written or is not what it should be gives a clear error, not a crash.
///
/// CI runs as root, where mode bits do not stop writes, so these tests make paths unusable
/// by their *type*: a regular file where a directory must be, a directory where a file must
/// be, a symbolic link.
final class UnwritableHomeTests: ItemTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try TemporaryDirectory(prefix: "groupvault-unwritable")
    }

    override func tearDown() {
        directory.remove()
        super.tearDown()
    }

    private func keyring(root: URL) -> Keyring {
        Keyring(identity: ItemTestHome.identity, home: KeyringHome(root: root))
    }

    private func regularFile(named name: String) throws -> URL {
        let file = directory.url.appendingPathComponent(name)
        try Data("not a directory".utf8).write(to: file)
        return file
    }

    private func assertClearError(_ status: KeyringStatus, naming path: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? KeyringError else { return XCTFail("not a KeyringError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.status, status, error.reason, file: file, line: line)
            XCTAssertTrue(error.reason.contains(path), "reason does not name \(path): \(error.reason)", file: file, line: line)
        }
    }

    func testAddToAHomeBeneathARegularFileIsAClearError() throws {
        let root = try regularFile(named: "plain").appendingPathComponent("home")
        assertClearError(.ioError, naming: root.path) {
            try keyring(root: root).add(KeychainItem(service: "api", secret: Data("s".utf8)))
        }
    }

    func testSearchingAHomeBeneathARegularFileIsAClearError() throws {
        let root = try regularFile(named: "plain").appendingPathComponent("home")
        assertClearError(.ioError, naming: "plain/home") {
            _ = try keyring(root: root).items(matching: ItemQuery(service: "api"))
        }
    }

    func testAKeychainsPathThatIsARegularFileIsAClearError() throws {
        let root = directory.url.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try Data().write(to: root.appendingPathComponent("Keychains"))
        // The first file reached below it (the device lock state) reports ENOTDIR.
        assertClearError(.ioError, naming: "Keychains") {
            try keyring(root: root).add(KeychainItem(service: "api", secret: Data("s".utf8)))
        }
    }

    func testAKeyringDatabaseThatIsASymbolicLinkIsNotAvailable() throws {
        try home.keyring().add(KeychainItem(service: "api", accessGroup: ItemTestHome.shared, secret: Data("s".utf8)))
        let file = home.databaseFile
        let elsewhere = directory.url.appendingPathComponent("elsewhere.db")
        try FileManager.default.moveItem(at: file, to: elsewhere)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: elsewhere)
        // This process opened the real file already; a new process would find the link.
        KeyringDatabase.closeAll()
        assertClearError(.notAvailable, naming: "keyring.db") {
            try home.keyring().add(KeychainItem(service: "api", accessGroup: ItemTestHome.appGroup, secret: Data("s".utf8)))
        }
    }

    func testAKeyringDatabaseThatIsADirectoryIsNotAvailable() throws {
        try home.keyring().add(KeychainItem(service: "api", secret: Data("s".utf8)))
        let file = home.databaseFile
        KeyringDatabase.closeAll()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        assertClearError(.notAvailable, naming: "keyring.db") {
            _ = try home.keyring().items(matching: ItemQuery(service: "api"))
        }
    }
}
