#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import Logging
import GroupSyncCore

/// `NSUbiquitousKeyValueStore` for a Linux app group: a small key-value store that every
/// machine of the group sees, through a PostgreSQL server that holds only sealed entries
/// (docs/SYNC.md).
///
/// Reads and writes are local and never wait for the network; a session started with
/// ``start()`` pushes writes and receives other machines' through `LISTEN`/`NOTIFY`. Without a
/// server the store works locally and keeps its writes until one is configured.
///
/// ```swift
/// let store = try UbiquitousKeyValueStore(group: GroupIdentifier(validating: "group.com.example.notes"), keyring: keyring)
/// store.start()
/// store.set("dark", forKey: "theme")
/// for await change in store.externalChanges() where change.reason == .serverChange {
///     print(change.changedKeys)
/// }
/// ```
public final class UbiquitousKeyValueStore: Sendable {
    /// The store's identifier (the entitlement's value, expanded).
    public let identifier: GroupIdentifier
    /// The configuration, when the store syncs.
    public let configuration: SyncConfiguration?
    let replica: SyncReplica
    private let session: SyncSession?

    /// Opens the store named by `entitlement`, sealed under `group`'s key with its local state
    /// in `group`'s container; `configuration` (default: `GROUPVAULT_SYNC_URL`, if set) names the server.
    ///
    /// - Parameters:
    ///   - group: the group whose key seals the entries and whose container keeps local state.
    ///   - keyring: the identity, entitled to `group`.
    ///   - entitlement: the process's `com.apple.developer.ubiquity-kvstore-identifier`
    ///     (default: read from `GROUPVAULT_ENTITLEMENTS`).
    ///   - configuration: the server (default: `GROUPVAULT_SYNC_URL`, if set; `.some(nil)` for
    ///     none).
    /// - Throws: `SyncError.Code.missingEntitlement` when there is none, saying how to add it;
    ///   `SyncError.Code.keyring` when key #1 of the group is missing; `SyncError.Code.storage`;
    ///   `SyncError.Code.configuration` for an invalid `GROUPVAULT_SYNC_URL`.
    public init(
        group: GroupIdentifier,
        keyring: Keyring,
        entitlement: UbiquityKeyValueStoreEntitlement?? = nil,
        configuration: SyncConfiguration?? = nil
    ) throws(SyncError) {
        let resolved: UbiquityKeyValueStoreEntitlement?
        if let entitlement {
            resolved = entitlement
        } else {
            do {
                resolved = try UbiquityKeyValueStoreEntitlement.fromEnvironment()
            } catch {
                throw SyncError(.missingEntitlement, "the entitlements cannot be read: \(error.reason)", underlyingError: error)
            }
        }
        guard let resolved else {
            throw SyncError(.missingEntitlement, "this process has no \(UbiquityKeyValueStoreEntitlement.key) entitlement, so it may not use a ubiquitous key-value store: add <key>\(UbiquityKeyValueStoreEntitlement.key)</key><string>$(TeamIdentifierPrefix)\(group.name)</string> to its .entitlements file (the same string in every target that shares the store)")
        }
        identifier = resolved.identifier
        let server: SyncConfiguration?
        if let configuration {
            server = configuration
        } else {
            server = try SyncConfiguration.fromEnvironment()
        }
        let replica = try SyncReplica(group: group, store: "kvstore:" + resolved.identifier.rawValue, keyring: keyring, policy: .lastWriterWins, contents: .keyValueStore)
        self.configuration = server
        self.replica = replica
        session = server.map { SyncSession(replica: replica, configuration: $0) }
    }

    // MARK: Syncing

    /// Starts syncing in the background (no effect without a configuration, or when started).
    public func start() { session?.start() }

    /// Stops syncing and closes the connection; local reads and writes go on.
    public func stop() async { await session?.stop() }

    /// As Apple's: makes sure the in-memory values are durable (they are, each write is written
    /// through before it returns) and has the store exchange with the server soon, starting the
    /// session as ``start()`` does when it is not running: Apple's store always syncs, and code
    /// written for it calls `synchronize()` at launch, never a `start()`. Returns `true`; it
    /// never waits for the network.
    @discardableResult
    public func synchronize() -> Bool {
        session?.start()
        replica.wakeSession()
        return true
    }

    /// One exchange with the server now, on a connection of its own (`vaultcli sync now`):
    /// pull, then push every pending write.
    /// - Throws: `SyncError.Code.configuration` without a server; `SyncError.Code.server`.
    public func synchronizeWithServer() async throws(SyncError) {
        try await OneShotExchange.run(replica, configuration: configuration, connectionID: 2) { server throws(SyncError) in
            try await SyncRound.run(replica, on: server)
        }
    }

    /// Reads every entry the server holds for the store, whatever its change number, and
    /// compares each with the value this machine accepted: finds a row the server dropped, or
    /// an older one it put back below every machine's cursor, which a catch-up never reads
    /// and a write finds only for its own key. What it finds is refused and counted, as a
    /// catch-up's refusals are, and a dropped or older row is written back with the value this
    /// machine accepted (docs/SYNC.md, section 6, "Verifying the server").
    ///
    /// One exchange on a connection of its own, as ``synchronizeWithServer()``; the store's
    /// pending writes are pushed too. It reads the whole store from the server: run it now and
    /// then, not on every change. A running session does so on its own, once per
    /// ``SyncConfiguration/verificationInterval`` (a day unless set).
    /// - Throws: as ``synchronizeWithServer()``.
    public func verifyWithServer() async throws(SyncError) -> SyncVerification {
        try await OneShotExchange.run(replica, configuration: configuration, connectionID: 2) { server throws(SyncError) in
            try await VerificationRound.run(replica, on: server)
        }
    }

    /// Where the store stands.
    public var status: SyncStatus {
        SyncStatus(replica: replica, session: session, server: configuration?.url.redacted)
    }

    /// Changes that came from elsewhere (`NSUbiquitousKeyValueStoreDidChangeExternallyNotification`),
    /// with Apple's reasons and the changed keys: other machines' writes, and the writes of
    /// other processes of this home to the same store (as `serverChange`). Each call returns a
    /// new stream.
    public func externalChanges() -> AsyncStream<UbiquitousChange> { replica.changes() }

    // MARK: Reading

    /// The value for `key`, or `nil`.
    public func object(forKey key: String) -> UbiquitousValue? {
        replica.value(forKey: key).flatMap(UbiquitousValue.decoded)
    }

    /// The string for `key`, `nil` when absent or of another type.
    public func string(forKey key: String) -> String? {
        if case .string(let value)? = object(forKey: key) { return value }
        return nil
    }

    /// The data for `key`, `nil` when absent or of another type.
    public func data(forKey key: String) -> Data? {
        if case .data(let value)? = object(forKey: key) { return value }
        return nil
    }

    /// The array for `key`, `nil` when absent or of another type.
    public func array(forKey key: String) -> [UbiquitousValue]? {
        if case .array(let value)? = object(forKey: key) { return value }
        return nil
    }

    /// The dictionary for `key`, `nil` when absent or of another type.
    public func dictionary(forKey key: String) -> [String: UbiquitousValue]? {
        if case .dictionary(let value)? = object(forKey: key) { return value }
        return nil
    }

    /// The integer for `key`; 0 when absent or not a number (as Apple's).
    public func longLong(forKey key: String) -> Int64 {
        switch object(forKey: key) {
        case .int(let value)?: value
        case .double(let value)? where value.isFinite && value.magnitude < 9.2e18: Int64(value)
        case .bool(let value)?: value ? 1 : 0
        default: 0
        }
    }

    /// The number for `key`; 0 when absent or not a number (as Apple's).
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .double(let value)?: value
        case .int(let value)?: Double(value)
        case .bool(let value)?: value ? 1 : 0
        default: 0
        }
    }

    /// The Boolean for `key`; `false` when absent or not a number (as Apple's).
    public func bool(forKey key: String) -> Bool {
        switch object(forKey: key) {
        case .bool(let value)?: value
        case .int(let value)?: value != 0
        case .double(let value)?: value != 0
        default: false
        }
    }

    /// Every key and value.
    public var dictionaryRepresentation: [String: UbiquitousValue] {
        replica.values().compactMapValues(UbiquitousValue.decoded)
    }

    // MARK: Writing

    /// Sets (or, with `nil`, removes) the value for `key`, refusing a write that breaks a limit.
    /// A store that other machines' writes took over a limit (docs/SYNC.md, "Quota") keeps the
    /// writes that add neither a key nor bytes, so that its values can be removed or shortened.
    /// - Throws: `SyncError.Code.quota` naming the limit; `SyncError.Code.storage` when the
    ///   write could not be made durable (then it was not kept).
    public func setValue(_ value: UbiquitousValue?, forKey key: String) throws(SyncError) {
        let bytes = try value?.encoded()
        try replica.write(key: key, value: bytes) { values, written, replaced throws(SyncError) in
            try UbiquitousStoreLimits.check(values, writing: key, written, replacing: replaced)
        }
    }

    /// Apple's setters: they do not throw. A write that is not kept is logged through the
    /// keyring's logger at `.info` with its reason; one that breaks a limit is also reported by
    /// ``externalChanges()`` as a ``UbiquitousChangeReason/quotaViolationChange``, and only such a
    /// one (a write that could not be made durable is no quota violation: an app answering one
    /// would remove values for nothing). ``setValue(_:forKey:)`` throws either.
    public func set(_ value: UbiquitousValue?, forKey key: String) {
        do {
            try setValue(value, forKey: key)
        } catch {
            // The caller cannot be told: the log is where the reason shows.
            replica.keyring.logger.info("ubiquitous key-value store write not kept", metadata: [
                "store": "\(identifier)", "key": "\(key)", "code": "\(error.code)", "reason": "\(error.reason)",
            ])
            if error.code == .quota { replica.reportQuotaViolation(keys: [key]) }
        }
    }

    /// Sets a string.
    public func set(_ value: String?, forKey key: String) { set(value.map(UbiquitousValue.string), forKey: key) }
    /// Sets data.
    public func set(_ value: Data?, forKey key: String) { set(value.map(UbiquitousValue.data), forKey: key) }
    /// Sets an array.
    public func set(_ value: [UbiquitousValue]?, forKey key: String) { set(value.map(UbiquitousValue.array), forKey: key) }
    /// Sets a dictionary.
    public func set(_ value: [String: UbiquitousValue]?, forKey key: String) { set(value.map(UbiquitousValue.dictionary), forKey: key) }
    /// Sets an integer.
    public func set(_ value: Int64, forKey key: String) { set(UbiquitousValue.int(value), forKey: key) }
    /// Sets a number.
    public func set(_ value: Double, forKey key: String) { set(UbiquitousValue.double(value), forKey: key) }
    /// Sets a Boolean.
    public func set(_ value: Bool, forKey key: String) { set(UbiquitousValue.bool(value), forKey: key) }

    /// Removes the value for `key`.
    public func removeObject(forKey key: String) { set(nil as UbiquitousValue?, forKey: key) }
}
