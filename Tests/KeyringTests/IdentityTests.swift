import Foundation
import GroupVaultTestKit
import XCTest

@testable import Keyring

final class IdentityTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "identity")
    }

    override func tearDown() {
        directory.remove()
    }

    private func group(_ string: String) -> GroupIdentifier {
        GroupIdentifier(rawValue: string)!
    }

    /// The widget of the reference app: one shared keychain group, one app group.
    private var widget: Identity {
        Identity(
            teamID: "ABCDE12345", bundleID: "com.example.app.widget",
            keychainAccessGroups: [group("ABCDE12345.com.example.shared")],
            applicationGroups: [group("group.com.example")])
    }

    private func assertReason(_ error: KeyringError, contains parts: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(error.status, .missingEntitlement, file: file, line: line)
        for part in parts {
            XCTAssertTrue(error.reason.contains(part), "reason lacks \"\(part)\": \(error.reason)", file: file, line: line)
        }
    }

    // MARK: Identity from the environment

    func testEnvironmentWithTeamAndBundleGivesOnlyTheApplicationIdentifier() throws {
        let identity = try Identity.fromEnvironment(["GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.app"])
        XCTAssertEqual(identity.accessGroups.map(\.rawValue), ["ABCDE12345.com.example.app"])
        XCTAssertEqual(identity.applicationGroups, [])
    }

    func testEmptyEnvironmentGivesAnIdentityWithNoGroups() throws {
        let identity = try Identity.fromEnvironment([:])
        XCTAssertNil(identity.applicationIdentifier)
        XCTAssertEqual(identity.accessGroups, [])
    }

    func testEmptyVariablesCountAsUnset() throws {
        let identity = try Identity.fromEnvironment(["GROUPVAULT_TEAM_ID": "", "GROUPVAULT_BUNDLE_ID": "", "GROUPVAULT_ENTITLEMENTS": ""])
        XCTAssertEqual(identity, Identity())
    }

    func testEnvironmentEntitlementsFileIsReadWithTheEnvironmentTeamAndBundle() throws {
        let url = directory.url.appendingPathComponent("Widget.entitlements")
        try IdentityFixtures.widgetEntitlements.write(to: url)
        let identity = try Identity.fromEnvironment([
            "GROUPVAULT_ENTITLEMENTS": url.path, "GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.app.widget",
        ])
        XCTAssertEqual(identity.accessGroups.map(\.rawValue), [
            "ABCDE12345.com.example.shared", "ABCDE12345.com.example.app.widget", "group.com.example", "ABCDE12345.com.example.macos",
        ])
    }

    func testInvalidTeamIDVariableIsRefusedNamingTheVariable() {
        XCTAssertThrowsError(try Identity.fromEnvironment(["GROUPVAULT_TEAM_ID": "ABCDE1234"])) { error in
            let error = error as! KeyringError
            XCTAssertEqual(error.status, .invalidParameter)
            XCTAssertTrue(error.reason.contains("GROUPVAULT_TEAM_ID=\"ABCDE1234\""), error.reason)
        }
    }

    func testInvalidBundleIDVariableIsRefusedNamingTheVariable() {
        XCTAssertThrowsError(try Identity.fromEnvironment(["GROUPVAULT_BUNDLE_ID": "com..example"])) { error in
            let error = error as! KeyringError
            XCTAssertEqual(error.status, .invalidParameter)
            XCTAssertTrue(error.reason.contains("GROUPVAULT_BUNDLE_ID=\"com..example\""), error.reason)
            XCTAssertTrue(error.reason.contains("empty component"), error.reason)
        }
    }

    func testEntitlementsFileErrorNamesTheVariableAndTheFile() {
        let path = directory.url.appendingPathComponent("Nope.entitlements").path
        XCTAssertThrowsError(try Identity.fromEnvironment(["GROUPVAULT_ENTITLEMENTS": path])) { error in
            let error = error as! KeyringError
            XCTAssertEqual(error.status, .invalidParameter)
            XCTAssertTrue(error.reason.hasPrefix("GROUPVAULT_ENTITLEMENTS: "), error.reason)
            XCTAssertTrue(error.reason.contains(path), error.reason)
        }
    }

    func testKeyringFromEnvironmentCombinesIdentityAndHome() throws {
        let keyring = try Keyring.fromEnvironment([
            "GROUPVAULT_HOME": directory.path, "GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.app",
        ])
        XCTAssertEqual(keyring.home.root.path, directory.url.standardizedFileURL.path)
        XCTAssertEqual(keyring.identity.applicationIdentifier?.rawValue, "ABCDE12345.com.example.app")
    }

    // MARK: Access groups

    func testAccessGroupsKeepTheFirstPositionOfADuplicate() {
        let identity = Identity(
            teamID: "ABCDE12345", bundleID: "com.example.app",
            keychainAccessGroups: [group("group.com.example"), group("ABCDE12345.com.example.app")],
            applicationGroups: [group("group.com.example"), group("group.other")])
        XCTAssertEqual(identity.accessGroups.map(\.rawValue), ["group.com.example", "ABCDE12345.com.example.app", "group.other"])
    }

    func testApplicationGroupsAreAccessGroupsButKeychainGroupsAreNotApplicationGroups() {
        XCTAssertTrue(widget.isEntitled(toAccessGroup: group("group.com.example")))
        XCTAssertFalse(widget.isEntitled(toApplicationGroup: group("ABCDE12345.com.example.shared")))
    }

    // MARK: Missing entitlement: near-misses

    func testRefusalListsTheIdentitysAccessGroups() {
        let error = widget.missingEntitlement(for: group("ABCDE12345.com.unrelated"), operation: "add item")
        assertReason(error, contains: [
            "add item", "ABCDE12345.com.unrelated",
            "[ABCDE12345.com.example.shared, ABCDE12345.com.example.app.widget, group.com.example]",
            "keychain-access-groups", "$(AppIdentifierPrefix)com.unrelated",
        ])
    }

    func testDoubledTeamPrefixIsExplained() {
        let error = widget.missingEntitlement(for: group("ABCDE12345.ABCDE12345.com.example.shared"), operation: "add item")
        assertReason(error, contains: ["prefix \"ABCDE12345.\" is written twice", "this identity has ABCDE12345.com.example.shared"])
    }

    func testMissingTeamPrefixOnARawGroupIsExplained() {
        let error = widget.missingEntitlement(forRawGroup: "com.example.shared", operation: "SecItemAdd")
        assertReason(error, contains: [
            "\"com.example.shared\" is not a valid access group", "lacks its team prefix", "this identity has ABCDE12345.com.example.shared",
        ])
    }

    func testRawGroupWithoutPrefixAndNoMatchSaysHowToWriteIt() {
        let error = widget.missingEntitlement(forRawGroup: "com.other.thing", operation: "SecItemAdd")
        assertReason(error, contains: ["has no prefix", "\"ABCDE12345.com.other.thing\"", "$(AppIdentifierPrefix)com.other.thing", "\"group.com.other.thing\""])
    }

    func testValidRawGroupIsExplainedLikeAValidatedOne() {
        let raw = widget.missingEntitlement(forRawGroup: "ABCDE12345.ABCDE12345.com.example.shared", operation: "op")
        let validated = widget.missingEntitlement(for: group("ABCDE12345.ABCDE12345.com.example.shared"), operation: "op")
        XCTAssertEqual(raw, validated)
    }

    func testGroupPrefixWhereTheTeamPrefixBelongsIsExplained() {
        let error = widget.missingEntitlement(for: group("group.com.example.shared"), operation: "add item")
        assertReason(error, contains: ["uses \"group.\" where this identity has the team-prefixed ABCDE12345.com.example.shared"])
    }

    func testTeamPrefixWhereTheGroupPrefixBelongsIsExplained() {
        let error = widget.missingEntitlement(for: group("ABCDE12345.com.example"), operation: "add item")
        assertReason(error, contains: ["uses the team prefix \"ABCDE12345.\" where this identity has the application group group.com.example"])
    }

    func testTeamPrefixAddedToAnApplicationGroupIsExplained() {
        let error = widget.missingEntitlement(for: group("ABCDE12345.group.com.example"), operation: "add item")
        assertReason(error, contains: ["extra prefix \"ABCDE12345.\"", "this identity has group.com.example", "without a team prefix"])
    }

    func testAnotherTeamsGroupOfTheSameNameIsExplained() {
        let error = widget.missingEntitlement(for: group("ZZZZZ99999.com.example.shared"), operation: "add item")
        assertReason(error, contains: ["is for team ZZZZZ99999", "this identity has ABCDE12345.com.example.shared of team ABCDE12345"])
        XCTAssertFalse(error.reason.contains("belongs to team"), "one explanation per slip: \(error.reason)")
    }

    func testAnotherTeamsUnrelatedGroupIsExplained() {
        let error = widget.missingEntitlement(for: group("ZZZZZ99999.com.else"), operation: "add item")
        assertReason(error, contains: ["belongs to team ZZZZZ99999", "this identity's team is ABCDE12345"])
    }

    func testCaseDifferenceIsExplained() {
        let error = widget.missingEntitlement(for: group("ABCDE12345.com.Example.Shared"), operation: "add item")
        assertReason(error, contains: ["case-sensitive", "ABCDE12345.com.example.shared", "only in letter case"])
    }

    func testLowercasedTeamPrefixOnARawGroupIsExplainedAsACaseDifference() {
        let error = widget.missingEntitlement(forRawGroup: "abcde12345.com.example.shared", operation: "SecItemAdd")
        assertReason(error, contains: ["case-sensitive", "ABCDE12345.com.example.shared"])
    }

    func testLowercasedTeamIDWithoutACloseGroupSaysTeamIDsAreUpperCase() {
        let error = widget.missingEntitlement(forRawGroup: "zzzzz99999.com.else", operation: "SecItemAdd")
        assertReason(error, contains: ["team ids are upper case", "\"ZZZZZ99999.com.else\""])
    }

    func testDoubledPrefixIsNotAlsoReportedAsAnExtraPrefix() {
        let error = widget.missingEntitlement(for: group("ABCDE12345.ABCDE12345.com.example.shared"), operation: "add item")
        XCTAssertFalse(error.reason.contains("extra prefix"), error.reason)
    }

    func testEmptyRawGroupSaysHowGroupsAreWritten() {
        let error = widget.missingEntitlement(forRawGroup: "", operation: "SecItemAdd")
        assertReason(error, contains: ["\"\" is not a valid access group (it is empty)", "\"<TEAMID>.<name>\"", "\"group.<name>\""])
    }

    func testIdentityWithoutGroupsSaysHowToGiveItSome() {
        let error = Identity().missingEntitlement(for: group("group.com.example"), operation: "add item")
        assertReason(error, contains: ["[]", "no access groups", "GROUPVAULT_ENTITLEMENTS"])
    }

    func testContainerOfAKeychainAccessGroupIsExplainedAsTheOtherList() {
        let error = widget.missingContainerEntitlement(for: group("ABCDE12345.com.example.shared"), operation: "open container")
        assertReason(error, contains: [
            "application groups [group.com.example]", "one of this identity's keychain access groups", "com.apple.security.application-groups",
        ])
    }

    func testContainerOfTheApplicationIdentifierIsExplained() {
        let error = widget.missingContainerEntitlement(for: group("ABCDE12345.com.example.app.widget"), operation: "open container")
        assertReason(error, contains: ["application identifier, not an application group"])
    }

    func testContainerOfAnUnlistedGroupSaysWhereToListIt() {
        let error = widget.missingContainerEntitlement(for: group("group.com.other"), operation: "open container")
        assertReason(error, contains: ["group.com.other", "list it under com.apple.security.application-groups"])
    }
}
