import Foundation
import Keyring
import XCTest

/// `Keyring.save`: add, or replace the item with the same primary key, in one call.
final class KeyringSaveTests: ItemTestCase {
    private let query = ItemQuery(service: "api.example.com", account: "ada")

    func testSaveAddsAnItemThatDoesNotExist() throws {
        try keyring.save(KeychainItem(service: "api.example.com", account: "ada", secret: Data("one".utf8)))

        XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
    }

    func testSaveReplacesTheSecretAndEveryAttributeOfTheItemWithTheSamePrimaryKey() throws {
        let first = try keyring.add(KeychainItem(service: "api.example.com", account: "ada", secret: Data("one".utf8),
                                                 label: "old label", comment: "old"))

        let saved = try keyring.save(KeychainItem(service: "api.example.com", account: "ada", secret: Data("two".utf8),
                                                  comment: "new", accessibility: .afterFirstUnlock))

        let items = try keyring.items(matching: query)
        XCTAssertEqual(items.count, 1, "replaced, not added beside")
        XCTAssertEqual(items.first?.secret, Data("two".utf8))
        XCTAssertEqual(items.first?.comment, "new")
        XCTAssertNil(items.first?.label, "an attribute the saved item leaves out is cleared")
        XCTAssertEqual(items.first?.accessibility, .afterFirstUnlock)
        XCTAssertEqual(items.first?.persistentReference, first.persistentReference, "the same item, kept")
        XCTAssertEqual(items.first?.creationDate, first.creationDate)
        XCTAssertEqual(saved.secret, Data("two".utf8))
    }

    func testSavingTwiceLeavesOneItem() throws {
        let item = KeychainItem(service: "api.example.com", account: "ada", secret: Data("one".utf8))
        try keyring.save(item)
        try keyring.save(item)

        XCTAssertEqual(try keyring.items(matching: query).count, 1)
    }

    func testAnAbsentAccountAndAnEmptyOneAreTheSameItem() throws {
        try keyring.add(KeychainItem(service: "api.example.com", account: "", secret: Data("one".utf8)))
        try keyring.save(KeychainItem(service: "api.example.com", account: nil, secret: Data("two".utf8)))

        let items = try keyring.items(matching: ItemQuery(service: "api.example.com"))
        XCTAssertEqual(items.map(\.secret), [Data("two".utf8)], "the device stores an absent account as empty")
    }

    func testAnInternetPasswordOnAnotherPortIsAnotherItem() throws {
        try keyring.add(KeychainItem(.internetPassword, account: "ada", secret: Data("one".utf8), server: "example.com", port: 443))
        try keyring.save(KeychainItem(.internetPassword, account: "ada", secret: Data("two".utf8), server: "example.com", port: 8443))

        let items = try keyring.items(matching: ItemQuery(.internetPassword, server: "example.com"))
        XCTAssertEqual(Set(items.compactMap(\.port)), [443, 8443])
    }

    func testSaveNeverTouchesTheSameServiceAndAccountInAnotherAccessGroup() throws {
        try keyring.add(KeychainItem(service: "api.example.com", account: "ada", accessGroup: ItemTestHome.application, secret: Data("app".utf8)))
        try keyring.save(KeychainItem(service: "api.example.com", account: "ada", accessGroup: ItemTestHome.shared, secret: Data("shared".utf8)))

        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api.example.com", account: "ada", accessGroup: ItemTestHome.application)).secret, Data("app".utf8))
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api.example.com", account: "ada", accessGroup: ItemTestHome.shared)).secret, Data("shared".utf8))
    }
}
