import Foundation
import GroupVaultTestKit
import SealedStorage
import XCTest

/// The one JSON string writer (GroupMessaging's channel bodies, GroupSync's state) against
/// Foundation's `JSONEncoder`, byte for byte, in both of its slash settings.
final class JSONStringWriterTests: XCTestCase {
    private static let everySlashSetting: [(JSONStringWriter.Slashes, JSONEncoder.OutputFormatting)] = [
        (.escaped, []), (.unescaped, .withoutEscapingSlashes),
    ]

    /// Fails with both renderings (and `context`, e.g. the seed) unless the writer's bytes are
    /// `JSONEncoder`'s for `text` in each slash setting.
    private func assertWrittenAsJSONEncoderWrites(_ text: String, _ context: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) throws {
        for (slashes, formatting) in Self.everySlashSetting {
            var ours: [UInt8] = []
            JSONStringWriter.write(text, slashes: slashes, to: &ours)
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            let foundation = Array(try encoder.encode(text))
            if ours != foundation {
                XCTFail("\(context()) slashes \(slashes): ours \(String(decoding: ours, as: UTF8.self).debugDescription), JSONEncoder \(String(decoding: foundation, as: UTF8.self).debugDescription)", file: file, line: line)
            }
        }
    }

    private static func scalar(_ value: UInt32) -> Unicode.Scalar { Unicode.Scalar(value)! }

    func testEveryControlCharacterAndDeleteIsWrittenAsJSONEncoderWritesIt() throws {
        for value in Array(0..<0x20) + [0x7F] as [UInt32] {
            try assertWrittenAsJSONEncoderWrites(String(Character(Self.scalar(value))), "U+\(String(value, radix: 16))")
        }
    }

    func testQuotationMarkReverseSolidusAndSolidusAreWrittenAsJSONEncoderWritesThem() throws {
        for text in ["\"", "\\", "/", "a/b\\c\"d", "//", "\\/"] {
            try assertWrittenAsJSONEncoderWrites(text, text.debugDescription)
        }
    }

    func testTheShortEscapesAreTheOnesJSONEncoderUses() {
        var written: [UInt8] = []
        JSONStringWriter.write("\u{8}\u{C}\n\r\t\u{0}\u{1F}/", slashes: .escaped, to: &written)
        XCTAssertEqual(String(decoding: written, as: UTF8.self), #""\b\f\n\r\t\u0000\u001f\/""#)
    }

    func testEveryEscapeIsFoundAtEveryOffsetOfAWord() throws {
        // The writer skips eight bytes at a time: an escape must be found at any offset in a word,
        // in a run's tail shorter than a word, and next to another escape.
        let specials = (0..<0x20).map(Self.scalar) + ["\"", "\\", "/", "\u{7F}"]
        for special in specials {
            for position in 0..<17 {
                var scalars = Array(String(repeating: "a", count: 17).unicodeScalars)
                scalars[position] = special
                if position + 1 < scalars.count { scalars[position + 1] = special }
                var text = String.UnicodeScalarView()
                text.append(contentsOf: scalars)
                try assertWrittenAsJSONEncoderWrites(String(text), "U+\(String(special.value, radix: 16)) at \(position)")
            }
        }
    }

    func testNonASCIIAndAstralCharactersAreWrittenAsJSONEncoderWritesThem() throws {
        for text in ["é", "€", "\u{80}", "\u{9B}", "\u{FEFF}", "\u{2028}\u{2029}", "\u{FFFF}", "😀", "\u{10FFFF}", "e\u{301}", "🇫🇷👩‍👩‍👧", "aé😀b€c"] {
            try assertWrittenAsJSONEncoderWrites(text, text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
    }

    func testAStringIsAppendedAfterWhatTheOutputHeld() {
        var written = Array(#"{"a":"#.utf8)
        JSONStringWriter.write("x\"y\u{1}", slashes: .unescaped, to: &written)
        JSONStringWriter.write("plain", slashes: .unescaped, to: &written)
        XCTAssertEqual(String(decoding: written, as: UTF8.self), #"{"a":"x\"y\u0001""plain""#)
    }

    func testTheEmptyStringIsTwoQuotationMarks() throws {
        try assertWrittenAsJSONEncoderWrites("")
    }

    func testSeededRandomStringsAreWrittenAsJSONEncoderWritesThem() throws {
        var random = SeededGenerator()
        // Every character that is escaped, ASCII that is not, and scalars of every UTF-8 length.
        let alphabet = (0..<0x20).map(Self.scalar)
            + ["\"", "\\", "/", "a", "Z", "0", " ", "~", "\u{7F}", "\u{80}", "é", "\u{7FF}", "\u{800}", "€", "\u{2028}", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}"]
        for round in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...64, using: &random) {
                // Mostly plain runs, so that the eight-byte skip is exercised between escapes.
                text.append(Bool.random(using: &random) ? "a" : alphabet.randomElement(using: &random)!)
            }
            try assertWrittenAsJSONEncoderWrites(String(text), "round \(round), \(random.describe)")
        }
    }
}
