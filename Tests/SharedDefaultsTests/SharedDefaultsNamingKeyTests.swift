import Foundation
import Keyring
import SharedDefaults
import XCTest

/// The record naming key (a keychain item of the group) names every entry of every suite. A
/// process that found it gone minted a new one: every stored key then read as never set, the
/// whole group's settings reset at once without a refusal. Once the group has entries, the
/// naming key is not minted again.
final class SharedDefaultsNamingKeyTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    private var namingKeyQuery: ItemQuery {
        ItemQuery(service: "org.groupvault.shared-defaults", account: "record-naming-key", accessGroup: DefaultsSandbox.group)
    }

    func testASuiteWhoseNamingKeyItemWasRemovedIsRefusedNotReset() throws {
        try sandbox.defaults().set("pro", forKey: "plan")
        XCTAssertEqual(try sandbox.keyring.delete(matching: namingKeyQuery), 1)

        let keyring = sandbox.keyring
        assertRefused(.storage) { () throws(SharedDefaultsError) in
            try SharedDefaults(suiteName: DefaultsSandbox.group.rawValue, group: DefaultsSandbox.group, keyring: keyring)
        }
        XCTAssertThrowsError(try sandbox.keyring.item(matching: namingKeyQuery), "no new naming key was minted")
    }

    func testTheFirstSuiteOfAGroupMintsTheNamingKey() throws {
        try sandbox.defaults().set("pro", forKey: "plan")
        XCTAssertEqual(try sandbox.keyring.item(matching: namingKeyQuery).secret.count, 32)
        XCTAssertEqual(try sandbox.defaults().string(forKey: "plan"), "pro")
    }
}
