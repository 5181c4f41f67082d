#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Vault
import GroupVaultTestKit
import XCTest

/// A member of the group who removes `GroupVault/records` and swaps a directory above it (the
/// container, or `GroupVault`) for a symbolic link to a directory of their own, while a process
/// has the vault open, cannot make that process follow the link (issue 18): the records
/// directory is recreated relative to the vault directory the process holds, never looked up
/// by path, and an observer is refused rather than pointed at the link's target.
final class VaultDirectoryRecreationTests: VaultTestCase {
    private var attacker: LinkSwappingAttacker!
    /// The attacker's directory, which the links point to.
    private var elsewhere: URL { attacker.directory }

    override func setUpWithError() throws {
        try super.setUpWithError()
        attacker = try LinkSwappingAttacker(in: sandbox.directory.url)
    }

    /// Every path below the attacker's directory, sorted.
    private func attackerEntries() -> [String] {
        (FileManager.default.enumerator(atPath: elsewhere.path)?.allObjects as? [String] ?? []).sorted()
    }

    func testRecordsRecreatedAfterTheContainerWasSwappedForALinkAreNotCreatedInTheLinkTarget() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        // The attacker's container looks like a vault's: a GroupVault directory, no records.
        try FileManager.default.createDirectory(at: elsewhere.appendingPathComponent("GroupVault"), withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])

        try FileManager.default.removeItem(atPath: vault.recordsDirectory.string)
        let container = vault.vaultDirectory.removingLastComponent().string
        let movedAside = try attacker.swapForLink(container)
        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(attackerEntries(), ["GroupVault"], "the records directory was recreated in the link's target")
        let recreated = movedAside.appendingPathComponent("GroupVault/records")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: recreated.path), ["auth-state.gvr"],
                       "the record was written into the vault directory the process had opened")
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedOut)
    }

    func testObservingAfterTheVaultDirectoryWasSwappedForALinkIsRefusedAndCreatesNothingInTheLinkTarget() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        _ = try attacker.swapForLink(vault.vaultDirectory.string)

        XCTAssertThrowsError(try vault.changes(to: "auth-state")) { error in
            let reason = (error as? VaultError)?.reason ?? "\(error)"
            XCTAssertTrue(reason.contains(vault.recordsDirectory.string), reason)
        }
        XCTAssertEqual(attackerEntries(), [], "the records directory was created in the link's target to be watched")
    }
}
