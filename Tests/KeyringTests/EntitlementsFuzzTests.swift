import Foundation
import GroupVaultTestKit
import XCTest

@testable import Keyring

/// Entitlements files are input: whatever bytes arrive, parsing gives either a valid identity
/// or a typed error, never a crash, a hang or an identity holding an invalid group.
final class EntitlementsFuzzTests: XCTestCase {
    private static let source = "fuzz.entitlements"

    /// Parses `data` and checks the outcome: a KeyringError (.invalidParameter naming the
    /// source) or an identity whose every identifier is valid and fully expanded.
    private func check(_ data: Data, teamID: String? = "ABCDE12345", bundleID: String? = "com.example.app", _ context: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let identity = try Identity(entitlements: data, source: Self.source, teamID: teamID, bundleID: bundleID)
            for group in identity.accessGroups + identity.applicationGroups {
                XCTAssertNotNil(GroupIdentifier(rawValue: group.rawValue), "invalid group \(group) accepted; \(context())", file: file, line: line)
                XCTAssertFalse(group.rawValue.contains("$"), "unexpanded variable in \(group); \(context())", file: file, line: line)
            }
            if let team = identity.teamID {
                XCTAssertTrue(GroupIdentifier.isValidTeamID(team), "invalid team id \(team) accepted; \(context())", file: file, line: line)
            }
        } catch {
            XCTAssertEqual(error.status, .invalidParameter, "\(error); \(context())", file: file, line: line)
            XCTAssertTrue(error.reason.contains(Self.source), "the reason must name the source: \(error.reason); \(context())", file: file, line: line)
        }
    }

    private var validXML: Data { IdentityFixtures.widgetEntitlements }

    private var validBinary: Data {
        get throws {
            let plist: [String: Any] = [
                "keychain-access-groups": ["$(AppIdentifierPrefix)com.example.shared"],
                "com.apple.security.application-groups": ["group.com.example", "ABCDE12345.com.example.macos"],
                "application-identifier": "ABCDE12345.com.example.app",
                "com.apple.developer.team-identifier": "ABCDE12345",
            ]
            return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        }
    }

    func testRandomBytesGiveAnIdentityOrATypedError() throws {
        var rng = SeededGenerator()
        let prefixes = [Data(), Data("bplist00".utf8), Data("<?xml version=\"1.0\"?><plist><dict>".utf8), Data("{".utf8)]
        for iteration in 0..<3000 {
            var data = prefixes[iteration % prefixes.count]
            data.append(contentsOf: rng.bytes(count: Int.random(in: 0...300, using: &rng)))
            check(data, "iteration \(iteration), \(rng.describe)")
        }
    }

    func testEveryTruncationOfAValidXMLPlistGivesAnIdentityOrATypedError() {
        let data = validXML
        for length in 0...data.count {
            check(data.prefix(length), "XML truncated to \(length) of \(data.count) bytes")
        }
    }

    func testEveryTruncationOfAValidBinaryPlistGivesAnIdentityOrATypedError() throws {
        let data = try validBinary
        for length in 0...data.count {
            check(data.prefix(length), "binary plist truncated to \(length) of \(data.count) bytes")
        }
    }

    func testBitFlipsInValidPlistsGiveAnIdentityOrATypedError() throws {
        var rng = SeededGenerator()
        let originals = [validXML, try validBinary]
        for iteration in 0..<3000 {
            var bytes = [UInt8](originals[iteration % 2])
            let flips = Int.random(in: 1...4, using: &rng)
            for _ in 0..<flips {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            }
            check(Data(bytes), "iteration \(iteration), \(flips) flips, \(rng.describe)")
        }
    }

    func testRandomStructuredPlistsWithWrongTypesAndGarbageGiveAnIdentityOrATypedError() throws {
        var rng = SeededGenerator()
        let keys = ["keychain-access-groups", "com.apple.security.application-groups", "application-identifier", "com.apple.developer.team-identifier", "unrelated"]
        for iteration in 0..<3000 {
            var plist: [String: Any] = [:]
            for key in keys where Bool.random(using: &rng) {
                plist[key] = randomValue(&rng, depth: 0)
            }
            let format: PropertyListSerialization.PropertyListFormat = Bool.random(using: &rng) ? .binary : .xml
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
            let teams: [String?] = [nil, "ABCDE12345", "ZZZZZ99999", "bad"]
            let bundles: [String?] = [nil, "com.example.app", "com..bad"]
            check(
                data, teamID: teams.randomElement(using: &rng)!, bundleID: bundles.randomElement(using: &rng)!,
                "iteration \(iteration), \(format == .binary ? "binary" : "XML"), \(rng.describe)")
        }
    }

    func testRandomValidEntitlementsParseWithEveryVariableExpanded() throws {
        var rng = SeededGenerator()
        let words = ["com", "example", "shared", "widget", "a-b", "x1", "Group", "app"]
        for iteration in 0..<500 {
            let names = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                (0..<Int.random(in: 1...3, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(separator: ".")
            }
            let keychain = names.map { ["$(AppIdentifierPrefix)", "$(TeamIdentifierPrefix)", "ABCDE12345."].randomElement(using: &rng)! + $0 }
            let groups = names.map { ["group.", "$(TeamIdentifierPrefix)"].randomElement(using: &rng)! + $0 }
            let plist: [String: Any] = ["keychain-access-groups": keychain, "com.apple.security.application-groups": groups]
            let format: PropertyListSerialization.PropertyListFormat = Bool.random(using: &rng) ? .binary : .xml
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
            let context = "iteration \(iteration), \(rng.describe)"

            let identity = try Identity(entitlements: data, source: Self.source, teamID: "ABCDE12345", bundleID: "com.example.app")
            let expand = { (raw: String) in
                raw.replacingOccurrences(of: "$(AppIdentifierPrefix)", with: "ABCDE12345.")
                    .replacingOccurrences(of: "$(TeamIdentifierPrefix)", with: "ABCDE12345.")
            }
            XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), keychain.map(expand), context)
            XCTAssertEqual(identity.applicationGroups.map(\.rawValue), groups.map(expand), context)
        }
    }

    func testDeeplyNestedArraysGiveAnIdentityOrATypedError() {
        let depth = 65_000
        let body = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        check(IdentityFixtures.xmlPlist("<dict><key>keychain-access-groups</key>\(body)</dict>"), "XML arrays nested \(depth) deep")
    }

    /// The attack pass's reproducer: every closing tag hidden in a comment, so a textual depth
    /// count sees the nesting close at once while the parser sees 16,000 open arrays. Before
    /// the parser was GroupVault's own, this overflowed the stack of Foundation's XML scanner
    /// and killed the process (SIGSEGV). Also in Fuzz/Corpus/entitlements.
    func testNestingHiddenInCommentsIsRefusedNotACrash() {
        let body = String(repeating: "<array><!--</array>-->", count: 16_000)
        let data = IdentityFixtures.xmlPlist("<dict><key>keychain-access-groups</key>\(body)</dict>")
        XCTAssertThrowsError(try Identity(entitlements: data, source: "deep.entitlements", teamID: "ABCDE12345")) { error in
            let error = error as? KeyringError
            XCTAssertEqual(error?.status, .invalidParameter, "\(String(describing: error))")
            XCTAssertTrue(error?.reason.contains("nests deeper than \(PropertyListValue.maximumDepth) levels") ?? false, "\(String(describing: error))")
        }
    }

    /// The same hiding place in CDATA: the text `</array>` inside a string is not a closing tag.
    func testNestingHiddenInCDATAIsRefusedNotACrash() {
        let body = String(repeating: "<array><string><![CDATA[</array>]]></string>", count: 16_000)
        check(IdentityFixtures.xmlPlist("<dict><key>k</key>\(body)</dict>"), "arrays whose closing tags are CDATA text")
    }

    /// A binary plist can hold a NaN date; describing it in the refusal must not trap (Date's
    /// own description does on NaN).
    func testNaNDateWhereAStringBelongsIsDescribedNotATrap() {
        let key = Array("application-identifier".utf8)
        var data: [UInt8] = Array("bplist00".utf8)
        data += [0xD1, 0x01, 0x02]                              // object 0 at 8: { 1: 2 }
        data += [0x5F, 0x10, UInt8(key.count)] + key             // object 1 at 11: the key
        data += [0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]             // object 2 at 36: date, NaN
        let offsetTable = data.count
        data += [8, 11, 36]
        data += [0, 0, 0, 0, 0, 0, 1, 1]                         // trailer: offset and ref sizes
        data += [0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(offsetTable)]
        XCTAssertThrowsError(try Identity(entitlements: Data(data), source: "nan.entitlements")) { error in
            let reason = (error as? KeyringError)?.reason ?? "\(error)"
            XCTAssertTrue(reason.contains("found a date (nan s since 1970)"), reason)
        }
    }

    /// Found by the preferences-import fuzz target: Foundation's binary scanner trapped on a
    /// dictionary whose count is written as a 16-byte integer (there also used as a key, which
    /// is refused too). The structure is checked before Foundation reads it
    /// (BinaryPropertyListCheck); the file that crashed is in the preferences-import corpus.
    func testADictionaryCountWrittenAsA16ByteIntegerIsRefusedNotATrap() {
        var data: [UInt8] = Array("bplist00".utf8)
        data += [0xD1, 0x01, 0x02]                              // object 0 at 8: { 1: 2 }
        data += [0x51, 0x61]                                    // object 1 at 11: "a"
        data += [0xDF, 0x14] + [UInt8](repeating: 0, count: 15) + [1]  // object 2 at 13: a dictionary, count as 16 bytes
        let offsetTable = data.count
        data += [8, 11, 13]
        data += [0, 0, 0, 0, 0, 0, 1, 1]                         // trailer: offset and ref sizes
        data += [0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(offsetTable)]
        XCTAssertThrowsError(try Identity(entitlements: Data(data), source: "count.entitlements", teamID: "ABCDE12345")) { error in
            let reason = (error as? KeyringError)?.reason ?? "\(error)"
            XCTAssertTrue(reason.contains("count that is not written as a 1- to 8-byte integer"), reason)
        }
    }

    func testDeeplyNestedBinaryArraysGiveAnIdentityOrATypedError() {
        check(nestedBinaryArrays(depth: 100_000), "binary arrays nested 100000 deep")
    }

    func testBinaryArrayThatContainsItselfGivesAnIdentityOrATypedError() {
        // One object, an array whose only element refers to itself: a cycle, not a tree.
        check(nestedBinaryArrays(depth: 1, cyclic: true), "a binary array containing itself")
    }

    /// 24 arrays, each referring twice to the next: 300-odd bytes that describe 2^24 values.
    /// Without a bound on values decoded, this input hung the parser (found in review).
    func testBinaryPlistOfRepeatedReferencesIsRefusedNotExpanded() {
        let data = binaryArraysReferencingTheNextTwice(depth: 24)
        XCTAssertLessThan(data.count, 400, "the premise: a tiny file")
        XCTAssertThrowsError(try Identity(entitlements: data, source: "shared.entitlements", teamID: "ABCDE12345")) { error in
            let error = error as? KeyringError
            XCTAssertEqual(error?.status, .invalidParameter, "\(String(describing: error))")
            XCTAssertTrue(error?.reason.contains("shared.entitlements") ?? false, "the reason names the source")
        }
    }

    /// Found by libFuzzer: Foundation's XML parser traps on an old 5-byte UTF-8 lead byte
    /// inside `<integer>`, so non-UTF-8 XML is refused before it is parsed.
    func testXMLThatIsNotUTF8IsRefusedBeforeParsing() {
        let data = Data("<integer>".utf8 + [0xF8, 0xFF, 0xFF, 0xFF, 0xFF] + "</integer>".utf8)
        XCTAssertThrowsError(try Identity(entitlements: data, source: "odd.entitlements", teamID: "ABCDE12345")) { error in
            let error = error as? KeyringError
            XCTAssertEqual(error?.status, .invalidParameter)
            XCTAssertTrue(error?.reason.contains("not valid UTF-8") ?? false, "\(String(describing: error))")
        }
    }

    // MARK: Generators

    /// A binary property list of `depth` arrays, each holding two references to the next; the
    /// last is an empty array.
    private func binaryArraysReferencingTheNextTwice(depth: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for index in 0..<depth {
            offsets.append(bytes.count)
            bytes += index == depth - 1 ? [0xA0] : [0xA2, UInt8(index + 1), UInt8(index + 1)]
        }
        let tableOffset = bytes.count
        bytes += offsets.map { UInt8($0) }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // 1-byte offsets, 1-byte object references
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(depth)]
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(tableOffset)]
        return Data(bytes)
    }

    /// A binary property list of `depth` arrays, each holding the next (the last is empty, or
    /// refers back to the first when `cyclic`): written by hand, since the writer would refuse.
    private func nestedBinaryArrays(depth: Int, cyclic: Bool = false) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        func appendBigEndian(_ value: Int, size: Int) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        for index in 0..<depth {
            offsets.append(bytes.count)
            if index == depth - 1 && !cyclic {
                bytes.append(0xA0)
            } else {
                bytes.append(0xA1)
                appendBigEndian(cyclic && index == depth - 1 ? 0 : index + 1, size: 4)
            }
        }
        let tableOffset = bytes.count
        for offset in offsets { appendBigEndian(offset, size: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]
        appendBigEndian(depth, size: 8)
        appendBigEndian(0, size: 8)
        appendBigEndian(tableOffset, size: 8)
        return Data(bytes)
    }

    private func randomValue(_ rng: inout SeededGenerator, depth: Int) -> Any {
        switch Int.random(in: 0..<(depth < 2 ? 9 : 6), using: &rng) {
        case 0, 1, 2: return randomString(&rng)
        case 3: return Int.random(in: -1000...1000, using: &rng)
        case 4: return Bool.random(using: &rng)
        case 5: return Data(rng.bytes(count: Int.random(in: 0...8, using: &rng)))
        case 6, 7: return (0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) }
        default: return ["nested": randomValue(&rng, depth: depth + 1)]
        }
    }

    private func randomString(_ rng: inout SeededGenerator) -> String {
        let pieces = [
            "group.", "ABCDE12345.", "ZZZZZ99999.", "abcde12345.", "$(TeamIdentifierPrefix)", "$(AppIdentifierPrefix)",
            "$(CFBundleIdentifier)", "${PRODUCT_BUNDLE_IDENTIFIER}", "$(DEVELOPMENT_TEAM)", "$(UNKNOWN)", "$(", "$", "com", "example",
            ".", "..", "-", "shared", " ", "\u{1B}[2J", "\u{0}", "é", "🔑", "/", "../", String(repeating: "x", count: 130),
        ]
        return (0..<Int.random(in: 0...5, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }
}
