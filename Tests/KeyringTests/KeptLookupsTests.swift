import Foundation
@testable import Keyring
import XCTest

/// A search made again while no row of the keyring database changed returns the items it found
/// then; any change, by this process or another, reads the rows again (docs/ARCHITECTURE.md, "A
/// search while nothing changed returns the items it found"). `WarmLookupTests` shows the same
/// for changes by another process and to the home's files.
final class KeptLookupsTests: ItemTestCase {
    private let query = ItemQuery(service: "api", account: "me", accessGroup: ItemTestHome.shared)

    private func item(_ secret: String, accessibility: Accessibility = .whenUnlocked) -> KeychainItem {
        KeychainItem(service: "api", account: "me", accessGroup: ItemTestHome.shared, secret: Data(secret.utf8), accessibility: accessibility)
    }

    /// How many searches of this home were answered from kept items.
    private func answered() throws -> Int {
        try KeyringDatabase.shared(for: home.home).keptLookups.withLock { $0.answered }
    }

    func testASearchMadeAgainWhileNothingChangedIsAnsweredFromTheItemsFound() throws {
        try keyring.add(item("one"))
        XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
        let before = try answered()
        XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
        XCTAssertEqual(try answered(), before + 1)
    }

    func testAnAnswerOfMoreItemsThanALookupFindsIsNotKept() throws {
        let everyAccount = ItemQuery(service: "api", accessGroup: ItemTestHome.shared)
        for index in 0...KeptLookups.largestAnswer {
            try keyring.add(KeychainItem(service: "api", account: "account-\(index)", accessGroup: ItemTestHome.shared, secret: Data("s".utf8)))
        }
        let before = try answered()
        for _ in 0..<3 { XCTAssertEqual(try keyring.items(matching: everyAccount).count, KeptLookups.largestAnswer + 1) }
        XCTAssertEqual(try answered(), before)
    }

    func testAKeyringThatKeepsNoItemsAnswersEverySearchFromTheRows() throws {
        var keyring = self.keyring
        keyring.keepsFoundItems = false
        try keyring.add(item("one"))
        let before = try answered()
        for _ in 0..<3 { XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8)) }
        XCTAssertEqual(try answered(), before)
    }

    func testAnItemUpdatedByThisProcessIsFoundAsUpdated() throws {
        try keyring.add(item("one"))
        for _ in 0..<2 { _ = try keyring.item(matching: query) }
        var changes = ItemChanges()
        changes.secret = Data("two".utf8)
        try keyring.update(matching: query, with: changes)
        XCTAssertEqual(try keyring.item(matching: query).secret, Data("two".utf8))
    }

    func testAnItemAddedAfterASearchFoundNothingIsFound() throws {
        for _ in 0..<2 { XCTAssertEqual(try keyring.items(matching: query), []) }
        try keyring.add(item("one"))
        XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
    }

    func testADeletedItemIsNotFound() throws {
        try keyring.add(item("one"))
        for _ in 0..<2 { _ = try keyring.item(matching: query) }
        try keyring.delete(matching: query)
        XCTAssertEqual(try keyring.items(matching: query), [])
    }

    func testAnItemUsableOnlyWhileUnlockedIsRefusedOnceTheDeviceLocks() throws {
        try keyring.add(item("one"))
        for _ in 0..<2 { _ = try keyring.item(matching: query) }
        try home.home.setLockState(.locked)
        XCTAssertThrowsError(try keyring.item(matching: query)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed, "\(error)")
        }
    }

    func testEveryTextOfAQueryIsComparedByItsBytes() {
        // `String`'s `==` takes NFC and NFD for equal; a search compares every text of its query
        // byte for byte (KeptLookups.Search.texts). A text property added to the query types
        // must be added there too, or two queries for two items would share one answer.
        func texts(of value: Any) -> Int {
            Mirror(reflecting: value).children.reduce(0) { count, child in
                count + (type(of: child.value) == String.self || type(of: child.value) == String?.self ? 1 : 0)
            }
        }
        let query = ItemQuery()
        XCTAssertEqual(texts(of: query) + texts(of: query.key) + texts(of: query.certificate), KeptLookups.Search.texts.count)
    }
}
