import Foundation
import GroupSyncCore
import GroupVaultTestKit
import XCTest

/// A synced entry's payload (docs/SYNC.md, section 5): GroupSync writes it as `JSONEncoder`
/// would and reads its own bytes without `JSONDecoder`, and every payload, GroupSync's or
/// another writer's, reads as `JSONDecoder` reads it.
final class SyncPayloadTests: XCTestCase {
    /// What GroupSync seals.
    private func written(_ payload: SyncPayload) throws -> [UInt8] { payload.encoded() }

    /// What `JSONEncoder` with sorted keys writes, which GroupSync's writer must match.
    private func jsonEncoderBytes(_ payload: SyncPayload) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(payload))
    }

    private func assertReadAsJSONDecoderReads(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let expected = try? JSONDecoder().decode(SyncPayload.self, from: Data(bytes))
        XCTAssertEqual(try? SyncPayload.decode(bytes), expected, String(decoding: bytes, as: UTF8.self), file: file, line: line)
    }

    /// Values whose base64 holds `/` and `+` and every padding, keys with `/` and non-ASCII.
    private let payloads: [SyncPayload] = [
        SyncPayload(key: "token", value: Data("a value".utf8)),
        SyncPayload(key: "a/b é 🔑", value: Data([0xff, 0xfe, 0xfd, 0xfc, 0xfb])),
        SyncPayload(key: "k", value: Data((0..<256).map { UInt8($0) })),
        SyncPayload(key: "empty", value: Data()),
        SyncPayload(key: "removed", value: nil),
        SyncPayload(key: "", value: Data([1])),
    ]

    func testGroupSyncsWriterWritesWhatJSONEncoderWrites() throws {
        for payload in payloads {
            XCTAssertEqual(payload.encoded(), try jsonEncoderBytes(payload), payload.key)
        }
    }

    func testSeededRandomPayloadsAreWrittenAsJSONEncoderWritesThem() throws {
        var random = SeededGenerator()
        let alphabet: [Unicode.Scalar] = ["\"", "\\", "/", "\n", "\u{1}", "\u{1F}", "a", " ", "\u{7F}", "é", "€", "😀"]
        for round in 0..<500 {
            var key = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...24, using: &random) { key.append(alphabet.randomElement(using: &random)!) }
            let value = Bool.random(using: &random) ? nil : Data(random.bytes(count: Int.random(in: 0...200, using: &random)))
            let payload = SyncPayload(key: String(key), value: value)
            XCTAssertEqual(payload.encoded(), try jsonEncoderBytes(payload), "round \(round), \(random.describe)")
        }
    }

    func testSeededRandomPayloadsReadBackAsJSONDecoderReadsThem() throws {
        var random = SeededGenerator()
        // ASCII keys take the reader's path without a UTF-8 check; `/` and the rest take the other.
        let alphabet: [Unicode.Scalar] = ["/", "a", "Z", "0", " ", "~", "\u{7F}", "é", "€", "😀"]
        for round in 0..<500 {
            var key = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...24, using: &random) { key.append(alphabet.randomElement(using: &random)!) }
            let value = Bool.random(using: &random) ? nil : Data(random.bytes(count: Int.random(in: 0...200, using: &random)))
            let payload = SyncPayload(key: String(key), value: value)
            let bytes = try written(payload)
            XCTAssertEqual(SyncPayload.canonical(bytes), payload, "round \(round), \(random.describe)")
            XCTAssertEqual(try SyncPayload.decode(bytes), try JSONDecoder().decode(SyncPayload.self, from: Data(bytes)), "round \(round), \(random.describe)")
        }
    }

    func testGroupSyncsOwnPayloadsAreReadWithoutJSONDecoder() throws {
        for payload in payloads {
            XCTAssertEqual(SyncPayload.canonical(try written(payload)), payload)
        }
    }

    func testGroupSyncsOwnPayloadsReadAsJSONDecoderReadsThem() throws {
        for payload in payloads { assertReadAsJSONDecoderReads(try written(payload)) }
    }

    func testAKeyWithEscapesIsLeftToJSONDecoderAndReadTheSame() throws {
        let bytes = try written(SyncPayload(key: "line\nbreak \"quoted\" back\\slash", value: Data([1, 2])))
        XCTAssertNil(SyncPayload.canonical(bytes))
        assertReadAsJSONDecoderReads(bytes)
    }

    func testAnotherWritersSpacingAndOrderReadAsJSONDecoderReadsThem() {
        for text in [
            #"{"key": "k", "value": "AQI="}"#,
            #"{"value":"AQI=","key":"k"}"#,
            #"{"key":"k","value":"AQI="} "#,
            #"{"key":"k","value":null}"#,
            #"{"key":"k","value":"AQI=","extra":1}"#,
            #"{"key":"k\u00e9","value":"AQI="}"#,
            #"{"key":"k","value":"AQ\u0049="}"#,
            "\u{FEFF}" + #"{"key":"k","value":"AQI="}"#,
        ] {
            assertReadAsJSONDecoderReads(Array(text.utf8))
        }
    }

    /// docs/SYNC.md, section 5, "The payload as read": what another writer may send.
    func testAByteOrderMarkAndANullValueAreRead() throws {
        XCTAssertEqual(try SyncPayload.decode(Array("\u{FEFF}".utf8) + Array(#"{"key":"k","value":"AQI="}"#.utf8)), SyncPayload(key: "k", value: Data([1, 2])))
        XCTAssertEqual(try SyncPayload.decode(Array(#"{"key":"k","value":null}"#.utf8)), SyncPayload(key: "k", value: nil))
    }

    /// `JSONDecoder` reads the first of two `key` members, Python's `json` the last: refused, so
    /// that no two readers read one payload as two entries.
    func testAPayloadThatGivesAMemberTwiceIsRefusedThoughJSONDecoderReadsIt() {
        for text in [#"{"key":"k","key":"j","value":"AQI="}"#, #"{"key":"k","value":"AQI=","value":"AQID"}"#, #"{"key":"k","k\u0065y":"j"}"#] {
            XCTAssertNotNil(try? JSONDecoder().decode(SyncPayload.self, from: Data(text.utf8)), text)
            XCTAssertThrowsError(try SyncPayload.decode(Array(text.utf8)), text)
        }
    }

    func testPayloadsThatAreNotOneAreRefusedAsJSONDecoderRefusesThem() {
        for text in [
            #"{"key":"k","value":"not base64!"}"#,
            #"{"key":"k","value":"AQI"}"#,
            #"{"key":"k","value":"AQI=\"}"#,
            #"{"key":"k""#,
            #"{"key":"k","value":""#,
            #"{"key":"k"}}"#,
            "",
        ] {
            XCTAssertThrowsError(try SyncPayload.decode(Array(text.utf8)), text)
            assertReadAsJSONDecoderReads(Array(text.utf8))
        }
        let invalidUTF8 = Array(#"{"key":""#.utf8) + [0xff] + Array(#"","value":"AQI="}"#.utf8)
        XCTAssertThrowsError(try SyncPayload.decode(invalidUTF8))
    }
}
