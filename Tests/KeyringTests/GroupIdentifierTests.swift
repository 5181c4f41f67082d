import Foundation
import XCTest

@testable import Keyring

final class GroupIdentifierTests: XCTestCase {
    /// Identifiers that must validate, with the parts they split into.
    private let valid: [(identifier: String, teamID: String?, name: String)] = [
        ("group.com.example", nil, "com.example"),
        ("group.com.example.shared-data", nil, "com.example.shared-data"),
        ("ABCDE12345.com.example.shared", "ABCDE12345", "com.example.shared"),
        ("0123456789.x", "0123456789", "x"),
        ("ABCDE12345.group.com.example", "ABCDE12345", "group.com.example"),
        ("group.A-b.9", nil, "A-b.9"),
        ("group." + String(repeating: "a", count: 122), nil, String(repeating: "a", count: 122)),
    ]

    /// Identifiers that must be refused, with a phrase the reason must contain.
    private let invalid: [(identifier: String, problem: String)] = [
        ("", "it is empty"),
        ("group." + String(repeating: "a", count: 123), "129 bytes long; the limit is 128"),
        ("group", "needs a prefix"),
        ("com.example.shared", "must start with \"group.\" or a 10-character team id"),
        ("abcde12345.com.example", "must start with \"group.\" or a 10-character team id"),
        ("ABCDE1234.com.example", "must start with \"group.\" or a 10-character team id"),
        ("ABCDE123456.com.example", "must start with \"group.\" or a 10-character team id"),
        ("group..example", "empty component"),
        (".group.example", "empty component"),
        ("group.example.", "empty component"),
        ("ABCDE12345.", "empty component"),
        ("group.com/example", "'/' is not allowed"),
        ("group.com example", "' ' is not allowed"),
        ("group.com_example", "'_' is not allowed"),
        ("group.caf\u{E9}", "byte 0xc3 is not allowed"),
        ("group.a\u{0}b", "byte 0x0 is not allowed"),
        ("$(TeamIdentifierPrefix)com.example", "unexpanded build variable"),
        ("group.${PRODUCT_BUNDLE_IDENTIFIER}", "unexpanded build variable"),
    ]

    func testValidIdentifiersAreAcceptedAndSplitIntoTeamAndName() throws {
        for (identifier, teamID, name) in valid {
            let group = try GroupIdentifier(validating: identifier)
            XCTAssertEqual(group.rawValue, identifier)
            XCTAssertEqual(group.teamID, teamID, identifier)
            XCTAssertEqual(group.name, name, identifier)
            XCTAssertEqual(group.isApplicationGroupStyle, teamID == nil, identifier)
        }
    }

    func testInvalidIdentifiersAreRefusedWithTheProblemInTheReason() {
        for (identifier, problem) in invalid {
            XCTAssertNil(GroupIdentifier(rawValue: identifier), identifier)
            XCTAssertThrowsError(try GroupIdentifier(validating: identifier), identifier) { error in
                let error = error as! KeyringError
                XCTAssertEqual(error.status, .invalidParameter, identifier)
                XCTAssertTrue(error.reason.contains(problem), "\(GroupIdentifier.printable(identifier)): reason lacks \"\(problem)\": \(error.reason)")
            }
        }
    }

    func testRefusalShowsControlCharactersEscaped() {
        XCTAssertThrowsError(try GroupIdentifier(validating: "group.\u{1B}[2J")) { error in
            let reason = (error as! KeyringError).reason
            XCTAssertTrue(reason.contains("group.\\u{1b}[2J"), reason)
            XCTAssertFalse(reason.unicodeScalars.contains { $0.value < 0x20 }, reason)
        }
    }

    func testRefusalTruncatesAnOverlongIdentifier() {
        let long = "group." + String(repeating: "x", count: 10_000)
        XCTAssertThrowsError(try GroupIdentifier(validating: long)) { error in
            let reason = (error as! KeyringError).reason
            XCTAssertTrue(reason.contains("…"), reason)
            XCTAssertLessThan(reason.count, 400, reason)
        }
    }

    func testTeamIDsAreTenUpperCaseLettersOrDigits() {
        XCTAssertTrue(GroupIdentifier.isValidTeamID("ABCDE12345"))
        XCTAssertTrue(GroupIdentifier.isValidTeamID("0000000000"))
        XCTAssertFalse(GroupIdentifier.isValidTeamID("abcde12345"))
        XCTAssertFalse(GroupIdentifier.isValidTeamID("ABCDE1234"))
        XCTAssertFalse(GroupIdentifier.isValidTeamID("ABCDE123456"))
        XCTAssertFalse(GroupIdentifier.isValidTeamID("ABCDE-1234"))
        XCTAssertFalse(GroupIdentifier.isValidTeamID("ＡBCDE12345"))
    }

    func testBundleIDsAreCheckedSoTheApplicationIdentifierIsValid() {
        XCTAssertNil(GroupIdentifier.problem(withBundleID: "com.example.app-widget"))
        XCTAssertEqual(GroupIdentifier.problem(withBundleID: ""), "it is empty")
        XCTAssertTrue(GroupIdentifier.problem(withBundleID: "com..app")?.contains("empty component") ?? false)
        XCTAssertTrue(GroupIdentifier.problem(withBundleID: String(repeating: "a", count: 118))?.contains("limit is 117") ?? false)
        XCTAssertNil(GroupIdentifier.problem(withBundleID: String(repeating: "a", count: 117)))
    }

    func testDecodingValidatesLikeTheInitializer() throws {
        let decoded = try JSONDecoder().decode([GroupIdentifier].self, from: Data(#"["group.com.example"]"#.utf8))
        XCTAssertEqual(decoded.map(\.rawValue), ["group.com.example"])
        XCTAssertThrowsError(try JSONDecoder().decode([GroupIdentifier].self, from: Data(#"["group..x"]"#.utf8))) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(context.debugDescription.contains("empty component"), context.debugDescription)
        }
    }

    func testEncodingIsTheBareString() throws {
        let data = try JSONEncoder().encode([GroupIdentifier(rawValue: "group.com.example")!])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["group.com.example"]"#)
    }
}
