import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// Apple's generic- and internet-password semantics, one rule per test (docs/SECITEM.md).
final class ItemSemanticsTests: ItemTestCase {
    override func tearDown() {
        UserPresence.response = .approve
        super.tearDown()
    }

    private func secret(_ text: String) -> Data { Data(text.utf8) }

    private func assertStatus<T>(_ expected: KeyringStatus, _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> KeyringError? {
        do {
            _ = try body()
            XCTFail("expected \(expected), but the call succeeded", file: file, line: line)
            return nil
        } catch let error as KeyringError {
            XCTAssertEqual(error.status, expected, error.reason, file: file, line: line)
            return error
        } catch {
            XCTFail("expected a KeyringError, got \(error)", file: file, line: line)
            return nil
        }
    }

    // MARK: Access groups

    func testAddWithoutAccessGroupUsesTheDefaultGroup() throws {
        let added = try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("t")))
        XCTAssertEqual(added.accessGroup, ItemTestHome.shared)
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.shared)).account, "me")
    }

    func testAddToAGroupNotEntitledIsMissingEntitlement() {
        let foreign = GroupIdentifier(rawValue: "ZZZZZ99999.com.other.shared")!
        let error = assertStatus(.missingEntitlement, try keyring.add(KeychainItem(service: "api", accessGroup: foreign, secret: secret("t"))))
        XCTAssertTrue(error?.reason.contains(foreign.rawValue) ?? false, error?.reason ?? "")
    }

    func testAddByAnIdentityWithoutAccessGroupsIsMissingEntitlement() {
        let keyring = home.keyring(Identity())
        _ = assertStatus(.missingEntitlement, try keyring.add(KeychainItem(service: "api", secret: secret("t"))))
    }

    func testQueryWithoutAccessGroupSearchesEveryEntitledGroupInOrder() throws {
        try keyring.add(KeychainItem(service: "api", account: "c", accessGroup: ItemTestHome.appGroup, secret: secret("3")))
        try keyring.add(KeychainItem(service: "api", account: "a", accessGroup: ItemTestHome.shared, secret: secret("1")))
        try keyring.add(KeychainItem(service: "api", account: "b", accessGroup: ItemTestHome.application, secret: secret("2")))
        let found = try keyring.items(matching: ItemQuery(service: "api"))
        XCTAssertEqual(found.map(\.account), ["a", "b", "c"])
        XCTAssertEqual(found.map(\.accessGroup), [ItemTestHome.shared, ItemTestHome.application, ItemTestHome.appGroup])
    }

    func testQueryNamingAGroupNotEntitledIsMissingEntitlement() {
        let foreign = GroupIdentifier(rawValue: "group.com.other")!
        _ = assertStatus(.missingEntitlement, try keyring.items(matching: ItemQuery(accessGroup: foreign)))
    }

    func testQueryNamingAGroupSearchesOnlyThatGroup() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", accessGroup: ItemTestHome.shared, secret: secret("1")))
        try keyring.add(KeychainItem(service: "api", account: "b", accessGroup: ItemTestHome.appGroup, secret: secret("2")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.appGroup)).map(\.account), ["b"])
    }

    func testItemsAddedInOneGroupAreInvisibleToAnIdentityWithoutIt() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", accessGroup: ItemTestHome.appGroup, secret: secret("1")))
        let widget = home.keyring(Identity(teamID: ItemTestHome.team, bundleID: "com.example.widget", keychainAccessGroups: [ItemTestHome.shared]))
        XCTAssertEqual(try widget.items(matching: ItemQuery(service: "api")), [])
    }

    // MARK: Primary key

    func testAddingTheSamePrimaryKeyTwiceIsDuplicateItem() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("first")))
        _ = assertStatus(.duplicateItem, try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("second"), label: "other")))
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: "me")).secret, secret("first"))
    }

    func testAbsentAndEmptyAccountAreTheSamePrimaryKey() throws {
        try keyring.add(KeychainItem(service: "api", account: nil, secret: secret("first")))
        _ = assertStatus(.duplicateItem, try keyring.add(KeychainItem(service: "api", account: "", secret: secret("second"))))
    }

    func testTheSameServiceAndAccountInTwoGroupsAreTwoItems() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: ItemTestHome.shared, secret: secret("1")))
        try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: ItemTestHome.appGroup, secret: secret("2")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "me")).count, 2)
    }

    func testSynchronizableIsPartOfThePrimaryKey() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("local")))
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("synced"), isSynchronizable: true))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", synchronizable: .any)).count, 2)
    }

    func testLabelIsNotPartOfTheGenericPasswordPrimaryKey() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1"), label: "one"))
        _ = assertStatus(.duplicateItem, try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("2"), label: "two")))
    }

    func testInternetPasswordPrimaryKeyIncludesServerProtocolPortAndPath() throws {
        let base = KeychainItem(.internetPassword, account: "me", secret: secret("1"), server: "example.com", protocol: "htps", port: 443, path: "/a")
        try keyring.add(base)
        var otherPort = base
        otherPort.port = 8443
        var otherPath = base
        otherPath.path = "/b"
        var otherProtocol = base
        otherProtocol.protocol = "http"
        var otherServer = base
        otherServer.server = "example.org"
        for item in [otherPort, otherPath, otherProtocol, otherServer] { try keyring.add(item) }
        XCTAssertEqual(try keyring.items(matching: ItemQuery(.internetPassword, account: "me")).count, 5)
        _ = assertStatus(.duplicateItem, try keyring.add(base))
    }

    func testGenericPasswordKeyIgnoresInternetAttributes() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1"), server: "a.example"))
        _ = assertStatus(.duplicateItem, try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("2"), server: "b.example")))
    }

    func testInternetPasswordKeyIgnoresService() throws {
        try keyring.add(KeychainItem(.internetPassword, service: "one", account: "me", secret: secret("1"), server: "example.com"))
        _ = assertStatus(.duplicateItem, try keyring.add(KeychainItem(.internetPassword, service: "two", account: "me", secret: secret("2"), server: "example.com")))
    }

    func testAbsentPortAndPortZeroAreTheSameInternetKey() throws {
        try keyring.add(KeychainItem(.internetPassword, account: "me", secret: secret("1"), server: "example.com", port: nil))
        _ = assertStatus(.duplicateItem, try keyring.add(KeychainItem(.internetPassword, account: "me", secret: secret("2"), server: "example.com", port: 0)))
    }

    func testGenericAndInternetPasswordsWithEqualAttributesDoNotCollide() throws {
        try keyring.add(KeychainItem(.genericPassword, account: "me", secret: secret("1")))
        try keyring.add(KeychainItem(.internetPassword, account: "me", secret: secret("2")))
        XCTAssertEqual(try keyring.item(matching: ItemQuery(.genericPassword, account: "me")).secret, secret("1"))
        XCTAssertEqual(try keyring.item(matching: ItemQuery(.internetPassword, account: "me")).secret, secret("2"))
    }

    // MARK: Matching

    func testItemMatchingThrowsItemNotFoundSayingWhatWasSearched() {
        let error = assertStatus(.itemNotFound, try keyring.item(matching: ItemQuery(service: "missing-service", account: "nobody")))
        XCTAssertTrue(error?.reason.contains("missing-service") ?? false, error?.reason ?? "")
        XCTAssertTrue(error?.reason.contains(ItemTestHome.shared.rawValue) ?? false, error?.reason ?? "")
    }

    func testItemsMatchingReturnsEmptyWhenNothingMatches() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "other")), [])
    }

    func testEveryGivenAttributeMustMatch() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1"), label: "Work"))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "me", label: "Home")), [])
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "me", label: "Work")).count, 1)
    }

    func testQueryForAnEmptyAttributeMatchesAnAbsentOne() throws {
        try keyring.add(KeychainItem(service: "api", account: nil, secret: secret("1")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "")).count, 1)
    }

    func testSynchronizableAbsentFromQueryMatchesOnlyNonSynchronizableItems() throws {
        try keyring.add(KeychainItem(service: "api", account: "synced", secret: secret("1"), isSynchronizable: true))
        try keyring.add(KeychainItem(service: "api", account: "local", secret: secret("2")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).map(\.account), ["local"])
    }

    func testSynchronizableYesMatchesOnlySynchronizableItems() throws {
        try keyring.add(KeychainItem(service: "api", account: "synced", secret: secret("1"), isSynchronizable: true))
        try keyring.add(KeychainItem(service: "api", account: "local", secret: secret("2")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", synchronizable: .yes)).map(\.account), ["synced"])
    }

    func testSynchronizableAnyMatchesBoth() throws {
        try keyring.add(KeychainItem(service: "api", account: "synced", secret: secret("1"), isSynchronizable: true))
        try keyring.add(KeychainItem(service: "api", account: "local", secret: secret("2")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", synchronizable: .any)).map(\.account), ["synced", "local"])
    }

    func testAccessibilityInQueryFiltersByClass() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", secret: secret("1"), accessibility: .whenUnlocked))
        try keyring.add(KeychainItem(service: "api", account: "b", secret: secret("2"), accessibility: .afterFirstUnlock))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", accessibility: .afterFirstUnlock)).map(\.account), ["b"])
    }

    func testMatchingIsCaseSensitiveByDefault() throws {
        try keyring.add(KeychainItem(service: "API", account: "Me", secret: secret("1")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "me")), [])
    }

    func testCaseInsensitiveMatchingIgnoresCase() throws {
        try keyring.add(KeychainItem(service: "API", account: "Me", secret: secret("1")))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "ME", caseInsensitive: true)).map(\.account), ["Me"])
    }

    func testPersistentReferenceSelectsExactlyThatItem() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", secret: secret("1")))
        let second = try keyring.add(KeychainItem(service: "api", account: "b", secret: secret("2")))
        let reference = try XCTUnwrap(second.persistentReference)
        XCTAssertEqual(reference.count, 16)
        XCTAssertEqual(try keyring.items(matching: ItemQuery(persistentReference: reference)), [second])
    }

    func testPersistentReferencesAreDistinct() throws {
        let first = try keyring.add(KeychainItem(service: "api", account: "a", secret: secret("1")))
        let second = try keyring.add(KeychainItem(service: "api", account: "b", secret: secret("2")))
        XCTAssertNotEqual(first.persistentReference, second.persistentReference)
    }

    func testAnItemReadBackEqualsTheItemAddReturned() throws {
        let added = try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("token"), label: "L", generic: Data([1, 2])))
        XCTAssertEqual(try home.keyring().item(matching: ItemQuery(service: "api", account: "me")), added)
    }

    func testAddSetsCreationAndModificationDateToTheSameTime() throws {
        let before = Date()
        let added = try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1")))
        let created = try XCTUnwrap(added.creationDate)
        XCTAssertEqual(added.modificationDate, created)
        XCTAssertGreaterThanOrEqual(created.timeIntervalSince1970, before.timeIntervalSince1970.rounded(.down))
    }

    func testAttributesOnlyQueryReturnsNoSecret() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("token")))
        let found = try keyring.items(matching: ItemQuery(service: "api"), includingSecrets: false)
        XCTAssertEqual(found.map(\.account), ["me"])
        XCTAssertEqual(found.map(\.secret), [Data()])
    }

    // MARK: Match limits

    private func addThree() throws {
        for account in ["a", "b", "c"] {
            try keyring.add(KeychainItem(service: "api", account: account, secret: secret(account)))
        }
    }

    func testLimitOneReturnsTheFirstMatch() throws {
        try addThree()
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api"), limit: .one).map(\.account), ["a"])
    }

    func testLimitAllReturnsEveryMatchInInsertionOrder() throws {
        try addThree()
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api"), limit: .all).map(\.account), ["a", "b", "c"])
    }

    func testLimitCountReturnsAtMostThatMany() throws {
        try addThree()
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api"), limit: .count(2)).map(\.account), ["a", "b"])
    }

    func testLimitCountBelowOneIsInvalidParameter() throws {
        try addThree()
        _ = assertStatus(.invalidParameter, try keyring.items(matching: ItemQuery(service: "api"), limit: .count(0)))
    }

    // MARK: Update

    func testUpdateChangesModificationDateAndKeepsCreationDate() throws {
        let added = try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("old")))
        var changes = ItemChanges()
        changes.secret = secret("new")
        XCTAssertEqual(try keyring.update(matching: ItemQuery(service: "api", account: "me"), with: changes), 1)
        let updated = try keyring.item(matching: ItemQuery(service: "api", account: "me"))
        XCTAssertEqual(updated.secret, secret("new"))
        XCTAssertEqual(updated.creationDate, added.creationDate)
        XCTAssertGreaterThan(try XCTUnwrap(updated.modificationDate), try XCTUnwrap(added.modificationDate))
        XCTAssertEqual(updated.persistentReference, added.persistentReference)
    }

    func testUpdateClearsAnAttributeGivenAsDoubleOptionalNil() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1"), label: "L"))
        var changes = ItemChanges()
        changes.label = .some(nil)
        try keyring.update(matching: ItemQuery(service: "api"), with: changes)
        XCTAssertNil(try keyring.item(matching: ItemQuery(service: "api")).label)
    }

    func testUpdateThatWouldCreateADuplicateIsDuplicateItemAndWritesNothing() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", secret: secret("1")))
        try keyring.add(KeychainItem(service: "api", account: "b", secret: secret("2")))
        let before = try keyring.items(matching: ItemQuery(service: "api"))
        var changes = ItemChanges()
        changes.account = "a"
        _ = assertStatus(.duplicateItem, try keyring.update(matching: ItemQuery(service: "api", account: "b"), with: changes))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")), before)
    }

    func testUpdateGivingTwoMatchesOneKeyIsDuplicateItem() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", secret: secret("1")))
        try keyring.add(KeychainItem(service: "api", account: "b", secret: secret("2")))
        var changes = ItemChanges()
        changes.account = "same"
        _ = assertStatus(.duplicateItem, try keyring.update(matching: ItemQuery(service: "api"), with: changes))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).map(\.account), ["a", "b"])
    }

    func testUpdateMovesAnItemToAnotherAccessGroup() throws {
        let added = try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: ItemTestHome.shared, secret: secret("1")))
        var changes = ItemChanges()
        changes.accessGroup = ItemTestHome.appGroup
        XCTAssertEqual(try keyring.update(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.shared), with: changes), 1)
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.shared)), [])
        let moved = try keyring.item(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.appGroup))
        XCTAssertEqual(moved.secret, secret("1"))
        XCTAssertEqual(moved.persistentReference, added.persistentReference)
        XCTAssertEqual(moved.creationDate, added.creationDate)
    }

    func testUpdateMovingOntoAnExistingKeyInTheTargetGroupIsDuplicateItem() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: ItemTestHome.shared, secret: secret("1")))
        try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: ItemTestHome.appGroup, secret: secret("2")))
        var changes = ItemChanges()
        changes.accessGroup = ItemTestHome.appGroup
        _ = assertStatus(.duplicateItem, try keyring.update(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.shared), with: changes))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).map(\.secret), [secret("1"), secret("2")])
    }

    func testUpdateMovingToAGroupNotEntitledIsMissingEntitlement() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1")))
        var changes = ItemChanges()
        changes.accessGroup = GroupIdentifier(rawValue: "group.com.other")!
        _ = assertStatus(.missingEntitlement, try keyring.update(matching: ItemQuery(service: "api"), with: changes))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).count, 1)
    }

    func testUpdateWithNoChangesIsInvalidParameter() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1")))
        _ = assertStatus(.invalidParameter, try keyring.update(matching: ItemQuery(service: "api"), with: ItemChanges()))
    }

    func testUpdateMatchingNothingIsItemNotFound() {
        var changes = ItemChanges()
        changes.label = "x"
        _ = assertStatus(.itemNotFound, try keyring.update(matching: ItemQuery(service: "missing"), with: changes))
    }

    func testUpdateChangesEveryMatchAcrossGroups() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", accessGroup: ItemTestHome.shared, secret: secret("1")))
        try keyring.add(KeychainItem(service: "api", account: "b", accessGroup: ItemTestHome.appGroup, secret: secret("2")))
        var changes = ItemChanges()
        changes.label = "updated"
        XCTAssertEqual(try keyring.update(matching: ItemQuery(service: "api"), with: changes), 2)
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).map(\.label), ["updated", "updated"])
    }

    // MARK: Delete

    func testDeleteRemovesEveryMatchAndReturnsTheCount() throws {
        try addThree()
        try keyring.add(KeychainItem(service: "other", account: "x", secret: secret("x")))
        XCTAssertEqual(try keyring.delete(matching: ItemQuery(service: "api")), 3)
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")), [])
        XCTAssertEqual(try keyring.items(matching: ItemQuery()).map(\.service), ["other"])
    }

    func testDeleteMatchingNothingIsItemNotFound() {
        _ = assertStatus(.itemNotFound, try keyring.delete(matching: ItemQuery(service: "missing")))
    }

    func testDeleteLeavesSynchronizableItemsUnlessAsked() throws {
        try keyring.add(KeychainItem(service: "api", account: "synced", secret: secret("1"), isSynchronizable: true))
        try keyring.add(KeychainItem(service: "api", account: "local", secret: secret("2")))
        XCTAssertEqual(try keyring.delete(matching: ItemQuery(service: "api")), 1)
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", synchronizable: .any)).map(\.account), ["synced"])
    }

    // MARK: User presence

    private func addProtected() throws {
        try keyring.add(KeychainItem(service: "api", account: "me", secret: secret("1"), accessControl: .userPresence))
    }

    func testReadingAProtectedSecretWhenTheUserApprovesSucceeds() throws {
        try addProtected()
        UserPresence.response = .approve
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api")).secret, secret("1"))
    }

    func testReadingAProtectedSecretWhenTheUserDeniesIsUserCanceled() throws {
        try addProtected()
        UserPresence.response = .deny
        _ = assertStatus(.userCanceled, try keyring.item(matching: ItemQuery(service: "api")))
    }

    func testReadingAProtectedSecretWithoutBiometryIsAuthenticationFailed() throws {
        try addProtected()
        UserPresence.response = .unavailable
        _ = assertStatus(.authenticationFailed, try keyring.item(matching: ItemQuery(service: "api")))
    }

    func testAttributesOnlyQueryOfAProtectedItemNeverPrompts() throws {
        try addProtected()
        UserPresence.response = .deny
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api"), includingSecrets: false).map(\.account), ["me"])
    }
}
