import Foundation
import GroupVaultTestKit
// @testable for ItemRowJSON, the store's internal reader of item rows.
@testable import Keyring
import XCTest

/// ItemRowJSON, the fast reader of item rows with a JSON body (every row before the binary body,
/// and the rows of keys and certificates), is only a faster path to what JSONDecoder reads: for
/// whatever the store's encoder writes it returns the same item, for anything outside its flat
/// shape it returns `nil` (the store then asks JSONDecoder), never a different reading.
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

    func testReadsWhatTheStoreWritesAsJSONDecoderDoes() throws {
        var rng = SeededGenerator()
        for round in 0..<2_000 {
            let item = RandomKeychainItems.item(using: &rng)
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
