#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GroupVaultTestKit
import XCTest

@testable import Keyring

/// Entitlements fixtures shared by the identity tests (namespaced: other suites share the module).
enum IdentityFixtures {
    static let appGroupsKey = "com.apple.security.application-groups"
    static let keychainGroupsKey = "keychain-access-groups"

    /// An XML property list with `body` as the content of its root element.
    static func xmlPlist(_ body: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \(body)
            </plist>
            """.utf8)
    }

    /// An XML entitlements dictionary with the given keys and string-array values.
    static func entitlements(_ entries: [(String, [String])]) -> Data {
        let body = entries.map { key, values in
            "<key>\(key)</key><array>" + values.map { "<string>\($0)</string>" }.joined() + "</array>"
        }.joined(separator: "\n")
        return xmlPlist("<dict>\(body)</dict>")
    }

    /// The shape of a real widget's entitlements, as Xcode writes them.
    static let widgetEntitlements = entitlements([
        (keychainGroupsKey, ["$(AppIdentifierPrefix)com.example.shared"]),
        (appGroupsKey, ["group.com.example", "$(TeamIdentifierPrefix)com.example.macos"]),
    ])

    /// The mode bits (including setgid) and owner of `path`, without following a symbolic link.
    static func fileStatus(_ path: String) -> (mode: UInt32, owner: UInt32)? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return (UInt32(status.st_mode) & 0o7777, UInt32(status.st_uid))
    }
}

final class EntitlementsTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "entitlements")
    }

    override func tearDown() {
        directory.remove()
    }

    private func write(_ data: Data, named name: String = "App.entitlements") throws -> URL {
        let url = directory.url.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// Runs `body`, which must throw a KeyringError, and returns it.
    private func refusal(_ body: () throws -> Identity, file: StaticString = #filePath, line: UInt = #line) -> KeyringError? {
        do {
            let identity = try body()
            XCTFail("expected a refusal, got \(identity)", file: file, line: line)
            return nil
        } catch let error as KeyringError {
            XCTAssertEqual(error.status, .invalidParameter, error.reason, file: file, line: line)
            return error
        } catch {
            XCTFail("expected a KeyringError, got \(error)", file: file, line: line)
            return nil
        }
    }

    private func assertReason(_ error: KeyringError?, contains parts: [String], file: StaticString = #filePath, line: UInt = #line) {
        guard let error else { return }
        for part in parts {
            XCTAssertTrue(error.reason.contains(part), "reason lacks \"\(part)\": \(error.reason)", file: file, line: line)
        }
    }

    // MARK: Reading

    func testXMLEntitlementsFileExpandsTeamAndAppIdentifierPrefixes() throws {
        let url = try write(IdentityFixtures.widgetEntitlements)
        let identity = try Identity(entitlementsAt: url, teamID: "ABCDE12345", bundleID: "com.example.app.widget")
        XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), ["ABCDE12345.com.example.shared"])
        XCTAssertEqual(identity.applicationGroups.map(\.rawValue), ["group.com.example", "ABCDE12345.com.example.macos"])
        XCTAssertEqual(identity.applicationIdentifier?.rawValue, "ABCDE12345.com.example.app.widget")
    }

    func testBinaryEntitlementsFileReadsLikeXML() throws {
        let plist: [String: Any] = [
            IdentityFixtures.keychainGroupsKey: ["$(AppIdentifierPrefix)com.example.shared"],
            IdentityFixtures.appGroupsKey: ["group.com.example"],
        ]
        let binary = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        XCTAssertEqual(Array(binary.prefix(6)), Array("bplist".utf8), "the fixture must really be binary")
        let identity = try Identity(entitlementsAt: try write(binary), teamID: "ABCDE12345", bundleID: "com.example.app")
        XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), ["ABCDE12345.com.example.shared"])
        XCTAssertEqual(identity.applicationGroups.map(\.rawValue), ["group.com.example"])
    }

    func testBundleIdentifierVariablesExpandToTheBundleID() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.keychainGroupsKey, ["$(TeamIdentifierPrefix)$(CFBundleIdentifier)", "${AppIdentifierPrefix}$(PRODUCT_BUNDLE_IDENTIFIER).extra"])])
        let identity = try Identity(entitlements: data, source: "inline", teamID: "ABCDE12345", bundleID: "com.example.app")
        XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.extra"])
    }

    func testDevelopmentTeamVariableExpandsToTheBareTeamID() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.keychainGroupsKey, ["$(DEVELOPMENT_TEAM).com.example.shared"])])
        let identity = try Identity(entitlements: data, source: "inline", teamID: "ABCDE12345")
        XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), ["ABCDE12345.com.example.shared"])
    }

    func testAccessGroupsAreKeychainGroupsThenApplicationIdentifierThenApplicationGroups() throws {
        let identity = try Identity(entitlements: IdentityFixtures.widgetEntitlements, source: "inline", teamID: "ABCDE12345", bundleID: "com.example.app")
        XCTAssertEqual(identity.accessGroups.map(\.rawValue), [
            "ABCDE12345.com.example.shared", "ABCDE12345.com.example.app", "group.com.example", "ABCDE12345.com.example.macos",
        ])
        XCTAssertEqual(identity.defaultAccessGroup?.rawValue, "ABCDE12345.com.example.shared")
    }

    func testUnknownKeysAreIgnored() throws {
        let data = IdentityFixtures.xmlPlist("""
            <dict>
              <key>com.apple.developer.icloud-services</key><array><integer>3</integer></array>
              <key>aps-environment</key><true/>
              <key>\(IdentityFixtures.appGroupsKey)</key><array><string>group.com.example</string></array>
            </dict>
            """)
        let identity = try Identity(entitlements: data, source: "inline")
        XCTAssertEqual(identity.applicationGroups.map(\.rawValue), ["group.com.example"])
    }

    func testEmptyDictionaryGivesAnIdentityWithoutGroups() throws {
        let identity = try Identity(entitlements: IdentityFixtures.xmlPlist("<dict/>"), source: "inline", teamID: "ABCDE12345", bundleID: "com.example.app")
        XCTAssertEqual(identity.accessGroups.map(\.rawValue), ["ABCDE12345.com.example.app"])
        XCTAssertEqual(identity.applicationGroups, [])
    }

    // MARK: Team and bundle id precedence

    func testExplicitTeamIDWinsOverTheTeamIdentifierEntitlement() throws {
        let data = IdentityFixtures.xmlPlist("""
            <dict>
              <key>com.apple.developer.team-identifier</key><string>ZZZZZ99999</string>
              <key>\(IdentityFixtures.keychainGroupsKey)</key><array><string>$(TeamIdentifierPrefix)shared</string></array>
            </dict>
            """)
        let identity = try Identity(entitlements: data, source: "inline", teamID: "ABCDE12345")
        XCTAssertEqual(identity.teamID, "ABCDE12345")
        XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), ["ABCDE12345.shared"])
    }

    /// The attack pass: an application identifier of another team used to be accepted beside
    /// the team identifier, putting that team's group among the identity's access groups.
    func testApplicationIdentifierOfAnotherTeamThanTheTeamIdentifierIsRefused() throws {
        let data = IdentityFixtures.xmlPlist("""
            <dict>
              <key>application-identifier</key><string>ZZZZZ99999.com.example.app</string>
              <key>com.apple.developer.team-identifier</key><string>ABCDE12345</string>
            </dict>
            """)
        let error = refusal { try Identity(entitlements: data, source: "inline") }
        assertReason(error, contains: ["application-identifier", "belongs to team ZZZZZ99999", "the team id is ABCDE12345", "com.apple.developer.team-identifier"])
    }

    func testApplicationIdentifierOfAnotherTeamThanTheExplicitTeamIDIsRefused() throws {
        let data = IdentityFixtures.xmlPlist("<dict><key>application-identifier</key><string>ZZZZZ99999.com.example.app</string></dict>")
        let error = refusal { try Identity(entitlements: data, source: "inline", teamID: "ABCDE12345") }
        assertReason(error, contains: ["belongs to team ZZZZZ99999", "given by the caller"])
    }

    func testApplicationIdentifierOfTheSameTeamAsTheTeamIdentifierIsAccepted() throws {
        let data = IdentityFixtures.xmlPlist("""
            <dict>
              <key>application-identifier</key><string>ABCDE12345.com.example.app</string>
              <key>com.apple.developer.team-identifier</key><string>ABCDE12345</string>
            </dict>
            """)
        XCTAssertEqual(try Identity(entitlements: data, source: "inline").applicationIdentifier?.rawValue, "ABCDE12345.com.example.app")
    }

    /// The attack pass: 4,000 groups made `vaultcli identity` create 20,000 directories.
    func testMoreGroupsThanTheLimitUnderOneKeyAreRefused() throws {
        let groups = (0...EntitlementsFile.maximumGroupsPerKey).map { "group.com.example.g\($0)" }
        let error = refusal { try Identity(entitlements: IdentityFixtures.entitlements([(IdentityFixtures.appGroupsKey, groups)]), source: "inline") }
        assertReason(error, contains: [IdentityFixtures.appGroupsKey, "lists \(groups.count) identifiers", "at most \(EntitlementsFile.maximumGroupsPerKey)"])
    }

    func testTeamAndBundleIDComeFromTheApplicationIdentifierWhenNothingElseGivesThem() throws {
        let data = IdentityFixtures.xmlPlist("""
            <dict>
              <key>application-identifier</key><string>ABCDE12345.com.example.app</string>
              <key>\(IdentityFixtures.keychainGroupsKey)</key><array><string>$(AppIdentifierPrefix)$(CFBundleIdentifier).shared</string></array>
            </dict>
            """)
        let identity = try Identity(entitlements: data, source: "inline")
        XCTAssertEqual(identity.teamID, "ABCDE12345")
        XCTAssertEqual(identity.bundleID, "com.example.app")
        XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), ["ABCDE12345.com.example.app.shared"])
    }

    func testApplicationIdentifierMayUseVariables() throws {
        let data = IdentityFixtures.xmlPlist("<dict><key>application-identifier</key><string>$(AppIdentifierPrefix)$(CFBundleIdentifier)</string></dict>")
        let identity = try Identity(entitlements: data, source: "inline", teamID: "ABCDE12345", bundleID: "com.example.app")
        XCTAssertEqual(identity.applicationIdentifier?.rawValue, "ABCDE12345.com.example.app")
    }

    // MARK: Refusals: the file

    func testMissingFileIsRefusedNamingThePath() throws {
        let url = directory.url.appendingPathComponent("Missing.entitlements")
        let error = refusal { try Identity(entitlementsAt: url) }
        assertReason(error, contains: [url.path, "does not exist"])
    }

    func testDirectoryIsRefusedAsNotARegularFile() throws {
        let error = refusal { try Identity(entitlementsAt: self.directory.url) }
        assertReason(error, contains: [directory.path, "not a regular file"])
    }

    func testFileOverOneMebibyteIsRefusedBeforeParsing() throws {
        // Valid XML up to the limit would still be refused: the size alone decides.
        var data = IdentityFixtures.xmlPlist("<dict/>")
        data.append(Data(repeating: 0x20, count: EntitlementsFile.maximumSize))
        let url = try write(data)
        let error = refusal { try Identity(entitlementsAt: url) }
        assertReason(error, contains: [url.path, "limited to \(1 << 20) bytes"])
    }

    func testInlineDataOverOneMebibyteIsRefused() throws {
        let data = Data(repeating: 0x20, count: (1 << 20) + 1)
        let error = refusal { try Identity(entitlements: data, source: "big blob") }
        assertReason(error, contains: ["big blob", "limited to"])
    }

    func testBytesThatAreNotAPropertyListAreRefused() throws {
        let url = try write(Data("<plist><dict><key>oops".utf8))
        let error = refusal { try Identity(entitlementsAt: url) }
        assertReason(error, contains: [url.path, "not a property list"])
    }

    func testBinaryEntitlementsNamingAKeyTwiceAreRefused() throws {
        // Two application-groups arrays in one file: a reader keeping the first and one keeping
        // the last would grant different groups from one file.
        let group = BinaryPlistFixture.ascii(IdentityFixtures.appGroupsKey)
        let data = BinaryPlistFixture.plist([
            BinaryPlistFixture.dictionary(keys: [1, 2], values: [3, 5]),
            group, group,
            BinaryPlistFixture.array([4]), BinaryPlistFixture.ascii("group.com.example.a"),
            BinaryPlistFixture.array([6]), BinaryPlistFixture.ascii("group.com.example.b"),
        ])
        let url = try write(data)
        let error = refusal { try Identity(entitlementsAt: url, teamID: "ABCDE12345", bundleID: "com.example.app") }
        assertReason(error, contains: [url.path, "the key \"\(IdentityFixtures.appGroupsKey)\" appears twice in one dictionary"])
    }

    func testEmptyFileIsRefusedAsNotAPropertyList() throws {
        let url = try write(Data())
        let error = refusal { try Identity(entitlementsAt: url) }
        assertReason(error, contains: [url.path, "not a property list"])
    }

    func testRootThatIsNotADictionaryIsRefused() throws {
        let url = try write(IdentityFixtures.xmlPlist("<array><string>group.com.example</string></array>"))
        let error = refusal { try Identity(entitlementsAt: url) }
        assertReason(error, contains: [url.path, "root is an array of 1 item", "not a dictionary"])
    }

    func testNestingDeeperThanTheLimitIsRefused() throws {
        let depth = PropertyListValue.maximumDepth + 1
        let nested = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        let url = try write(IdentityFixtures.xmlPlist("<dict><key>unrelated</key>\(nested)</dict>"))
        let error = refusal { try Identity(entitlementsAt: url) }
        assertReason(error, contains: [url.path, "nests deeper than \(PropertyListValue.maximumDepth) levels"])
    }

    func testNestingWithinTheLimitIsAccepted() throws {
        let depth = PropertyListValue.maximumDepth - 2
        let nested = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        let data = IdentityFixtures.xmlPlist("<dict><key>unrelated</key>\(nested)<key>\(IdentityFixtures.appGroupsKey)</key><array><string>group.a</string></array></dict>")
        XCTAssertEqual(try Identity(entitlements: data, source: "inline").applicationGroups.map(\.rawValue), ["group.a"])
    }

    // MARK: Refusals: keys and values

    func testApplicationGroupsThatAreAStringInsteadOfAnArrayAreRefused() throws {
        let data = IdentityFixtures.xmlPlist("<dict><key>\(IdentityFixtures.appGroupsKey)</key><string>group.com.example</string></dict>")
        let error = refusal { try Identity(entitlements: data, source: "Widget.entitlements") }
        assertReason(error, contains: ["Widget.entitlements", IdentityFixtures.appGroupsKey, "must be an array of strings", "\"group.com.example\""])
    }

    func testArrayItemOfTheWrongTypeIsRefusedNamingItsIndex() throws {
        let data = IdentityFixtures.xmlPlist("<dict><key>\(IdentityFixtures.keychainGroupsKey)</key><array><string>ABCDE12345.a</string><integer>42</integer></array></dict>")
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: ["App.entitlements", IdentityFixtures.keychainGroupsKey, "item 1", "must be a string", "the number 42"])
    }

    func testBooleanWhereAStringBelongsIsDescribedAsABoolean() throws {
        let data = IdentityFixtures.xmlPlist("<dict><key>application-identifier</key><true/></dict>")
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: ["application-identifier", "must be a string", "boolean true"])
    }

    func testInvalidApplicationGroupIsRefusedNamingFileKeyAndValue() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.appGroupsKey, ["group.com..example"])])
        let error = refusal { try Identity(entitlements: data, source: "Widget.entitlements") }
        assertReason(error, contains: ["Widget.entitlements", IdentityFixtures.appGroupsKey, "item 0", "\"group.com..example\"", "empty component"])
    }

    func testKeychainGroupWithoutPrefixSuggestsAppIdentifierPrefix() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.keychainGroupsKey, ["com.example.shared"])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements", teamID: "ABCDE12345") }
        assertReason(error, contains: ["\"com.example.shared\"", "$(AppIdentifierPrefix)com.example.shared"])
    }

    func testApplicationGroupWithoutPrefixSuggestsGroupPrefix() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.appGroupsKey, ["com.example"])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: [IdentityFixtures.appGroupsKey, "\"group.com.example\""])
    }

    func testExpandedValueThatIsInvalidShowsBothForms() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.keychainGroupsKey, ["$(TeamIdentifierPrefix)"])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements", teamID: "ABCDE12345") }
        assertReason(error, contains: ["\"$(TeamIdentifierPrefix)\"", "expanded to \"ABCDE12345.\"", "empty component"])
    }

    func testTeamPrefixVariableWithoutATeamIDSaysHowToProvideOne() throws {
        let url = try write(IdentityFixtures.widgetEntitlements)
        let error = refusal { try Identity(entitlementsAt: url) }
        assertReason(error, contains: [url.path, IdentityFixtures.keychainGroupsKey, "$(AppIdentifierPrefix)", "no team id is known", "teamID:", "GROUPVAULT_TEAM_ID", "com.apple.developer.team-identifier"])
    }

    func testBundleVariableWithoutABundleIDSaysHowToProvideOne() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.keychainGroupsKey, ["$(AppIdentifierPrefix)$(CFBundleIdentifier)"])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements", teamID: "ABCDE12345") }
        assertReason(error, contains: ["$(CFBundleIdentifier)", "no bundle id is known", "GROUPVAULT_BUNDLE_ID"])
    }

    func testUnknownBuildVariableIsRefusedNamingIt() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.appGroupsKey, ["group.$(MY_SUFFIX)"])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: [IdentityFixtures.appGroupsKey, "$(MY_SUFFIX)", "cannot expand"])
    }

    func testUnterminatedBuildVariableIsRefused() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.appGroupsKey, ["group.$(TeamIdentifierPrefix"])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements", teamID: "ABCDE12345") }
        assertReason(error, contains: ["\"group.$(TeamIdentifierPrefix\"", "unterminated"])
    }

    func testInvalidExplicitTeamIDIsRefused() throws {
        let error = refusal { try Identity(entitlements: IdentityFixtures.widgetEntitlements, source: "App.entitlements", teamID: "abcde12345") }
        assertReason(error, contains: ["\"abcde12345\"", "not a team id"])
    }

    func testInvalidExplicitBundleIDIsRefused() throws {
        let error = refusal { try Identity(entitlements: IdentityFixtures.widgetEntitlements, source: "App.entitlements", teamID: "ABCDE12345", bundleID: "com example") }
        assertReason(error, contains: ["\"com example\"", "not a bundle identifier", "' '"])
    }

    func testInvalidTeamIdentifierEntitlementIsRefused() throws {
        let data = IdentityFixtures.xmlPlist("<dict><key>com.apple.developer.team-identifier</key><string>TEAM</string></dict>")
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: ["com.apple.developer.team-identifier", "\"TEAM\"", "not a team id"])
    }

    func testApplicationIdentifierThatIsAnApplicationGroupIsRefused() throws {
        let data = IdentityFixtures.xmlPlist("<dict><key>application-identifier</key><string>group.com.example</string></dict>")
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: ["application-identifier", "\"group.com.example\"", "not an application identifier"])
    }

    func testControlCharactersInAValueAreEscapedInTheMessage() throws {
        let data = IdentityFixtures.entitlements([(IdentityFixtures.appGroupsKey, ["group.a&#x1B;[31mred"])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: ["\\u{1b}"])
        XCTAssertFalse(error?.reason.unicodeScalars.contains { $0.value < 0x20 } ?? true, "no raw control character may reach a terminal")
    }

    func testOverlongValueIsTruncatedInTheMessage() throws {
        let long = "group." + String(repeating: "x", count: 5000)
        let data = IdentityFixtures.entitlements([(IdentityFixtures.appGroupsKey, [long])])
        let error = refusal { try Identity(entitlements: data, source: "App.entitlements") }
        assertReason(error, contains: ["…", "limit is 128"])
        XCTAssertLessThan(error?.reason.count ?? .max, 1000, "the reason must not echo the whole value")
    }
}
