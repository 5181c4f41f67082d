import Foundation
import GroupSync
import GroupSyncTestKit
import GroupVaultTestKit
import Keyring
import XCTest

/// Machines of one group for sync tests: each a keyring home of its own (as on separate
/// computers), all holding the group's key #1, which the first created and the others imported
/// (the documented enrollment: `keys export` / `keys import`).
final class SyncSandbox: @unchecked Sendable {
    static let group = GroupIdentifier(rawValue: "group.com.example.sync")!
    static let otherGroup = GroupIdentifier(rawValue: "group.com.example.elsewhere")!
    static let storeIdentifier = GroupIdentifier(rawValue: "ABCDE12345.com.example.sync")!

    let directory: TemporaryDirectory
    private(set) var homes: [URL] = []
    private(set) var keyrings: [Keyring] = []
    private let groupKey: Data

    init(machines: Int) throws {
        directory = try TemporaryDirectory(prefix: "sync-test")
        let first = try Self.keyring(at: directory.url.appendingPathComponent("machine-0"))
        _ = try first.groupKey(for: Self.group)
        _ = try first.groupKey(for: Self.otherGroup)
        groupKey = try first.exportKey(id: 1, in: Self.group)
        homes.append(directory.url.appendingPathComponent("machine-0"))
        keyrings.append(first)
        for index in 1..<machines { try addMachine(index) }
    }

    /// A machine that joins: a new home that imports the group's key #1.
    @discardableResult
    func addMachine(_ index: Int? = nil) throws -> Keyring {
        let home = directory.url.appendingPathComponent("machine-\(index ?? homes.count)")
        let keyring = try Self.keyring(at: home)
        _ = try keyring.importKey(groupKey, id: 1, in: Self.group)
        homes.append(home)
        keyrings.append(keyring)
        return keyring
    }

    static func keyring(at home: URL) throws -> Keyring {
        Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.sync", applicationGroups: [group, otherGroup]),
            home: KeyringHome(root: home))
    }

    /// Machine `index`'s store, syncing through `url` (or local only with `nil`).
    func store(_ index: Int, url: String?, group: GroupIdentifier = SyncSandbox.group) throws -> UbiquitousKeyValueStore {
        try Self.store(keyring: keyrings[index], url: url, group: group)
    }

    /// The sandbox's store as `keyring` opens it (a machine's keyring with a logger of a test's,
    /// or a home outside the sandbox's machines), syncing through `url` (or local only with `nil`).
    static func store(keyring: Keyring, url: String?, group: GroupIdentifier = SyncSandbox.group) throws -> UbiquitousKeyValueStore {
        try store(keyring: keyring, configuration: url.map { SyncConfiguration(url: try SyncServerURL($0)) }, group: group)
    }

    /// The sandbox's store as `keyring` opens it, syncing with `configuration` (a test's reconnect
    /// delays, say), or local only with `nil`.
    static func store(keyring: Keyring, configuration: SyncConfiguration?, group: GroupIdentifier = SyncSandbox.group) throws -> UbiquitousKeyValueStore {
        try UbiquitousKeyValueStore(
            group: group, keyring: keyring,
            entitlement: .some(UbiquityKeyValueStoreEntitlement(identifier: storeIdentifier)),
            configuration: .some(configuration))
    }

    /// Machine `index`'s synced records of the sandbox's group, syncing through `url`.
    func records(_ index: Int, url: String) throws -> SyncedRecords {
        try SyncedRecords(group: Self.group, keyring: keyrings[index], configuration: .some(SyncConfiguration(url: try SyncServerURL(url))))
    }

    func remove() { directory.remove() }
}

/// Whether `condition` holds within `limit`, asked every 10 ms: a bound on a wait for another
/// thread or process (a session, the server) to show something, not a measure of how long it
/// took; the assertion on the result decides.
func eventually(within limit: Duration = .seconds(30), _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}

/// The first change `changes` yields (for `reason`, when given); `nil` when none comes within
/// `timeout`, a bound on a test that would otherwise hang: the assertion on the change decides.
func firstChange(
    _ changes: AsyncStream<UbiquitousChange>, reason: UbiquitousChangeReason? = nil, timeout: Duration = .seconds(60)
) async -> UbiquitousChange? {
    await withTaskGroup(of: UbiquitousChange?.self) { group in
        group.addTask {
            for await change in changes where reason == nil || change.reason == reason { return change }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Waits, without polling, until `stream` yields an element for which `done` is true.
func waitForChange(
    _ stream: AsyncStream<UbiquitousChange>,
    timeout: Duration = .seconds(60),
    until done: @Sendable @escaping () -> Bool
) async -> Bool {
    if done() { return true }
    return await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in stream where done() { return true }
            return done()
        }
        group.addTask {
            // A bound on a hung test, not a timing assertion: the check above decides.
            try? await Task.sleep(for: timeout)
            return done()
        }
        let result = await group.next() ?? false
        group.cancelAll()
        return result
    }
}
