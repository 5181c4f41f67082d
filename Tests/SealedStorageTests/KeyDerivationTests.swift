import GroupVaultTestKit
import SealedStorage
import XCTest

/// Specification: subkeys are a deterministic function of (master, context, id), and each
/// input separates them.
final class KeyDerivationTests: XCTestCase {
    func testSameInputsDeriveTheSameKey() throws {
        var rng = SeededGenerator()
        let master = try SymmetricKey(bytes: rng.bytes(count: 32))
        let again = try SymmetricKey(bytes: master.exportedBytes())

        let first = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 1)
        let second = KeyDerivation.deriveKey(from: again, context: "GVKEYRNG", id: 1)

        XCTAssertTrue(first.constantTimeEquals(second), rng.describe)
    }

    func testDifferentIDsDeriveDifferentKeys() throws {
        var rng = SeededGenerator()
        let master = try SymmetricKey(bytes: rng.bytes(count: 32))

        let keys = (0..<8).map { KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: $0) }

        XCTAssertEqual(Set(keys.map { Hexadecimal.string($0.exportedBytes()) }).count, keys.count, rng.describe)
    }

    func testDifferentContextsDeriveDifferentKeys() throws {
        var rng = SeededGenerator()
        let master = try SymmetricKey(bytes: rng.bytes(count: 32))

        let keyring = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 1)
        let other = KeyDerivation.deriveKey(from: master, context: "GVRECORD", id: 1)

        XCTAssertFalse(keyring.constantTimeEquals(other), rng.describe)
    }

    func testDifferentMastersDeriveDifferentKeys() throws {
        var rng = SeededGenerator()
        let first = try SymmetricKey(bytes: rng.bytes(count: 32))
        var otherBytes = first.exportedBytes()
        otherBytes[0] ^= 1
        let second = try SymmetricKey(bytes: otherBytes)

        XCTAssertFalse(
            KeyDerivation.deriveKey(from: first, context: "GVKEYRNG", id: 1)
                .constantTimeEquals(KeyDerivation.deriveKey(from: second, context: "GVKEYRNG", id: 1)),
            rng.describe)
    }

    func testDerivedKeyIsNotTheMaster() throws {
        var rng = SeededGenerator()
        let master = try SymmetricKey(bytes: rng.bytes(count: 32))

        XCTAssertFalse(KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 0).constantTimeEquals(master), rng.describe)
    }
}
