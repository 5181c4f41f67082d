import Foundation
import GroupVaultTestKit
// @testable for ItemRowBinary, the store's internal body of item rows.
@testable import Keyring
import SealedStorage
import XCTest

/// The binary body of an item row (docs/STORAGE.md, "Items"): every item without key or
/// certificate attributes reads back exactly as written, and anything else a body could hold
/// is no item, never a different one.
final class ItemRowBinaryTests: XCTestCase {
    private func body(_ item: KeychainItem) throws -> [UInt8] {
        try XCTUnwrap(ItemRowBinary.body(of: item))
    }

    /// A body of one field after the required ones, for the strictness tests.
    private func body(appending field: [UInt8]) throws -> [UInt8] {
        try body(KeychainItem(service: "api", secret: Data([1]))) + field
    }

    /// A field as the layout frames it: tag, four-byte big-endian length, value.
    private func field(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        var bytes = [tag]
        bytes.appendLengthPrefixed(value)
        return bytes
    }

    /// A random item without key or certificate attributes: what the binary body holds.
    private func randomPassword(using rng: inout SeededGenerator) -> KeychainItem {
        var item = RandomKeychainItems.item(using: &rng)
        item.key = nil
        item.certificate = nil
        return item
    }

    func testEveryRandomItemReadsBackExactlyAsWritten() throws {
        var rng = SeededGenerator()
        for round in 0..<2_000 {
            let item = randomPassword(using: &rng)
            let read = ItemRowBinary.item(from: try body(item))
            // Dates too, to the bit: the body holds the Double itself.
            XCTAssertEqual(read, item, "round \(round); \(rng.describe)")
            if read != item { return }
        }
    }

    func testTheLayoutIsMarkerVersionThenTaggedLengthPrefixedFieldsInOrder() throws {
        var item = KeychainItem(service: "api", account: "me", secret: Data([0xAB]), isSynchronizable: true, accessibility: .afterFirstUnlock, accessControl: AccessControlFlags(rawValue: 2))
        item.port = -1
        item.creator = .number(0x6143_7274)

        var expected: [UInt8] = [0x00, 0x01]
        expected += field(1, Array("genp".utf8))
        expected += field(2, Array("api".utf8))
        expected += field(3, Array("me".utf8))
        expected += field(10, [1])
        expected += field(11, Array("ck".utf8))
        expected += field(12, [0, 0, 0, 0, 0, 0, 0, 2])
        expected += field(15, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        expected += field(22, [0xAB])
        expected += field(23, [0x61, 0x43, 0x72, 0x74])

        XCTAssertEqual(try body(item), expected)
    }

    // MARK: The row's own group

    private let rowGroup = GroupIdentifier(rawValue: "group.com.example.a")!

    func testABodyNamingItsRowsGroupReadsAsThatGroup() throws {
        let item = KeychainItem(service: "api", accessGroup: rowGroup, secret: Data([1]))

        XCTAssertEqual(ItemRowBinary.item(from: try body(item), rowGroup: rowGroup), item)
    }

    func testABodyNamingAnotherGroupThanItsRowsReadsAsThatOtherGroup() throws {
        let other = try XCTUnwrap(GroupIdentifier(rawValue: "group.com.example.b"))
        let item = KeychainItem(service: "api", accessGroup: other, secret: Data([1]))

        XCTAssertEqual(ItemRowBinary.item(from: try body(item), rowGroup: rowGroup)?.accessGroup, other)
    }

    func testAGroupNameThatIsNoGroupIdentifierIsNoItemWhateverTheRowsGroup() throws {
        let written = try body(KeychainItem(service: "api", accessGroup: rowGroup, secret: Data([1])))
        let name = Array(rowGroup.rawValue.utf8)
        let start = try XCTUnwrap(written.indices.first { Array(written[$0...].prefix(name.count)) == name })
        var damaged = written
        damaged.replaceSubrange(start..<(start + name.count), with: Array("group com example a".utf8))

        XCTAssertNil(ItemRowBinary.item(from: damaged, rowGroup: rowGroup))
        XCTAssertNil(ItemRowBinary.item(from: damaged))
    }

    func testADateIsTheBigEndianBitsOfItsSecondsSince1970() throws {
        var item = KeychainItem(secret: Data(), accessibility: .afterFirstUnlock)
        item.creationDate = Date(timeIntervalSince1970: 1.5)

        var expected: [UInt8] = [0x00, 0x01]
        expected += field(1, Array("genp".utf8))
        expected += field(10, [0])
        expected += field(11, Array("ck".utf8))
        expected += field(12, [0, 0, 0, 0, 0, 0, 0, 0])
        expected += field(19, [0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        expected += field(22, [])
        XCTAssertEqual(try body(item), expected)
    }

    func testAnItemWithKeyOrCertificateAttributesHasNoBinaryBody() {
        var key = KeychainItem(.key, secret: Data([1]))
        key.key = KeyAttributes(keyClass: .private, keyType: "73", sizeInBits: 256, applicationLabel: Data([2]))
        var certificate = KeychainItem(.certificate, secret: Data([1]))
        certificate.certificate = CertificateAttributes(subject: Data([6]), issuer: Data([4]), serialNumber: Data([5]), publicKeyHash: Data([7]))

        XCTAssertNil(ItemRowBinary.body(of: key))
        XCTAssertNil(ItemRowBinary.body(of: certificate))
    }

    // MARK: Strictness

    func testAnUnknownTagIsNoItem() throws {
        XCTAssertNil(ItemRowBinary.item(from: try body(appending: field(200, []))))
    }

    func testATagRepeatedOrOutOfOrderIsNoItem() throws {
        let written = try body(KeychainItem(service: "api", secret: Data([1])))
        XCTAssertNil(ItemRowBinary.item(from: written + field(22, [2])), "secret twice")
        XCTAssertNil(ItemRowBinary.item(from: written + field(2, Array("other".utf8))), "service after secret")
    }

    func testALengthPastTheEndOrAFieldCutShortIsNoItem() throws {
        let written = try body(KeychainItem(service: "api", secret: Data([1])))
        XCTAssertNil(ItemRowBinary.item(from: written + [23, 0, 0, 0, 4, 1, 2]), "length past the end")
        XCTAssertNil(ItemRowBinary.item(from: written + [23, 0, 0]), "length cut short")
        XCTAssertNil(ItemRowBinary.item(from: Array(written.dropLast())), "secret cut short")
    }

    func testAFixedSizeFieldOfAnotherSizeIsNoItem() throws {
        XCTAssertNil(ItemRowBinary.item(from: try body(appending: field(23, [1, 2, 3]))), "a three-byte creator")
        var item = KeychainItem(secret: Data())
        item.port = 1
        var written = try body(item)
        let port = try XCTUnwrap(written.firstIndex(of: 15))
        written[port + 4] = 4
        XCTAssertNil(ItemRowBinary.item(from: written), "a port of four bytes")
    }

    func testABooleanOtherThanZeroOrOneIsNoItem() throws {
        XCTAssertNil(ItemRowBinary.item(from: try body(appending: field(27, [2]))))
    }

    func testTextThatIsNotUTF8IsNoItem() throws {
        var written = try body(KeychainItem(service: "api", secret: Data([1])))
        let service = try XCTUnwrap(written.firstIndex(of: UInt8(ascii: "a")))
        written[service] = 0xC3
        XCTAssertNil(ItemRowBinary.item(from: written))
    }

    func testEveryClassAndAccessibilityReadsBackAsItself() throws {
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            for accessibility in Accessibility.allCases {
                var item = KeychainItem(itemClass, secret: Data([1]))
                item.accessibility = accessibility
                XCTAssertEqual(ItemRowBinary.item(from: try body(item)), item, "\(itemClass) \(accessibility)")
            }
        }
    }

    /// Classes and accessibilities are read by their bytes, not through a `String`: bytes that
    /// spell no case exactly (another letter, another case, a NUL for a letter) are no item.
    func testAClassOrAccessibilityThatSpellsNoCaseExactlyIsNoItem() throws {
        let written = try body(KeychainItem(service: "api", secret: Data([1]), accessibility: .afterFirstUnlockThisDeviceOnly))
        for (from, to) in [("genp", "genq"), ("genp", "GENP"), ("cku", "ckv"), ("cku", "CKU"), ("cku", "ck\u{0}")] {
            let spelled = Array(from.utf8)
            let start = try XCTUnwrap(written.indices.first { written[$0...].starts(with: spelled) }, from)
            var altered = written
            altered.replaceSubrange(start..<start + spelled.count, with: Array(to.utf8))
            XCTAssertNil(ItemRowBinary.item(from: altered), "\(from) spelled \(to)")
        }
    }

    func testAMissingRequiredFieldIsNoItem() throws {
        let written = try body(KeychainItem(service: "api", secret: Data([1])))
        let secret = try XCTUnwrap(written.lastIndex(of: 22))
        XCTAssertNil(ItemRowBinary.item(from: Array(written[..<secret])))
    }

    func testAnotherMarkerOrVersionIsNoItem() throws {
        var written = try body(KeychainItem(secret: Data([1])))
        XCTAssertNotNil(ItemRowBinary.item(from: written))
        written[1] = 2
        XCTAssertNil(ItemRowBinary.item(from: written), "version 2")
        XCTAssertNil(ItemRowBinary.item(from: [0x00]), "marker alone")
        XCTAssertNil(ItemRowBinary.item(from: Array("{}".utf8)), "JSON")
    }

    func testSeededMutationsOfBodiesAreNoItemOrAnItemThatWritesBackAsItself() throws {
        var rng = SeededGenerator()
        for round in 0..<2_000 {
            let item = randomPassword(using: &rng)
            var mutated = try body(item)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: mutated[Int.random(in: 0..<mutated.count, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            case 1: mutated.removeLast(Int.random(in: 1...mutated.count, using: &rng))
            default: mutated.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...mutated.count, using: &rng))
            }
            guard let read = ItemRowBinary.item(from: mutated) else { continue }
            let again = ItemRowBinary.item(from: try body(read))
            XCTAssertEqual(again, read, "round \(round); \(rng.describe)")
            if again != read { return }
        }
    }
}
