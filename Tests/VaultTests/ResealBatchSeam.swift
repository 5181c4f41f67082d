import Foundation
import Keyring
import Vault
import XCTest

/// A point inside a `resealAll()` batch where a test runs a concurrent writer (the test seams
/// of `Vault`, debug builds only).
enum ResealBatchSeam {
    /// After the batch's announcement commit, before any temporary file is written.
    case afterAnnouncement
    /// After the batch's temporary files are written and durable, before any is renamed.
    case afterTemporariesWritten

    func arm(_ body: (@Sendable () -> Void)?) {
        switch self {
        case .afterAnnouncement: Vault.resealBatchAnnounced.withLock { $0 = body }
        case .afterTemporariesWritten: Vault.resealBatchWritten.withLock { $0 = body }
        }
    }
}

extension XCTestCase {
    /// The race both reseal race suites pin down, at `seam`: three records under the previous
    /// key, and `resealAll()` with a writer of "second" going in at that point. The writer's
    /// version wins, the batch reseals the other two, every record then reads under the new
    /// key alone (the old one is retired first) and verifies clean. Returns the vault, for the
    /// caller's own checks.
    func assertAWriterAtTheSeamWinsOverResealAll(
        _ seam: ResealBatchSeam, in sandbox: VaultSandbox, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Vault {
        let vault = try sandbox.vault()
        let old = try vault.write(AuthState.signedIn, to: "first").keyID
        try vault.write(AuthState.signedIn, to: "second")
        try vault.write(AuthState.signedIn, to: "third")
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        seam.arm { _ = try? vault.write(AuthState.signedOut, to: "second") }
        defer { seam.arm(nil) }

        XCTAssertEqual(try vault.resealAll(), 2, "the writer, not the batch, moved \"second\" to the new key", file: file, line: line)
        seam.arm(nil)
        try sandbox.keyring.retireKey(id: old, in: VaultSandbox.group)

        XCTAssertEqual(try vault.read(AuthState.self, from: "second"), AuthState.signedOut, file: file, line: line)
        XCTAssertEqual(try vault.read(AuthState.self, from: "first"), AuthState.signedIn, file: file, line: line)
        XCTAssertEqual(try vault.read(AuthState.self, from: "third"), AuthState.signedIn, file: file, line: line)
        XCTAssertTrue(try vault.verifyAll().findings.isEmpty, file: file, line: line)
        return vault
    }
}
