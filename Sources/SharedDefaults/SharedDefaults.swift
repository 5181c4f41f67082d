import Foundation
import Keyring
import SealedStorage
import Vault

/// `UserDefaults(suiteName:)` for an app group, sealed: small typed settings shared by the
/// processes of a group, which only they can read, and which nobody can silently change or
/// roll back.
///
/// ```swift
/// // App
/// guard let defaults = SharedDefaults(suiteName: "group.com.example.notes") else { return }  // not entitled
/// try defaults.set("dark", forKey: "theme")
/// try defaults.set(30, forKey: "refreshInterval")
///
/// // Widget, another process of the group
/// let theme = defaults.string(forKey: "theme") ?? "light"
/// for await _ in try defaults.changes(forKey: "theme") { render(defaults.string(forKey: "theme")) }
/// ```
///
/// How it is stored, and why:
/// - **One sealed Vault record per key** (`DefaultsEntry`), named by a keyed hash of suite and
///   key (`EntryNaming`). Concurrent writers of different keys, in any processes, never lose
///   each other's writes: each write replaces only its own key's file under that file's lock,
///   with no read-modify-write of a shared suite file. Two writers of one key: the last wins.
/// - **Sealed by Vault under the group's key**, with the group and record name in the
///   additional data and the suite and key inside the sealed entry: an entry moved to another
///   key, suite or group does not open. **Freshness** is Vault's: an older copy of an entry put
///   back is refused as `rollback`, an altered one as `authenticationFailed`, a deleted one
///   (the trust ledger knows it was written) as `missing`.
/// - **Reads come from an in-memory cache** per suite object, filled on first use and kept up
///   to date by the Vault's change notifications (inotify): a warm read is a lock and a
///   dictionary lookup, and a change re-reads only the entries that changed.
///
/// A value written by another process is seen once its change notification has arrived:
/// usually within a millisecond, like `UserDefaults` between processes. Writes of this object
/// are seen by its own reads at once.
///
/// Getters never throw, as in `UserDefaults`: an absent key, or an entry that is refused
/// (tampered with, rolled back, or `missing`: written, then its file deleted outside
/// SharedDefaults), reads as the registered default (or `nil`). Use ``value(forKey:)`` to get
/// the reason an entry is refused, ``entries()`` or ``refusals()`` to find refused entries, and
/// ``Change/refusal`` to be told when an entry's file is deleted.
///
/// A `SharedDefaults` is safe to use from any thread or task. Keep one per suite per process:
/// each holds its cache and one inotify watch.
public final class SharedDefaults: Sendable {
    /// The longest key, in UTF-8 bytes.
    public static let maximumKeyLength = 1024
    /// The largest value, in bytes of its sealed JSON encoding (data counts 4/3 for base64).
    /// Settings are small; large data belongs in a file in the group container, or a Vault record.
    public static let maximumValueSize = 256 * 1024
    /// The largest suite: the sum over its keys of key bytes plus encoded value bytes. Checked
    /// against this process's view when writing, so writers racing in several processes may
    /// together exceed it by at most one value each; reads never refuse a suite for its size.
    public static let maximumSuiteSize = 4 * 1024 * 1024
    /// The longest suite name, in UTF-8 bytes.
    public static let maximumSuiteNameLength = 256

    /// The suite's name.
    public let suiteName: String
    /// The group whose container and keys hold the suite.
    public let group: GroupIdentifier
    /// The vault the suite's entries are records of.
    public let vault: Vault

    let cache: SuiteCache
    private let watch: Task<Void, Never>

    /// The suite named `suiteName`, which must be a group identifier the process identity
    /// (from the environment) is entitled to, or `nil`, like `UserDefaults(suiteName:)` for a
    /// group the app is not entitled to.
    ///
    /// ```swift
    /// let defaults = SharedDefaults(suiteName: "group.com.example.notes")
    /// ```
    ///
    /// Use ``init(validatingSuiteName:keyring:)`` to learn why a suite cannot be opened, and
    /// ``init(suiteName:group:keyring:durability:)`` to keep several suites in one group.
    public convenience init?(suiteName: String) {
        try? self.init(validatingSuiteName: suiteName)
    }

    /// The suite named `suiteName` (a group identifier) for `keyring`'s identity, or `nil` when
    /// it is not entitled to that group or the suite cannot be opened.
    public convenience init?(suiteName: String, keyring: Keyring) {
        try? self.init(validatingSuiteName: suiteName, keyring: keyring)
    }

    /// The suite named `suiteName`, which must be a group identifier the identity is entitled
    /// to, or an error saying why not: the throwing twin of ``init(suiteName:)``, whose `nil`
    /// (Apple's API) cannot say what is wrong.
    ///
    /// ```swift
    /// let defaults = try SharedDefaults(validatingSuiteName: "group.com.example.notes")
    /// let same = try SharedDefaults(validatingSuiteName: "group.com.example.notes", keyring: keyring)
    /// ```
    ///
    /// - Parameters:
    ///   - suiteName: the application group (Apple's rule for a group's suite).
    ///   - keyring: the identity and home to use; `nil` (the default) reads both from
    ///     the environment, as ``init(suiteName:)`` does (`Keyring.fromEnvironment(_:)`).
    /// - Throws: ``SharedDefaultsError/Code/missingEntitlement`` when no identity is configured
    ///   or it is not entitled to the group; ``SharedDefaultsError/Code/invalidSuiteName`` when
    ///   `suiteName` is not a group identifier (use ``init(suiteName:group:keyring:durability:)``
    ///   for suites of other names in a group); ``SharedDefaultsError/Code/storage``.
    public convenience init(validatingSuiteName suiteName: String, keyring: Keyring? = nil) throws(SharedDefaultsError) {
        let resolved: Keyring
        if let keyring {
            resolved = keyring
        } else {
            do {
                resolved = try Keyring.fromEnvironment()
            } catch where error.status == .missingEntitlement {
                throw SharedDefaultsError(.missingEntitlement, error.reason)
            } catch {
                throw SharedDefaultsError(.storage, "could not open the process keyring for suite \"\(printable(suiteName))\": \(error.reason)", underlyingError: error, remedy: error.remedy)
            }
        }
        let group: GroupIdentifier
        do {
            group = try GroupIdentifier(validating: suiteName)
        } catch {
            throw SharedDefaultsError(.invalidSuiteName, "suite \"\(printable(suiteName))\" opened by name alone must be an application group identifier: \(error.reason); for another suite name in a group, use SharedDefaults(suiteName:group:keyring:)")
        }
        try self.init(suiteName: suiteName, group: group, keyring: resolved)
    }

    /// Opens the suite `suiteName` in `group`, for `keyring`'s identity.
    ///
    /// ```swift
    /// let widgetSettings = try SharedDefaults(suiteName: "widget", group: group, keyring: keyring)
    /// ```
    ///
    /// The change watch starts here, so this object sees every later write of any process.
    /// - Parameters:
    ///   - suiteName: the suite's name within the group.
    ///   - group: the application group whose container and keys hold the suite.
    ///   - keyring: the identity, which must be entitled to `group`.
    ///   - durability: of each write; `WriteDurability.full` (default) survives a
    ///     power loss once `set` returns. With `WriteDurability.atomic` a crash can bring an
    ///     entry back to its previous version, which readers then refuse as a rollback until it
    ///     is written again.
    /// - Throws: ``SharedDefaultsError/Code/invalidSuiteName``,
    ///   ``SharedDefaultsError/Code/missingEntitlement`` (not entitled to `group` as an
    ///   application group and a keychain access group), ``SharedDefaultsError/Code/storage``.
    public init(suiteName: String, group: GroupIdentifier, keyring: Keyring, durability: WriteDurability = .full) throws(SharedDefaultsError) {
        let length = suiteName.utf8.count
        guard length > 0, length <= Self.maximumSuiteNameLength else {
            throw SharedDefaultsError(.invalidSuiteName, "a suite name is 1 to \(Self.maximumSuiteNameLength) bytes; this one is \(length)")
        }
        let vault: Vault
        do {
            vault = try Vault(keyring: keyring, group: group, durability: durability)
        } catch where error.code == .missingEntitlement {
            throw SharedDefaultsError(.missingEntitlement, error.reason, vaultError: error)
        } catch {
            throw SharedDefaultsError(.storage, "could not open the vault of \(group) for suite \"\(printable(suiteName))\": \(error.reason)", vaultError: error)
        }
        let namingKey = try EntryNaming.namingKey(keyring: keyring, group: group, vault: vault)
        let cache = SuiteCache(vault: vault, naming: EntryNaming(key: namingKey, suite: suiteName), suite: suiteName)
        let changes: AsyncStream<VaultChange>
        do {
            changes = try vault.changes()
        } catch {
            throw SharedDefaultsError(.storage, "could not watch suite \"\(printable(suiteName))\" of \(group) for changes: \(error.reason)", vaultError: error)
        }
        self.suiteName = suiteName
        self.group = group
        self.vault = vault
        self.cache = cache
        // Holds the cache, not self: dropping the last reference to the suite cancels the task,
        // which ends the stream and closes the inotify descriptor.
        self.watch = Task { [cache] in
            for await change in changes {
                cache.note(change)
            }
        }
    }

    deinit {
        watch.cancel()
    }

    // MARK: Reading

    /// The value of `key`, the registered default when there is none, or `nil`; throws when
    /// the key's entry is present but refused, with the Vault's reason.
    ///
    /// ```swift
    /// do { let theme = try defaults.value(forKey: "theme") }
    /// catch where error.vaultError?.code == .rollback { alertTampering() }
    /// ```
    /// - Throws: ``SharedDefaultsError/Code/refused`` (``SharedDefaultsError/vaultError`` says
    ///   why: `rollback`, `authenticationFailed`, `retiredKey`, `missing` when the entry was
    ///   written and its file has since been deleted outside SharedDefaults, ...), or
    ///   ``SharedDefaultsError/Code/storage`` when the suite cannot be listed.
    public func value(forKey key: String) throws(SharedDefaultsError) -> Value? {
        let record = cache.naming.recordName(forKey: key)
        return try cache.withFreshState { (state: inout SuiteCache.State) throws(SharedDefaultsError) -> Value? in
            if let value = state.entries[key] { return value }
            if let refusal = state.refusals[key] ?? state.refusedRecords[record] {
                throw SharedDefaultsError(.refused, "the entry of \"\(printable(key))\" in suite \"\(printable(suiteName))\" was refused: \(refusal.reason)", vaultError: refusal)
            }
            return state.registered[key]
        }
    }

    /// The value of `key` or its registered default; `nil` when absent, refused, or the
    /// suite cannot be read. The non-throwing read every typed getter uses.
    public func propertyListValue(forKey key: String) -> Value? {
        (try? cache.withFreshState { (state: inout SuiteCache.State) -> Value? in
            state.entries[key] ?? state.registered[key]
        }) ?? nil
    }

    /// The keys that have a value, registered defaults included, with their values, as
    /// `UserDefaults.dictionaryRepresentation()`. Refused entries (`missing` ones included)
    /// are left out: ``entries()`` and ``refusals()`` list them with their reasons.
    public func dictionaryRepresentation() -> [String: Any] {
        values().mapValues(\.foundationValue)
    }

    /// Like ``dictionaryRepresentation()``, as ``Value``s.
    public func values() -> [String: Value] {
        (try? cache.withFreshState { (state: inout SuiteCache.State) -> [String: Value] in
            state.registered.merging(state.entries) { _, stored in stored }
        }) ?? [:]
    }

    /// The keys whose entries are refused, with the Vault's reasons: what
    /// `vaultcli defaults list` reports and what a health check should alert on. Entries
    /// refused before this process ever opened them are listed under their record names.
    /// An entry whose file was deleted outside SharedDefaults is here as `missing`.
    public func refusals() throws(SharedDefaultsError) -> [String: VaultError] {
        try cache.withFreshState { (state: inout SuiteCache.State) -> [String: VaultError] in
            state.refusals.merging(state.refusedRecords) { key, _ in key }
        }
    }

    /// Every stored entry of the suite with its state, sorted by record name: values and
    /// refusals in one listing, for tools (`vaultcli defaults list`) and health checks.
    ///
    /// ```swift
    /// for entry in try defaults.entries() {
    ///     switch entry.state {
    ///     case .value(let value): print(entry.key ?? entry.recordName, value)
    ///     case .refused(let error): print(entry.key ?? entry.recordName, "refused:", error.code)  // e.g. missing
    ///     }
    /// }
    /// ```
    ///
    /// Registered defaults are not entries and are not listed; removed keys are not listed.
    /// - Throws: ``SharedDefaultsError/Code/storage`` when the suite or the trust ledger
    ///   cannot be listed.
    public func entries() throws(SharedDefaultsError) -> [EntryListing] {
        try cache.withFreshState { (state: inout SuiteCache.State) -> [EntryListing] in
            var listings: [EntryListing] = []
            let recordOfKey = Dictionary(state.keys.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            for (key, value) in state.entries {
                listings.append(EntryListing(key: key, recordName: recordOfKey[key] ?? cache.naming.recordName(forKey: key), state: .value(value)))
            }
            for (key, error) in state.refusals {
                listings.append(EntryListing(key: key, recordName: recordOfKey[key] ?? cache.naming.recordName(forKey: key), state: .refused(error)))
            }
            for (record, error) in state.refusedRecords {
                listings.append(EntryListing(key: nil, recordName: record, state: .refused(error)))
            }
            return listings.sorted { $0.recordName < $1.recordName }
        }
    }

    /// Forgets this process's view and reads the suite again on next use: for a caller that
    /// wants to re-check every entry (e.g. after the keyring's lock state changed).
    public func reload() {
        cache.state.withLock { $0.needsReload = true }
    }

    /// The Vault record that holds `key`'s entry (for tests and tools that inspect files).
    package func recordName(forKey key: String) -> String {
        cache.naming.recordName(forKey: key)
    }

    /// How many entries this object has read from disk so far (tests: a warm read reads none).
    package var entryReadCount: Int { cache.entryReads.load(ordering: .relaxed) }

    // MARK: Registration

    /// Sets process-local defaults, returned for keys with no stored value (as in
    /// `UserDefaults`: never stored, never seen by other processes).
    /// - Throws: ``SharedDefaultsError/Code/unsupportedValue`` naming the first key whose
    ///   value is not a property-list value; nothing is registered then.
    public func register(defaults: [String: Any]) throws(SharedDefaultsError) {
        var converted: [String: Value] = [:]
        for (key, any) in defaults {
            converted[key] = try Self.propertyListValue(any, forKey: key)
        }
        register(values: converted)
    }

    /// ``register(defaults:)`` for ``Value``s.
    public func register(values: [String: Value]) {
        cache.state.withLock { $0.registered.merge(values) { _, new in new } }
    }

    static func propertyListValue(_ any: Any, forKey key: String) throws(SharedDefaultsError) -> Value {
        guard let value = Value(any) else {
            throw SharedDefaultsError(.unsupportedValue, "the value for \"\(printable(key))\" is a \(type(of: any)), which is not a property-list value (Bool, integers, Double, Float, String, Data, Date, URL, arrays and [String: Any] of them, nesting at most \(Value.maximumDepth) deep)")
        }
        return value
    }
}

/// How keys and suite names appear in messages: escaped and truncated, so a hostile key cannot
/// forge log lines.
func printable(_ text: String) -> String {
    UntrustedText.printable(text, limit: 80)
}
