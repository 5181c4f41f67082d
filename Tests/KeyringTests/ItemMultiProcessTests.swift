import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// Real child processes writing one group at once: the keyring database's write transactions
/// serialize them, so no add is lost and every secret is one writer's whole value.
final class ItemMultiProcessTests: ItemTestCase {
    private let group = ItemTestHome.shared

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

    // MARK: A writer killed in the middle of a move

    private func moveKilled(at point: String, afterPassing passes: Int) throws -> (status: Int32, errors: String) {
        let arguments = ["move-items"] + identityArguments + ["--target", ItemTestHome.appGroup.rawValue, "--service", "moving"]
        var environment = environment
        environment["GROUPVAULT_FAULT"] = "\(point):terminate:\(passes)"
        let result = try FixtureProcess.run(arguments, environment: environment)
        return (result.status, result.errors)
    }

    /// The move is one transaction: dying after the item was written to the target and before
    /// it left the source leaves it where it was, once (neither lost nor duplicated).
    func testAWriterKilledBetweenTheTwoWritesOfAMoveLeavesTheItemInItsSource() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "moving", account: "me", accessGroup: group, secret: Data("whole".utf8)))
        let child = try moveKilled(at: "item-step", afterPassing: 0)
        XCTAssertEqual(child.status, 137, child.errors)

        let copies = try keyring.items(matching: ItemQuery(service: "moving"))
        XCTAssertEqual(copies.map(\.accessGroup), [group])
        XCTAssertEqual(copies.map(\.secret), [Data("whole".utf8)])
    }

    func testAWriterKilledAtAnyStepOfAMoveNeverLosesTheItem() throws {
        let keyring = home.keyring()
        for point in ["item-step", "item-commit"] {
            for passes in 0...0 {
                _ = try? keyring.delete(matching: ItemQuery(service: "moving"))
                try keyring.add(KeychainItem(service: "moving", account: "me", accessGroup: group, secret: Data("whole".utf8)))
                let child = try moveKilled(at: point, afterPassing: passes)
                XCTAssertEqual(child.status, 137, "killed at \(point) after \(passes): \(child.errors)")

                let copies = try keyring.items(matching: ItemQuery(service: "moving"))
                XCTAssertFalse(copies.isEmpty, "the item was lost when the mover was killed at \(point) after \(passes)")
                XCTAssertTrue(copies.allSatisfy { $0.secret == Data("whole".utf8) }, "killed at \(point) after \(passes)")
            }
        }
    }

    // MARK: A large group

    /// 10,000 items in one group: every one can be found by its key, listed, changed and
    /// deleted (functional only; BENCHMARKS.md measures the cost).
    func testAGroupOfTenThousandItemsWorks() throws {
        let keyring = home.keyring()
        let count = 10_000
        for index in 0..<count {
            try keyring.add(KeychainItem(service: "bulk", account: "a\(index)", accessGroup: group, secret: Data("s\(index)".utf8)))
        }
        for index in stride(from: 0, to: count, by: 997) {
            XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "bulk", account: "a\(index)")).secret, Data("s\(index)".utf8))
        }
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "bulk"), includingSecrets: false).count, count)
        var changes = ItemChanges()
        changes.secret = Data("changed".utf8)
        XCTAssertEqual(try keyring.update(matching: ItemQuery(service: "bulk", account: "a9999"), with: changes), 1)
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "bulk", account: "a9999")).secret, Data("changed".utf8))
        XCTAssertEqual(try keyring.delete(matching: ItemQuery(service: "bulk", account: "a0")), 1)
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "bulk"), includingSecrets: false).count, count - 1)
    }
}
