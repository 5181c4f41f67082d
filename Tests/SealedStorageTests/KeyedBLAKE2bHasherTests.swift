import GroupVaultTestKit
import SealedStorage
import XCTest

/// Specification: `KeyedBLAKE2bHasher` computes `Digest.keyedBLAKE2b256` of the concatenation of
/// what it was fed, however the bytes were split, for every message after a saved start.
final class KeyedBLAKE2bHasherTests: XCTestCase {
    private let key = try! SymmetricKey(bytes: (0..<32).map { UInt8($0) })

    func testAMessageFedInPartsHashesAsTheOneShotDigestOfItsBytes() {
        var generator = SeededGenerator()
        for _ in 0..<300 {
            // Lengths around BLAKE2b's 128-byte block, where a split decides what is compressed when.
            let message = generator.bytes(count: Int.random(in: 0...400, using: &generator))
            let hasher = KeyedBLAKE2bHasher(key: key)
            var offset = 0
            while offset < message.count {
                let end = min(message.count, offset + Int.random(in: 0...150, using: &generator))
                message[offset..<end].withUnsafeBytes { hasher.update($0) }
                offset = end
            }
            XCTAssertEqual(hasher.finishMessage(), Digest.keyedBLAKE2b256(message, key: key), "\(message.count) bytes, \(generator.describe)")
        }
    }

    func testEveryMessageAfterMarkStartBeginsWithTheBytesFedBeforeIt() {
        var generator = SeededGenerator()
        let start = generator.bytes(count: Int.random(in: 0...300, using: &generator))
        let hasher = KeyedBLAKE2bHasher(key: key)
        start.withUnsafeBytes { hasher.update($0) }
        hasher.markStart()
        for _ in 0..<50 {
            let rest = generator.bytes(count: Int.random(in: 0...300, using: &generator))
            rest.withUnsafeBytes { hasher.update($0) }
            XCTAssertEqual(hasher.finishMessage(), Digest.keyedBLAKE2b256(start + rest, key: key), "\(start.count) + \(rest.count) bytes, \(generator.describe)")
        }
    }

    func testWithoutMarkStartEachMessageIsHashedAlone() {
        let hasher = KeyedBLAKE2bHasher(key: key)
        hasher.update(lengthPrefixed: "first")
        _ = hasher.finishMessage()
        hasher.update(lengthPrefixed: "second")

        XCTAssertEqual(hasher.finishMessage(), Digest.keyedBLAKE2b256([0, 0, 0, 6] + Array("second".utf8), key: key))
    }

    func testLengthPrefixedFieldsAreFramedAsInAnArray() {
        var expected: [UInt8] = []
        expected.appendLengthPrefixed("café")
        expected.appendLengthPrefixed([1, 2, 3])
        expected.appendBigEndian(UInt64(0x0102_0304_0506_0708))
        expected.appendLengthPrefixed("")

        let hasher = KeyedBLAKE2bHasher(key: key)
        hasher.update(lengthPrefixed: "café")
        [UInt8]([1, 2, 3]).withUnsafeBytes { hasher.update(lengthPrefixed: $0) }
        hasher.update(bigEndian: UInt64(0x0102_0304_0506_0708))
        hasher.update(lengthPrefixed: "")

        XCTAssertEqual(hasher.finishMessage(), Digest.keyedBLAKE2b256(expected, key: key))
    }

    func testTheDigestDependsOnTheKey() throws {
        let other = KeyedBLAKE2bHasher(key: try SymmetricKey(bytes: [UInt8](repeating: 7, count: 32)))
        let hasher = KeyedBLAKE2bHasher(key: key)
        other.update(lengthPrefixed: "same")
        hasher.update(lengthPrefixed: "same")

        XCTAssertNotEqual(other.finishMessage(), hasher.finishMessage())
    }

    func testFinishingAgainstADigestTellsWhetherItIsTheMessagesAndGoesOnFromTheStart() {
        let hasher = KeyedBLAKE2bHasher(key: key)
        hasher.update(lengthPrefixed: "start")
        hasher.markStart()
        let start: [UInt8] = [0, 0, 0, 5] + Array("start".utf8)
        var wrong = Digest.keyedBLAKE2b256(start + [1], key: key)
        wrong[31] ^= 1

        [UInt8]([1]).withUnsafeBytes { hasher.update(lengthPrefixed: $0) }
        XCTAssertTrue(hasher.finishMessage(hasDigest: Digest.keyedBLAKE2b256(start + [0, 0, 0, 1, 1], key: key)[...]))
        hasher.update(bigEndian: UInt8(1))
        XCTAssertFalse(hasher.finishMessage(hasDigest: wrong[...]))
        hasher.update(bigEndian: UInt8(2))
        XCTAssertFalse(hasher.finishMessage(hasDigest: []))
        XCTAssertEqual(hasher.finishMessage(), Digest.keyedBLAKE2b256(start, key: key))
    }
}
