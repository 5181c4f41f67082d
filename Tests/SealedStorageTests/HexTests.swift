import GroupVaultTestKit
import SealedStorage
import XCTest

/// `Hex`, the lowercase hexadecimal of digests, names and random file names, against the
/// tests' own spelling (`Hexadecimal`).
final class HexTests: XCTestCase {
    func testBytesInMemoryAreAppendedAsTheirLowercaseDigitsAfterWhatIsThere() {
        var random = SeededGenerator()
        for count in [0, 1, 16, 32, 33] {
            let bytes = random.bytes(count: count)
            var characters = Array("prefix ".utf8)

            bytes.withUnsafeBytes { Hex.appendLowercase($0, to: &characters) }

            XCTAssertEqual(String(decoding: characters, as: UTF8.self), "prefix " + Hexadecimal.string(bytes), "\(count) bytes, \(random.describe)")
        }
    }

    func testEveryByteValueIsSpeltAsTheOtherWritersSpellIt() {
        let bytes = (0...255).map(UInt8.init)
        var characters: [UInt8] = []

        bytes.withUnsafeBytes { Hex.appendLowercase($0, to: &characters) }

        XCTAssertEqual(String(decoding: characters, as: UTF8.self), Hex.lowercase(bytes))
        XCTAssertEqual(String(decoding: characters, as: UTF8.self), Hexadecimal.string(bytes))
    }

    func testAPrefixAndTheLowercaseDigitsAreOneStringInThatOrder() {
        var random = SeededGenerator()
        for count in [0, 1, 16, 32, 33] {
            let bytes = random.bytes(count: count)

            XCTAssertEqual(Hex.lowercase(bytes, after: "gs-"), "gs-" + Hexadecimal.string(bytes), "\(count) bytes, \(random.describe)")
            XCTAssertEqual(Hex.lowercase(bytes, after: ""), Hexadecimal.string(bytes), "\(count) bytes, \(random.describe)")
        }
    }
}
