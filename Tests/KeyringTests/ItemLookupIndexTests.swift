import Foundation
@testable import Keyring
import XCTest

/// Which index answers a lookup decides whether it costs the same at ten items and at ten
/// thousand. SQLite's plan is read with `EXPLAIN QUERY PLAN`, so these tests show the shape of
/// the search without timing it; the benchmark (Benchmarks/, "Lookup") measures the cost.
final class ItemLookupIndexTests: ItemTestCase {
    private let group = ItemTestHome.shared

    /// One account under many services: the shape in which the account's own index would
    /// walk every one of them.
    private func addOneAccountUnderManyServices(_ keyring: Keyring) throws {
        for index in 0..<50 {
            try keyring.add(KeychainItem(service: "service-\(index)", account: "me", accessGroup: group, secret: Data("\(index)".utf8)))
        }
    }

    private func plan(for query: ItemQuery, _ keyring: Keyring) throws -> String {
        try ItemTable(home: keyring.home).queryPlan(matching: query, in: group).joined(separator: "\n")
    }

    /// A lookup names its operation with a literal per class (an interpolation cost every
    /// lookup 800 instructions): the literal must say what the noun says.
    func testASearchOfEachClassIsNamedByItsNoun() {
        for itemClass in ItemClass.allCases {
            XCTAssertEqual(itemClass.searchOperation, "search \(itemClass.noun)s")
        }
    }

    func testAGenericPasswordLookupByServiceAndAccountUsesTheUniquePrimaryKeyIndex() throws {
        let keyring = home.keyring()
        try addOneAccountUnderManyServices(keyring)

        let plan = try plan(for: ItemQuery(service: "service-25", account: "me", accessGroup: group), keyring)

        XCTAssertTrue(plan.contains("items_by_key"), plan)
    }

    func testALookupOfEitherSynchronizableStateStillUsesThePrimaryKeyIndex() throws {
        let keyring = home.keyring()
        try addOneAccountUnderManyServices(keyring)

        let plan = try plan(for: ItemQuery(service: "service-25", account: "me", accessGroup: group, synchronizable: .any), keyring)

        XCTAssertTrue(plan.contains("items_by_key"), plan)
    }

    func testTheNarrowedLookupFindsExactlyTheItemOfThatServiceAndAccount() throws {
        let keyring = home.keyring()
        try addOneAccountUnderManyServices(keyring)

        let found = try keyring.items(matching: ItemQuery(service: "service-25", account: "me", accessGroup: group), limit: .all)

        XCTAssertEqual(found.map(\.service), ["service-25"])
        XCTAssertEqual(found.first?.secret, Data("25".utf8))
    }

    func testAnAbsentServiceInTheItemIsFoundByAnEmptyServiceInTheQuery() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(account: "me", accessGroup: group, secret: Data("no service".utf8)))

        let found = try keyring.item(matching: ItemQuery(service: "", account: "me", accessGroup: group))

        XCTAssertEqual(found.secret, Data("no service".utf8))
    }

    func testSynchronizableAnyFindsBothStatesOfOneServiceAndAccount() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: group, secret: Data("local".utf8)))
        try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: group, secret: Data("synced".utf8), isSynchronizable: true))

        let found = try keyring.items(matching: ItemQuery(service: "api", account: "me", accessGroup: group, synchronizable: .any), limit: .all)

        XCTAssertEqual(Set(found.map(\.secret)), [Data("local".utf8), Data("synced".utf8)])
    }

    func testACaseInsensitiveLookupIsNotNarrowedByTheBytesOfItsKey() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "API", account: "Me", accessGroup: group, secret: Data("found".utf8)))

        let found = try keyring.item(matching: ItemQuery(service: "api", account: "me", accessGroup: group, caseInsensitive: true))

        XCTAssertEqual(found.secret, Data("found".utf8))
    }

    /// Statements are remembered by the shape of their conditions: queries of every shape, one
    /// after another in one process, each get a statement whose placeholders are their values,
    /// and each finds its item.
    func testQueriesOfEveryShapeInOneProcessEachFindTheirItem() throws {
        let keyring = home.keyring()
        let added = try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: group, secret: Data("found".utf8), server: "example.com"))
        let reference = try XCTUnwrap(added.persistentReference)
        let queries = [
            ItemQuery(service: "api", account: "me", accessGroup: group),
            ItemQuery(service: "api", account: "me", accessGroup: group, synchronizable: .any),
            ItemQuery(service: "api", accessGroup: group),
            ItemQuery(account: "me", accessGroup: group),
            ItemQuery(accessGroup: group, server: "example.com"),
            ItemQuery(accessGroup: group, persistentReference: reference),
            ItemQuery(accessGroup: group),
            ItemQuery(service: "API", account: "ME", accessGroup: group, caseInsensitive: true),
        ]
        let table = try ItemTable(home: keyring.home)
        for _ in 0..<2 {
            for query in queries {
                let (sql, values) = table.selection(matching: query, in: group, hasher: GroupAttributeHasher(group: group, key: table.database.itemLookupKey))
                XCTAssertEqual(sql.filter { $0 == "?" }.count, values.count, sql)
                XCTAssertEqual(try keyring.item(matching: query).secret, Data("found".utf8), sql)
            }
        }
    }

    /// Services and accounts are compared byte for byte, as they are hashed, also once a
    /// query's key hash is remembered (QueriedKeyDigests): Swift's `==` takes a decomposed "é"
    /// for a precomposed one, the keychain does not.
    func testAccountsSwiftTakesForEqualButWhoseBytesDifferEachFindTheirOwnItem() throws {
        let keyring = home.keyring()
        let (precomposed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        XCTAssertEqual(precomposed, decomposed, "one string to Swift's ==")
        try keyring.add(KeychainItem(service: "api", account: precomposed, accessGroup: group, secret: Data("precomposed".utf8)))
        try keyring.add(KeychainItem(service: "api", account: decomposed, accessGroup: group, secret: Data("decomposed".utf8)))

        for _ in 0..<2 {
            XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: precomposed, accessGroup: group)).secret, Data("precomposed".utf8))
            XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: decomposed, accessGroup: group)).secret, Data("decomposed".utf8))
        }
    }

    func testServicesSwiftTakesForEqualButWhoseBytesDifferEachFindTheirOwnItem() throws {
        let keyring = home.keyring()
        let (precomposed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        try keyring.add(KeychainItem(service: precomposed, account: "me", accessGroup: group, secret: Data("precomposed".utf8)))
        try keyring.add(KeychainItem(service: decomposed, account: "me", accessGroup: group, secret: Data("decomposed".utf8)))

        for _ in 0..<2 {
            XCTAssertEqual(try keyring.item(matching: ItemQuery(service: decomposed, account: "me", accessGroup: group)).secret, Data("decomposed".utf8))
            XCTAssertEqual(try keyring.item(matching: ItemQuery(service: precomposed, account: "me", accessGroup: group)).secret, Data("precomposed".utf8))
        }
    }
}
