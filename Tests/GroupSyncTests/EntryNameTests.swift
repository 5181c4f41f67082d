import Foundation
@testable import GroupSync
import GroupVaultTestKit
import SealedStorage
import XCTest

/// Specification of the name the local state keys its entries by: the 32 bytes of an entry's
/// keyed name, spelt in lowercase hexadecimal in the state's files.
final class EntryNameTests: XCTestCase {
    func testANameIsSpeltInLowercaseHexadecimalAndReadBackFromIt() {
        var random = SeededGenerator()
        let bytes = random.bytes(count: 32)

        let name = EntryName(bytes)

        XCTAssertEqual(name?.bytes, bytes, random.describe)
        XCTAssertEqual(name?.hex, Hex.lowercase(bytes), random.describe)
        XCTAssertEqual(name.flatMap { EntryName(hex: $0.hex) }, name, random.describe)
    }

    func testANameIsWrittenAsTheBodyWritesItsHexadecimalString() {
        var random = SeededGenerator()
        let name = EntryName(random.bytes(count: 32))!
        var expected: [UInt8] = []
        expected.appendLengthPrefixed(name.hex)

        var written: [UInt8] = []
        name.appendLengthPrefixedHex(to: &written)

        XCTAssertEqual(written, expected, random.describe)
    }

    func testNamesOrderAsTheirHexadecimalSpellings() {
        var random = SeededGenerator()
        // Names that share leading bytes, so that every word of the name takes part in the order.
        let prefix = random.bytes(count: 20)
        let names = (0..<200).map { _ in
            let shared = Int.random(in: 0...20, using: &random)
            return EntryName(prefix.prefix(shared) + random.bytes(count: 32 - shared))!
        }

        XCTAssertEqual(names.sorted().map(\.hex), names.map(\.hex).sorted(), random.describe)
    }

    func testOnlyThirtyTwoBytesMakeAName() {
        XCTAssertNil(EntryName([UInt8](repeating: 1, count: 31)))
        XCTAssertNil(EntryName([UInt8](repeating: 1, count: 33)))
        XCTAssertNil(EntryName([UInt8]()))
    }

    func testOnlySixtyFourLowercaseHexadecimalDigitsSpellAName() {
        XCTAssertNotNil(EntryName(hex: String(repeating: "0f", count: 32)))
        XCTAssertNil(EntryName(hex: String(repeating: "0F", count: 32)))
        XCTAssertNil(EntryName(hex: String(repeating: "0f", count: 31)))
        XCTAssertNil(EntryName(hex: String(repeating: "0f", count: 31) + "0g"))
        XCTAssertNil(EntryName(hex: ""))
    }

    func testNamesOfTheSameBytesAreEqualAndHashAlike() {
        var random = SeededGenerator()
        let bytes = random.bytes(count: 32)
        var other = bytes
        other[31] ^= 1

        XCTAssertEqual(EntryName(bytes), EntryName(bytes[...]), random.describe)
        XCTAssertEqual(Set([EntryName(bytes)!, EntryName(Array(bytes))!]).count, 1, random.describe)
        XCTAssertNotEqual(EntryName(bytes), EntryName(other), random.describe)
    }

    func testVersion1JSONKeysTheEntriesByTheirHexadecimalNames() throws {
        let name = EntryName(hex: String(repeating: "ab", count: 32))!
        var state = ReplicaState()
        state.entries[name] = ReplicaState.Entry(seen: 4)

        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any]
        let entries = json?["entries"] as? [String: Any]

        XCTAssertEqual(entries.map { Array($0.keys) }, [name.hex])
        XCTAssertEqual(try JSONDecoder().decode(ReplicaState.self, from: JSONEncoder().encode(state)), state)
    }
}
