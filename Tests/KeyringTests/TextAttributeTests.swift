import Foundation
@testable import Keyring
import XCTest

/// TextAttribute is the one table of text attributes: matching, limits, updates and messages
/// all go through its reads and writes, so each attribute must read and write its own field of
/// an item, a query and a change set, and no other.
final class TextAttributeTests: XCTestCase {
    /// An item with every text attribute set through the table, each to its own value: if two
    /// attributes wrote one field, the later write would show in the earlier one's read.
    private var item: KeychainItem {
        var item = KeychainItem(secret: Data())
        for (index, attribute) in TextAttribute.all.enumerated() {
            attribute.writeItem(&item, "value \(index)")
        }
        return item
    }

    func testEachAttributeReadsWhatItWroteToAnItem() {
        let item = item
        for (index, attribute) in TextAttribute.all.enumerated() {
            XCTAssertEqual(attribute.readItem(item), "value \(index)", attribute.name)
        }
    }

    func testEachAttributeReadsTheSameFieldOfAQueryAsOfAnItem() {
        let query = ItemQuery(matchingTextOf: item)

        for (index, attribute) in TextAttribute.all.enumerated() {
            XCTAssertEqual(attribute.readQuery(query), "value \(index)", attribute.name)
        }
    }

    func testEachAttributeReadsTheSameFieldOfAChangeSetAsOfAnItem() {
        let changes = ItemChanges(settingTextOf: item)

        for (index, attribute) in TextAttribute.all.enumerated() {
            XCTAssertEqual(attribute.readChange(changes), .some("value \(index)"), attribute.name)
        }
    }

    func testClearingAnAttributeOfAnItemClearsOnlyIt() {
        var item = item
        let service = TextAttribute.all[0]

        service.writeItem(&item, nil)

        XCTAssertNil(item.service)
        XCTAssertEqual(item.account, "value 1")
    }
}

private extension ItemQuery {
    /// A query giving every text attribute of `item`, each set by name, so the table's reads
    /// are checked against the fields they claim.
    init(matchingTextOf item: KeychainItem) {
        self.init()
        service = item.service
        account = item.account
        label = item.label
        itemDescription = item.itemDescription
        comment = item.comment
        server = item.server
        self.protocol = item.protocol
        path = item.path
        authenticationType = item.authenticationType
        securityDomain = item.securityDomain
    }
}

private extension ItemChanges {
    /// A change set setting every text attribute of `item`, each by name.
    init(settingTextOf item: KeychainItem) {
        self.init()
        service = item.service
        account = item.account
        label = item.label
        itemDescription = item.itemDescription
        comment = item.comment
        server = item.server
        self.protocol = item.protocol
        path = item.path
        authenticationType = item.authenticationType
        securityDomain = item.securityDomain
    }
}
