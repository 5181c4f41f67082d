import Vault

extension SharedDefaults {
    /// A change to a suite, as ``changes()`` and ``changes(forKey:)`` report it: "re-read".
    public struct Change: Sendable, Hashable, CustomStringConvertible {
        /// The key whose entry was written or removed; `nil` when changes were lost (the kernel
        /// queue overflowed) or concern an entry whose key this process cannot read: re-read
        /// whatever you depend on.
        public var key: String?
        /// For a change that removed the entry's file: why the entry now reads as refused
        /// (`missing`: the trust ledger knows it was written). SharedDefaults never removes a
        /// file (``removeObject(forKey:)`` seals a tombstone over it, a change with no
        /// refusal), so this is tampering to alert on, not a removal; the key reads as its
        /// registered default meanwhile, and ``value(forKey:)`` throws the same reason.
        ///
        /// `nil` for a change that wrote the file: re-read; an entry replaced by a refused one
        /// (rolled back, tampered with) is reported by ``value(forKey:)``. Only removals are
        /// read ahead here, so that a write is read once, by the reader that wants it.
        public var refusal: VaultError?

        /// A change to `key` (`nil`: to anything), refused for `refusal` if given.
        public init(key: String?, refusal: VaultError? = nil) {
            self.key = key
            self.refusal = refusal
        }

        /// The key, or `*`, and the refusal's code if any: `theme`, `theme refused: missing`.
        public var description: String {
            (key.map(printable) ?? "*") + (refusal.map { " refused: \($0.code)" } ?? "")
        }

        /// Hashes the key and the refusal's code (`VaultError` is not `Hashable`; equal changes
        /// still hash alike).
        public func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(refusal?.code)
        }
    }

    /// Changes to `key` made by any process, this one included, as they happen (inotify on
    /// the group's records; nothing polls).
    ///
    /// ```swift
    /// for await _ in try defaults.changes(forKey: "theme") {
    ///     apply(defaults.string(forKey: "theme"))
    /// }
    /// ```
    ///
    /// A read made after a change arrives sees that change or a later one: this object's cache
    /// learns of a change before the change is delivered. Several writes may arrive as one
    /// change; the last write is never missed. The subscription is in place when this returns.
    /// - Throws: ``SharedDefaultsError/Code/invalidKey``, ``SharedDefaultsError/Code/storage``
    ///   when the watch cannot be set up (e.g. the per-user inotify limits).
    public func changes(forKey key: String) throws(SharedDefaultsError) -> AsyncStream<Change> {
        try Self.checkKey(key)
        let record = cache.naming.recordName(forKey: key)
        return relay(try watch(record: record)) { cache, change in
            Change(key: key, refusal: Self.refusal(of: record, after: change, in: cache))
        }
    }

    /// Changes to any key of the suite, by any process, this one included, with the key that
    /// changed; see ``changes(forKey:)``.
    public func changes() throws(SharedDefaultsError) -> AsyncStream<Change> {
        relay(try watch(record: nil)) { cache, change in
            guard let record = change.name else { return Change(key: nil) }
            // The key of a record is learned by reading it; a removed entry's key is known if
            // this process had read it before.
            let key = try? cache.withFreshState { (state: inout SuiteCache.State) -> String? in state.keys[record] }
            return Change(key: key ?? nil, refusal: Self.refusal(of: record, after: change, in: cache))
        }
    }

    /// For a removal of `record`'s file: why its entry is refused now (``Change/refusal``),
    /// read through the cache, so the getters do not read it again; a suite that cannot be
    /// listed is reported as the Vault's storage error. `nil` for any other change.
    private static func refusal(of record: String, after change: VaultChange, in cache: SuiteCache) -> VaultError? {
        guard change.kind == .removed else { return nil }
        do {
            return try cache.withFreshState { (state: inout SuiteCache.State) -> VaultError? in state.refusal(for: record) }
        } catch {
            return error.vaultError ?? VaultError(.storage, error.reason)
        }
    }

    private func watch(record: String?) throws(SharedDefaultsError) -> AsyncStream<VaultChange> {
        do {
            return try vault.changes(to: record)
        } catch {
            throw SharedDefaultsError(.storage, "could not watch suite \"\(printable(suiteName))\" of \(group) for changes: \(error.reason)", vaultError: error)
        }
    }

    /// Forwards the suite's record changes as ``Change``s, telling the cache first so that a
    /// read made on receipt sees the change.
    private func relay(
        _ changes: AsyncStream<VaultChange>,
        _ transform: @escaping @Sendable (SuiteCache, VaultChange) -> Change
    ) -> AsyncStream<Change> {
        let cache = self.cache
        let (stream, continuation) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .bufferingNewest(DirectoryWatcherLimit.buffer))
        let task = Task {
            for await change in changes {
                if let record = change.name, !cache.naming.owns(record) { continue }
                cache.note(change)
                continuation.yield(transform(cache, change))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// How many changes wait for a slow consumer before the oldest are dropped; the Vault's watch
/// reports an overflow (a `nil` key) when it drops any.
enum DirectoryWatcherLimit {
    static let buffer = 4096
}
