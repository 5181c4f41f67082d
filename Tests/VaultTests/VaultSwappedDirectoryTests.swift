#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Vault
import XCTest

/// A container writer who swaps `GroupVault/records` or `GroupVault/locks` for a symbolic link
/// while a process has the vault open (issue 11, hole 6) cannot make that process follow it:
/// the vault opened both directories once, by descriptor, and keeps using the directories it
/// vetted, so nothing is read from the link's target and nothing is written there.
final class VaultSwappedDirectoryTests: XCTestCase {
    private var sandbox: VaultSandbox!
    /// The attacker's directory, elsewhere in the home, which the link will point to.
    private var elsewhere: URL!

    override func setUpWithError() throws {
        sandbox = try VaultSandbox()
        elsewhere = sandbox.directory.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    override func tearDown() {
        sandbox.remove()
    }

    /// Moves `directory` aside (it stays the same directory, by another name) and puts a
    /// symbolic link to the attacker's directory in its place; returns where it went.
    private func swapForLink(_ directory: String) throws -> URL {
        let original = URL(fileURLWithPath: directory)
        let movedAside = original.deletingLastPathComponent().appendingPathComponent(original.lastPathComponent + ".moved")
        try FileManager.default.moveItem(at: original, to: movedAside)
        try FileManager.default.createSymbolicLink(at: original, withDestinationURL: elsewhere)
        return movedAside
    }

    /// Writes `bytes` as the attacker would: a 0600 file of this user, so only where it is matters.
    private func plant(_ bytes: [UInt8], as name: String) throws {
        let path = elsewhere.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]))
    }

    private func attackerFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted()
    }

    func testReadAfterTheRecordsDirectoryIsSwappedForALinkReadsTheDirectoryTheVaultOpened() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, as: "auth-state")
        // A genuine older blob: valid-looking, sealed with the group key, and signed in.
        try plant(try sandbox.blob("auth-state", in: vault), as: "auth-state.gvr")
        try vault.write(AuthState.signedOut, as: "auth-state")

        _ = try swapForLink(vault.recordsDirectory.string)

        XCTAssertEqual(try vault.read(AuthState.self, name: "auth-state"), .signedOut,
                       "the running process read the link's target instead of the directory it opened")
    }

    func testWriteAfterTheRecordsDirectoryIsSwappedForALinkDoesNotLandInTheLinkTarget() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, as: "auth-state")
        let planted = try sandbox.blob("auth-state", in: vault)
        try plant(planted, as: "auth-state.gvr")

        let movedAside = try swapForLink(vault.recordsDirectory.string)
        try vault.write(AuthState.signedOut, as: "auth-state")

        XCTAssertEqual(try attackerFiles(), ["auth-state.gvr"], "nothing was created in the link's target")
        XCTAssertEqual(Array(try Data(contentsOf: elsewhere.appendingPathComponent("auth-state.gvr"))), planted,
                       "the planted file was not replaced")
        let written = Array(try Data(contentsOf: movedAside.appendingPathComponent("auth-state.gvr")))
        XCTAssertNotEqual(written, planted, "the write replaced the record in the directory the vault opened")
        XCTAssertEqual(try vault.read(AuthState.self, name: "auth-state"), .signedOut)
    }

    func testWriteAfterTheLocksDirectoryIsSwappedForALinkTakesNoLockInTheLinkTarget() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, as: "auth-state")
        // A FIFO where the record's lock would be: followed, it would refuse the write.
        XCTAssertEqual(mkfifo(elsewhere.appendingPathComponent("auth-state.lock").path, 0o600), 0)

        _ = try swapForLink(vault.locksDirectory.string)
        try vault.write(AuthState.signedOut, as: "auth-state")

        XCTAssertEqual(try attackerFiles(), ["auth-state.lock"], "no lock file was created in the link's target")
        XCTAssertEqual(try vault.read(AuthState.self, name: "auth-state"), .signedOut)
    }

    func testListAfterTheRecordsDirectoryIsSwappedForALinkListsTheDirectoryTheVaultOpened() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, as: "auth-state")
        try plant(try sandbox.blob("auth-state", in: vault), as: "planted.gvr")

        _ = try swapForLink(vault.recordsDirectory.string)

        XCTAssertEqual(try vault.list().map(\.name), ["auth-state"])
        XCTAssertEqual(try vault.verifyAll().passed, 1)
    }

    func testWriteAfterTheRecordsDirectoryIsRemovedRecreatesIt() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, as: "auth-state")
        try FileManager.default.removeItem(atPath: vault.recordsDirectory.string)

        try vault.write(AuthState.signedOut, as: "auth-state")

        XCTAssertEqual(try sandbox.recordsDirectoryEntries(of: vault), ["auth-state.gvr"])
        XCTAssertEqual(try sandbox.vault().read(AuthState.self, name: "auth-state"), .signedOut)
    }

    func testWriteAfterTheRecordsDirectoryIsRemovedAndReplacedByALinkIsRefusedNotFollowed() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, as: "auth-state")
        try FileManager.default.removeItem(atPath: vault.recordsDirectory.string)
        try FileManager.default.createSymbolicLink(atPath: vault.recordsDirectory.string, withDestinationPath: elsewhere.path)

        XCTAssertThrowsError(try vault.write(AuthState.signedOut, as: "auth-state")) { error in
            XCTAssertEqual((error as? VaultError)?.code, .storage, "\(error)")
        }
        XCTAssertEqual(try attackerFiles(), [], "nothing was written through the link")
    }

    func testVaultOpenedAfterTheSwapRefusesTheLink() throws {
        _ = try sandbox.vault()
        _ = try swapForLink(try sandbox.vault().recordsDirectory.string)

        XCTAssertThrowsError(try sandbox.vault()) { error in
            XCTAssertEqual((error as? VaultError)?.code, .storage, "\(error)")
        }
    }
}
