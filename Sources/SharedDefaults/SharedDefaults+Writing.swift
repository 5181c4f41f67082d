import Foundation
import Vault

extension SharedDefaults {
    /// Stores `value` for `key` (a property-list value, or `nil` to remove the key), sealed,
    /// as one atomic replacement of the key's own entry.
    ///
    /// ```swift
    /// try defaults.set(["dark", "light"], forKey: "themes")
    /// try defaults.set(Date(), forKey: "lastRefresh")
    /// ```
    ///
    /// Unlike `UserDefaults.set(_:forKey:)`, which traps on a value it cannot store, this throws.
    /// - Throws: ``SharedDefaultsError/Code/invalidKey``, ``SharedDefaultsError/Code/unsupportedValue``,
    ///   ``SharedDefaultsError/Code/valueTooLarge``, ``SharedDefaultsError/Code/suiteFull``,
    ///   ``SharedDefaultsError/Code/storage`` (nothing was stored, or the Vault's `notDurable`:
    ///   stored and visible, not yet durable).
    public func set(_ value: Any?, forKey key: String) throws(SharedDefaultsError) {
        guard let value else {
            try removeObject(forKey: key)
            return
        }
        try set(try Self.propertyListValue(value, forKey: key), forKey: key)
    }

    /// Stores a ``Value``; see ``set(_:forKey:)-(Any?,_)``.
    public func set(_ value: Value, forKey key: String) throws(SharedDefaultsError) {
        try Self.checkKey(key)
        try Self.check(value, forKey: key)
        let size = SuiteCache.encodedSize(key: key, value: value)
        guard size - key.utf8.count <= Self.maximumValueSize else {
            throw SharedDefaultsError(.valueTooLarge, "the value for \"\(printable(key))\" encodes to \(size - key.utf8.count) bytes, over the \(Self.maximumValueSize)-byte limit; keep large data in a file in the group container")
        }
        let record = cache.naming.recordName(forKey: key)
        let entry = DefaultsEntry(suite: suiteName, key: key, value: value)
        try cache.withLoadedState { (state: inout SuiteCache.State) throws(SharedDefaultsError) in
            let total = state.totalSize - (state.sizes[key] ?? 0) + size
            guard total <= Self.maximumSuiteSize else {
                throw SharedDefaultsError(.suiteFull, "storing \"\(printable(key))\" would make suite \"\(printable(suiteName))\" \(total) bytes, over the \(Self.maximumSuiteSize)-byte limit; remove keys or keep large data in files")
            }
            // Under the cache's lock: two threads of this process setting one key leave the
            // cache holding what the file holds.
            do throws(VaultError) {
                try vault.write(entry, to: record)
            } catch where error.code == .notDurable {
                state.apply(.value(entry, size: size), record: record)
                throw SharedDefaultsError(.storage, "\"\(printable(key))\" was stored and is visible, but not yet durable: \(error.reason)", vaultError: error)
            } catch {
                throw SharedDefaultsError(.storage, "could not store \"\(printable(key))\" in suite \"\(printable(suiteName))\": \(error.reason)", vaultError: error)
            }
            state.apply(.value(entry, size: size), record: record)
        }
    }

    /// Stores a `Bool`.
    public func set(_ value: Bool, forKey key: String) throws(SharedDefaultsError) { try set(Value.bool(value), forKey: key) }
    /// Stores an `Int`.
    public func set(_ value: Int, forKey key: String) throws(SharedDefaultsError) { try set(Value.integer(value), forKey: key) }
    /// Stores a `Double`.
    public func set(_ value: Double, forKey key: String) throws(SharedDefaultsError) { try set(Value.real(value), forKey: key) }
    /// Stores a `Float` (as a real).
    public func set(_ value: Float, forKey key: String) throws(SharedDefaultsError) { try set(Value.real(Double(value)), forKey: key) }
    /// Stores a URL (absolute), or removes the key for `nil`.
    public func set(_ url: URL?, forKey key: String) throws(SharedDefaultsError) {
        guard let url else { return try removeObject(forKey: key) }
        try set(Value.url(url), forKey: key)
    }

    /// Removes the stored value of `key` (its registered default, if any, shows again).
    ///
    /// The entry is replaced by a sealed tombstone, not unlinked: a removed value put back
    /// by someone with access to the container is refused as a rollback.
    /// - Throws: ``SharedDefaultsError/Code/invalidKey``, ``SharedDefaultsError/Code/storage``.
    public func removeObject(forKey key: String) throws(SharedDefaultsError) {
        try Self.checkKey(key)
        let record = cache.naming.recordName(forKey: key)
        try cache.withLoadedState { (state: inout SuiteCache.State) throws(SharedDefaultsError) in
            // A key this process never saw may still have an entry (refused here, or written
            // by a process whose notification has not arrived): the tombstone is written anyway.
            state.keys[record] = key
            do throws(VaultError) {
                try vault.delete(record)
            } catch where error.code == .notDurable {
                state.apply(.absent, record: record)
                throw SharedDefaultsError(.storage, "\"\(printable(key))\" was removed, but not yet durably: \(error.reason)", vaultError: error)
            } catch {
                throw SharedDefaultsError(.storage, "could not remove \"\(printable(key))\" from suite \"\(printable(suiteName))\": \(error.reason)", vaultError: error)
            }
            state.apply(.absent, record: record)
        }
    }

    // MARK: Checks

    static func checkKey(_ key: String) throws(SharedDefaultsError) {
        let length = key.utf8.count
        guard length > 0, length <= maximumKeyLength else {
            throw SharedDefaultsError(.invalidKey, "a key is 1 to \(maximumKeyLength) bytes of UTF-8; this one is \(length)")
        }
    }

    /// Refuses what a property list cannot hold, or what would not read back as written.
    static func check(_ value: Value, forKey key: String) throws(SharedDefaultsError) {
        guard value.depth <= Value.maximumDepth else {
            throw SharedDefaultsError(.unsupportedValue, "the value for \"\(printable(key))\" nests \(value.depth) levels deep, over the limit of \(Value.maximumDepth)")
        }
        if let problem = problem(in: value) {
            throw SharedDefaultsError(.unsupportedValue, "the value for \"\(printable(key))\" \(problem)")
        }
    }

    private static func problem(in value: Value) -> String? {
        switch value {
        case .date(let date) where !date.timeIntervalSinceReferenceDate.isFinite:
            return "holds a date that is not a finite time"
        case .url(let url) where url.scheme == nil:
            return "holds a relative URL (\"\(printable(url.relativeString))\"); store an absolute URL or a string"
        case .array(let values):
            return values.lazy.compactMap(problem(in:)).first
        case .dictionary(let values):
            return values.values.lazy.compactMap(problem(in:)).first
        default:
            return nil
        }
    }
}
