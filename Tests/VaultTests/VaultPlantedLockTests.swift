#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Vault
import XCTest

/// A container writer who plants a FIFO at a lock path cannot hang writers: the write is
/// refused at once with a reason, so a sign-out is reported as failed instead of never finishing.
final class VaultPlantedLockTests: VaultTestCase {
    private func assertWriteRefused(withFIFOAt lockPath: (Vault) -> String, file: StaticString = #filePath, line: UInt = #line) throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let path = lockPath(vault)
        unlink(path)
        XCTAssertEqual(mkfifo(path, 0o600), 0, file: file, line: line)

        do {
            try vault.write(AuthState.signedOut, to: "auth-state")
            XCTFail("the write went through a FIFO lock", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .storage, "\(error)", file: file, line: line)
            XCTAssertTrue(error.reason.contains("must be a regular file"), error.reason, file: file, line: line)
        }
    }

    func testFIFOAtTheRecordLockIsRefusedNotWaitedOn() throws {
        try assertWriteRefused { vault in vault.locksDirectory.appending("auth-state.lock").string }
    }

    func testFIFOAtTheGroupLockIsRefusedNotWaitedOn() throws {
        try assertWriteRefused { vault in vault.groupLockPath.string }
    }
}
