import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// Real child processes writing one group at once: the cross-process lock serializes them,
/// so no add is lost and every secret is one writer's whole value.
final class ItemMultiProcessTests: XCTestCase {
    private var home: ItemTestHome!
    private let group = ItemTestHome.shared

    override func setUpWithError() throws {
        home = try ItemTestHome()
    }

    override func tearDown() {
        home.remove()
    }

    private var environment: [String: String] { ["GROUPVAULT_HOME": home.home.root.path] }

    private var identityArguments: [String] { ["--team", ItemTestHome.team, "--group", group.rawValue] }

    /// Starts every child before waiting for any, so they really run at once.
    private func runConcurrently(_ argumentLists: [[String]]) throws {
        let children = try argumentLists.map { try FixtureProcess($0, environment: environment) }
        for (child, arguments) in zip(children, argumentLists) {
            let status = child.wait()
            XCTAssertEqual(status, 0, "\(arguments.joined(separator: " ")) failed: \(child.standardError)")
        }
    }

    func testConcurrentAddsFromFourProcessesLoseNothing() throws {
        let prefixes = (1...4).map { "p\($0)" }
        try runConcurrently(prefixes.map { ["add-items"] + identityArguments + ["--prefix", $0, "--count", "50"] })

        let stored = try home.keyring().items(matching: ItemQuery(service: "fixture", accessGroup: group))
        let expected = Set(prefixes.flatMap { prefix in (0..<50).map { "\(prefix)-\($0)" } })
        XCTAssertEqual(stored.count, 200)
        XCTAssertEqual(Set(stored.compactMap(\.account)), expected)
        for item in stored {
            XCTAssertEqual(item.secret, Data((item.account ?? "").utf8), "secret of \(item.account ?? "?")")
        }
    }

    func testConcurrentSecretUpdatesEndWithOneWholeValue() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "shared", account: "token", accessGroup: group, secret: Data("initial".utf8)))
        let writers = (1...4).map { "writer\($0)-" }
        try runConcurrently(writers.map { value in
            ["set-secret"] + identityArguments + ["--service", "shared", "--account", "token", "--value", value, "--repeat", "4000", "--times", "10"]
        })

        let final = try keyring.item(matching: ItemQuery(service: "shared", account: "token", accessGroup: group))
        let wholeValues = Set(writers.map { Data(String(repeating: $0, count: 4000).utf8) })
        XCTAssertTrue(wholeValues.contains(final.secret), "final secret (\(final.secret.count) bytes) is not one writer's whole value")
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "shared", accessGroup: group)).count, 1)
    }
}
