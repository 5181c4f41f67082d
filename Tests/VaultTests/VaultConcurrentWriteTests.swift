import Foundation
import Vault
import XCTest
import SealedStorage

/// Writers on several threads of one process (the observation helper's MultiProcess tests do
/// the same across processes): the writer lock serializes them, so no update is lost.
final class VaultConcurrentWriteTests: VaultTestCase {
    func testConcurrentWritersTakeDistinctConsecutiveSequences() throws {
        let vault = try sandbox.vault(durability: .atomic)
        try vault.write(AuthState.signedOut, to: "auth-state")  // the key exists before the race
        let sequences = Locked<[UInt64]>([])
        let failures = Locked<[VaultError]>([])

        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<5 {
                do throws(VaultError) {
                    let header = try vault.write(AuthState.signedIn, to: "auth-state")
                    sequences.withLock { $0.append(header.sequence) }
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
        }

        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(sequences.withLock { $0.sorted() }, Array(2...21))
    }

    func testReadsDuringConcurrentWritesSeeWholeRecords() throws {
        let vault = try sandbox.vault(durability: .atomic)
        try vault.write(AuthState.signedOut, to: "auth-state")
        let refusals = Locked<[VaultError]>([])

        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for round in 0..<40 {
                if worker == 0 {
                    _ = try? vault.write(round.isMultiple(of: 2) ? AuthState.signedIn : AuthState.signedOut, to: "auth-state")
                } else {
                    do throws(VaultError) {
                        let state = try vault.read(AuthState.self, from: "auth-state")
                        XCTAssertTrue(state == AuthState.signedIn || state == AuthState.signedOut)
                    } catch {
                        refusals.withLock { $0.append(error) }
                    }
                }
            }
        }

        XCTAssertEqual(refusals.withLock { $0 }, [])
    }
}
