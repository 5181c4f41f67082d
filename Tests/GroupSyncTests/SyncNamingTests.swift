import GroupSyncCore
import Keyring
import SealedStorage
import XCTest

/// An entry's keyed name (docs/SYNC.md, "Names the server sees"): the check every opened entry
/// gets, ``SyncNaming/isName(_:space:key:)``, agrees with the name ``SyncNaming/name(space:key:)``
/// computes, for every key, and accepts nothing else.
final class SyncNamingTests: XCTestCase {
    private let firstKey = SymmetricKey()
    private var naming: SyncNaming { SyncNaming(group: GroupIdentifier(rawValue: "group.com.example.naming")!, firstKey: firstKey) }
    private var space: [UInt8] { naming.space(store: "store") }
    /// Empty, ASCII, `/`, non-ASCII, and longer than any stack of a few words.
    private let keys = ["", "token", "a/b", "clé 🔑", String(repeating: "long key ", count: 200)]

    func testANameIsTheKeyedHashOfItsFramedMessageAsDocumented() {
        // docs/SYNC.md: BLAKE2b-256(namingKey, u64 4 ‖ "name" ‖ u64 32 ‖ space ‖ u64 len ‖ key),
        // namingKey the subkey 1 of key #1 in context "GVSYNC01"; lengths big-endian.
        let namingKey = KeyDerivation.deriveKey(from: firstKey, context: "GVSYNC01", id: 1)
        func framed(_ part: [UInt8]) -> [UInt8] { withUnsafeBytes(of: UInt64(part.count).bigEndian, Array.init) + part }
        for key in keys {
            let message = framed(Array("name".utf8)) + framed(space) + framed(Array(key.utf8))
            XCTAssertEqual(naming.name(space: space, key: key), Digest.keyedBLAKE2b256(message, key: namingKey), key)
        }
    }

    func testTheCheckAcceptsTheNameOfEachKey() {
        for key in keys {
            XCTAssertTrue(naming.isName(naming.name(space: space, key: key), space: space, key: key), key)
        }
    }

    func testTheCheckRefusesTheNameOfAnotherKey() {
        for key in keys {
            XCTAssertFalse(naming.isName(naming.name(space: space, key: key + "x"), space: space, key: key), key)
        }
    }

    func testTheCheckRefusesTheSameKeysNameInAnotherSpace() {
        let other = naming.space(store: "other store")
        XCTAssertFalse(naming.isName(naming.name(space: other, key: "token"), space: space, key: "token"))
    }

    func testTheCheckRefusesANameDifferingInItsLastByte() {
        var name = naming.name(space: space, key: "token")
        name[31] ^= 1
        XCTAssertFalse(naming.isName(name, space: space, key: "token"))
    }

    func testTheCheckRefusesANameThatIsNot32Bytes() {
        let name = naming.name(space: space, key: "token")
        XCTAssertFalse(naming.isName(Array(name.prefix(31)), space: space, key: "token"))
        XCTAssertFalse(naming.isName(name + [0], space: space, key: "token"))
        XCTAssertFalse(naming.isName([], space: space, key: "token"))
    }
}
