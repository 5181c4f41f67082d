import Foundation
import Vault
import XCTest

/// A blob is bound to its group and record name (SECURITY.md, "The layers and what each stops", layer 3).
final class VaultBindingTests: VaultTestCase {
    func testBlobCopiedToAnotherRecordNameFailsAuthentication() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try sandbox.place(try sandbox.blob("auth-state", in: vault), as: "admin-state", in: vault)

        assertRefused(.authenticationFailed) { () throws(VaultError) in try vault.read(AuthState.self, from: "admin-state") }
    }

    func testBlobCopiedOverAnotherExistingRecordFailsAuthentication() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try vault.write(AuthState.signedOut, to: "guest-state")

        try sandbox.place(try sandbox.blob("auth-state", in: vault), as: "guest-state", in: vault)

        assertRefused(.authenticationFailed) { () throws(VaultError) in try vault.read(AuthState.self, from: "guest-state") }
    }

    func testBlobCopiedToAnotherGroupFailsAuthentication() throws {
        let vault = try sandbox.vault()
        let other = try sandbox.vault(group: VaultSandbox.otherGroup)
        try vault.write(AuthState.signedIn, to: "auth-state")
        try other.write(AuthState.signedOut, to: "unrelated")  // the other group has its own key #1

        try sandbox.place(try sandbox.blob("auth-state", in: vault), as: "auth-state", in: other)

        assertRefused(.authenticationFailed) { () throws(VaultError) in try other.read(AuthState.self, from: "auth-state") }
    }
}
