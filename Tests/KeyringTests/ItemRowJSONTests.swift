import Foundation
import GroupVaultTestKit
// @testable for ItemRowJSON, the store's internal reader of item rows.
@testable import Keyring
import XCTest

/// ItemRowJSON, the fast reader and writer of item rows, is only a faster path to what
/// JSONDecoder reads and JSONEncoder writes: for whatever the store's encoder writes it returns
/// the same item, for anything outside its flat shape it returns `nil` (the store then asks
/// JSONDecoder), never a different reading; and it writes exactly JSONEncoder's bytes.
final class ItemRowJSONTests: XCTestCase {
    /// The row plaintext of the reference format (ItemTable's JSONEncoder settings).
    private func encoded(_ item: KeychainItem) throws -> [UInt8] {
        try ItemTable.encodedByJSONEncoder(item)
    }

    private func decoded(_ json: [UInt8]) -> KeychainItem? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(KeychainItem.self, from: Data(json))
    }

    /// Text that needs every kind of JSON escape: quotes, backslashes, slashes, control
    /// characters, non-ASCII and characters outside the Basic Multilingual Plane.
    private static let awkwardText = ["", "plain", "a\"b\\c/d", "tab\there\nnew\r\u{8}\u{c}\u{1}\u{1f}", "é€𝄞😀", "https://example.com/a?b=c", " spaced "]

    private func randomText(using rng: inout SeededGenerator) -> String? {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return nil
        case 1: return Self.awkwardText.randomElement(using: &rng)
        default:
            let scalars = (0..<Int.random(in: 0..<12, using: &rng)).map { _ -> Character in
                let value = [UInt32.random(in: 0...0x7F, using: &rng), UInt32.random(in: 0x80...0xD7FF, using: &rng), UInt32.random(in: 0x10000...0x10FFFF, using: &rng)].randomElement(using: &rng)!
                return Character(Unicode.Scalar(value)!)
            }
            return String(scalars)
        }
    }

    private func randomData(using rng: inout SeededGenerator) -> Data? {
        Bool.random(using: &rng) ? nil : Data(rng.bytes(count: Int.random(in: 0..<40, using: &rng)))
    }

    private func randomItem(using rng: inout SeededGenerator) -> KeychainItem {
        var item = KeychainItem(
            ItemClass.allCases.randomElement(using: &rng)!,
            service: randomText(using: &rng), account: randomText(using: &rng),
            accessGroup: Bool.random(using: &rng) ? GroupIdentifier(rawValue: "ABCDE12345.com.example.shared") : nil,
            secret: Data(rng.bytes(count: Int.random(in: 0..<64, using: &rng))),
            label: randomText(using: &rng), itemDescription: randomText(using: &rng), comment: randomText(using: &rng),
            generic: randomData(using: &rng), isSynchronizable: Bool.random(using: &rng),
            accessibility: Accessibility.allCases.randomElement(using: &rng)!,
            accessControl: AccessControlFlags(rawValue: UInt.random(in: 0...UInt(UInt32.max), using: &rng)),
            server: randomText(using: &rng), protocol: randomText(using: &rng),
            port: Bool.random(using: &rng) ? nil : Int.random(in: -70_000...70_000, using: &rng),
            path: randomText(using: &rng), authenticationType: randomText(using: &rng), securityDomain: randomText(using: &rng))
        item.accountEncoding = [nil, .text, .data].randomElement(using: &rng)!
        if Bool.random(using: &rng) {
            // As Keyring.currentTime() makes them, and arbitrary ones.
            item.creationDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
            item.modificationDate = Date(timeIntervalSince1970: Double.random(in: -1e10...1e10, using: &rng))
        }
        item.persistentReference = randomData(using: &rng)
        return item
    }

    func testReadsWhatTheStoreWritesAsJSONDecoderDoes() throws {
        var rng = SeededGenerator()
        for round in 0..<2_000 {
            let item = randomItem(using: &rng)
            let json = try encoded(item)
            let read = ItemRowJSON.item(from: json)
            XCTAssertNotNil(read, "round \(round): the store's own encoding was not read; \(rng.describe)")
            // Compared with JSONDecoder's reading, not with `item`: an arbitrary Date may lose
            // its last bit on the way to seconds since 1970, for both readers alike.
            let expected = decoded(json)
            XCTAssertNotNil(expected, "round \(round); \(rng.describe)")
            XCTAssertEqual(read, expected, "round \(round); \(rng.describe)")
            if read == nil || read != expected { return }
        }
    }

    // MARK: Writing

    func testWritesWhatJSONEncoderWrites() throws {
        var rng = SeededGenerator()
        for round in 0..<2_000 {
            var item = randomItem(using: &rng)
            item.key = nil
            item.certificate = nil
            let written = try XCTUnwrap(ItemRowJSON.json(of: item), "round \(round); \(rng.describe)")
            let expected = try encoded(item)
            XCTAssertEqual(String(decoding: written, as: UTF8.self), String(decoding: expected, as: UTF8.self), "round \(round); \(rng.describe)")
            if written != expected { return }
        }
    }

    func testWritesAnItemWithEveryFlatAttributeAsJSONEncoderDoes() throws {
        var item = KeychainItem(
            .internetPassword, service: "a\"b\\c/d", account: "tab\there\u{1}", accessGroup: GroupIdentifier(rawValue: "group.com.example"),
            secret: Data([0xFB, 0xFF, 0xBF]), label: "é€𝄞😀", itemDescription: "d", comment: "c", generic: Data([0xFF, 0xEF]),
            isSynchronizable: true, accessibility: .afterFirstUnlock, accessControl: AccessControlFlags(rawValue: 0x4000_0001),
            server: "example.com", protocol: "htps", port: 443, path: "/a/b", authenticationType: "dflt", securityDomain: "realm")
        item.accountEncoding = .data
        item.creationDate = Date(timeIntervalSince1970: 1_764_301_234.5)
        item.modificationDate = Date(timeIntervalSince1970: 1_764_301_235)
        item.persistentReference = Data(repeating: 0xFF, count: 20)
        item.creator = .number(0x6143_7274)
        item.type = .text("note")
        item.isInvisible = true
        item.isNegative = false

        XCTAssertEqual(ItemRowJSON.json(of: item).map { String(decoding: $0, as: UTF8.self) }, String(decoding: try encoded(item), as: UTF8.self))
    }

    func testLeavesAnItemWithNestedAttributesToJSONEncoder() {
        var item = KeychainItem(.key, secret: Data([1]))
        item.key = KeyAttributes(keyClass: .private, keyType: "73", sizeInBits: 256, applicationLabel: Data([2]))

        XCTAssertNil(ItemRowJSON.json(of: item))
    }

    // MARK: Reading escapes and other shapes

    func testEscapedTextReadsAsJSONDecoderReadsIt() throws {
        let json = Array(#"{"accessControl":0,"accessibility":"ck","isSynchronizable":false,"itemClass":"genp","secret":"","service":"a\u00e9\ud834\udd1e\"\\\/\b\f\n\r\t"}"#.utf8)
        XCTAssertEqual(ItemRowJSON.item(from: json), decoded(json))
        XCTAssertEqual(ItemRowJSON.item(from: json)?.service, "aé𝄞\"\\/\u{8}\u{c}\n\r\t")
    }

    func testBase64ReadsAsJSONDecoderReadsItWithEscapesAndNonCanonicalPadding() throws {
        let head = #"{"accessControl":0,"accessibility":"ck","isSynchronizable":false,"itemClass":"genp","#
        // `\/` as JSONEncoder writes every slash; another escape; bits after the last byte,
        // which a strict decoder would refuse; escaped slashes in the other two data fields.
        for values in [#""secret":"\/\/8A""#, #""secret":"\u0041QID""#, #""secret":"QR==""#, #""generic":"a\/==","secret":"""#, #""persistentReference":"\/w==","secret":"AA==""#] {
            let json = Array((head + values + "}").utf8)
            let expected = try XCTUnwrap(decoded(json), values)
            XCTAssertEqual(ItemRowJSON.item(from: json), expected, values)
        }
    }

    func testEscapedKeyIsLeftToJSONDecoder() {
        let json = Array(#"{"accessControl":0,"accessibility":"ck","isSynchronizable":false,"itemClass":"genp","secret":"","\u0073ervice":"a"}"#.utf8)
        XCTAssertNotNil(decoded(json))
        XCTAssertNil(ItemRowJSON.item(from: json))
    }

    func testLeavesEveryOtherShapeToJSONDecoder() {
        let base = #""accessControl":0,"accessibility":"ck","isSynchronizable":false,"itemClass":"genp","secret":"""#
        let outside = [
            "{\(base),\"unknown\":1}",  // a key the item does not have (JSONDecoder ignores it)
            "{\(base),\"service\":\"a\",\"service\":\"b\"}",  // a key given twice
            "{\(base),\"generic\":[1]}",  // a nested value
            "{\(base),\"port\":+1}", "{\(base),\"port\":01}", "{\(base),\"port\":1e2}", "{\(base),\"port\":1.}",  // numbers outside JSON or Int
            "{\(base),\"service\":\"\\x\"}", "{\(base),\"service\":\"\\ud834\"}",  // a bad escape, an unpaired surrogate
            "{\(base),\"service\":\"tab\there\"}",  // a raw control character
            "{\"accessControl\":0,\"accessibility\":\"ck\",\"isSynchronizable\":false,\"itemClass\":\"genp\"}",  // no secret
            "{\(base),\"accessGroup\":\"not a group\"}", "{\(base),\"itemClass\":\"keys\"}",  // invalid values
            "{\(base)} trailing", "{\(base)",  // not one whole object
        ]
        for text in outside {
            XCTAssertNil(ItemRowJSON.item(from: Array(text.utf8)), text)
        }
        var invalidUTF8 = Array("{\(base),\"service\":\"".utf8)
        invalidUTF8 += [0xC3, 0x28] + Array("\"}".utf8)
        XCTAssertNil(ItemRowJSON.item(from: invalidUTF8))
    }
}
