import Foundation
@testable import Keyring
import XCTest

/// TextAttribute is the one table of text attributes; its plain reads (used for matching) must
/// read the same field as its key paths (used for limits, updates and messages).
final class TextAttributeTests: XCTestCase {
    func testEachPlainReadReadsTheFieldOfItsKeyPath() {
        var item = KeychainItem(secret: Data())
        for (index, attribute) in TextAttribute.all.enumerated() {
            item[keyPath: attribute.item] = "value \(index)"
        }
        let query = ItemQuery(matchingTextOf: item)

        for (index, attribute) in TextAttribute.all.enumerated() {
            XCTAssertEqual(attribute.readItem(item), "value \(index)", attribute.name)
            XCTAssertEqual(attribute.readQuery(query), "value \(index)", attribute.name)
            XCTAssertEqual(query[keyPath: attribute.query], "value \(index)", attribute.name)
        }
    }
}

private extension ItemQuery {
    /// A query giving every text attribute of `item`, each set by name (ItemQuery's key paths
    /// are read-only), so the table's key paths are checked too.
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
