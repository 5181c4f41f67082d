#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Vault
import GroupVaultTestKit
import XCTest

/// A container writer who swaps `GroupVault/records` or `GroupVault/locks` for a symbolic link
/// while a process has the vault open (issue 11, hole 6) cannot make that process follow it:
/// the vault opened both directories once, by descriptor, and keeps using the directories it
/// vetted, so nothing is read from the link's target and nothing is written there.
final class VaultSwappedDirectoryTests: XCTestCase {
    private var sandbox: VaultSandbox!
    private var attacker: LinkSwappingAttacker!
    /// The attacker's directory, which the links point to.
    private var elsewhere: URL { attacker.directory }

    override func setUpWithError() throws {
        sandbox = try VaultSandbox()
        attacker = try LinkSwappingAttacker(in: sandbox.directory.url)
    }

    override func tearDown() {
        sandbox.remove()
    }




    func testReadAfterTheRecordsDirectoryIsSwappedForALinkReadsTheDirectoryTheVaultOpened() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        // A genuine older blob: valid-looking, sealed with the group key, and signed in.
        try attacker.plant(try sandbox.blob("auth-state", in: vault), as: "auth-state.gvr")
        try vault.write(AuthState.signedOut, to: "auth-state")

        _ = try attacker.swapForLink(vault.recordsDirectory.string)

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedOut,
                       "the running process read the link's target instead of the directory it opened")
    }

    func testWriteAfterTheRecordsDirectoryIsSwappedForALinkDoesNotLandInTheLinkTarget() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let planted = try sandbox.blob("auth-state", in: vault)
        try attacker.plant(planted, as: "auth-state.gvr")

        let movedAside = try attacker.swapForLink(vault.recordsDirectory.string)
        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(try attacker.files(), ["auth-state.gvr"], "nothing was created in the link's target")
        XCTAssertEqual(Array(try Data(contentsOf: elsewhere.appendingPathComponent("auth-state.gvr"))), planted,
                       "the planted file was not replaced")
        let written = Array(try Data(contentsOf: movedAside.appendingPathComponent("auth-state.gvr")))
        XCTAssertNotEqual(written, planted, "the write replaced the record in the directory the vault opened")
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedOut)
    }

    func testWriteAfterTheLocksDirectoryIsSwappedForALinkTakesNoLockInTheLinkTarget() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        // A FIFO where the record's lock would be: followed, it would refuse the write.
        XCTAssertEqual(mkfifo(elsewhere.appendingPathComponent("auth-state.lock").path, 0o600), 0)

        _ = try attacker.swapForLink(vault.locksDirectory.string)
        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(try attacker.files(), ["auth-state.lock"], "no lock file was created in the link's target")
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedOut)
    }

    func testListAfterTheRecordsDirectoryIsSwappedForALinkListsTheDirectoryTheVaultOpened() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try attacker.plant(try sandbox.blob("auth-state", in: vault), as: "planted.gvr")

        _ = try attacker.swapForLink(vault.recordsDirectory.string)

        XCTAssertEqual(try vault.list().map(\.name), ["auth-state"])
        XCTAssertEqual(try vault.verifyAll().passed, 1)
    }

    func testWriteAfterTheRecordsDirectoryIsRemovedRecreatesIt() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try FileManager.default.removeItem(atPath: vault.recordsDirectory.string)

        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(try sandbox.recordsDirectoryEntries(of: vault), ["auth-state.gvr"])
        XCTAssertEqual(try sandbox.vault().read(AuthState.self, from: "auth-state"), .signedOut)
    }

    func testWriteAfterTheRecordsDirectoryIsRemovedAndReplacedByALinkIsRefusedNotFollowed() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try FileManager.default.removeItem(atPath: vault.recordsDirectory.string)
        try FileManager.default.createSymbolicLink(atPath: vault.recordsDirectory.string, withDestinationPath: elsewhere.path)

        XCTAssertThrowsError(try vault.write(AuthState.signedOut, to: "auth-state")) { error in
            XCTAssertEqual((error as? VaultError)?.code, .storage, "\(error)")
        }
        XCTAssertEqual(try attacker.files(), [], "nothing was written through the link")
    }

    func testVaultOpenedAfterTheSwapRefusesTheLink() throws {
        _ = try sandbox.vault()
        _ = try attacker.swapForLink(try sandbox.vault().recordsDirectory.string)

        XCTAssertThrowsError(try sandbox.vault()) { error in
            XCTAssertEqual((error as? VaultError)?.code, .storage, "\(error)")
        }
    }
}
