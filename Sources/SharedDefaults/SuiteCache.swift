import Foundation
import Logging
import Synchronization
import Vault
import SealedStorage

/// One process's view of a suite: every key's value, decoded once, kept until a change
/// notification says a record changed.
///
/// The rule that makes a warm read a dictionary lookup: nothing is read from disk unless the
/// watch reported a change (``note(_:)`` marks the record stale) or the suite was never loaded.
/// A reported change re-reads only the records named; an overflow (lost notifications)
/// re-reads the suite. The watch is in place before the first load (``SharedDefaults`` starts
/// it in its initializer), so no write between the two can be missed.
final class SuiteCache: Sendable {
    /// What an entry read from disk turned out to be.
    enum Reading {
        case value(DefaultsEntry, size: Int)
        /// Never written, or deleted by SharedDefaults (a sealed tombstone). An entry whose
        /// file was removed outside SharedDefaults is ``refused(_:)`` with the Vault's
        /// `missing`.
        case absent
        case refused(VaultError)
    }

    struct State {
        var loaded = false
        var needsReload = false
        var stale: Set<String> = []
        var entries: [String: SharedDefaults.Value] = [:]
        /// Encoded size per key, for the suite-size limit.
        var sizes: [String: Int] = [:]
        var totalSize = 0
        /// Record name to key, learned from the entries read.
        var keys: [String: String] = [:]
        /// Keys whose entry is present but refused, with the Vault's reason.
        var refusals: [String: VaultError] = [:]
        /// Refused records whose key is unknown (the entry never opened in this process).
        var refusedRecords: [String: VaultError] = [:]
        /// The registration domain: process-local fallbacks, as in `UserDefaults`.
        var registered: [String: SharedDefaults.Value] = [:]

        mutating func apply(_ reading: Reading, record: String) {
            switch reading {
            case .value(let entry, let size):
                keys[record] = entry.key
                entries[entry.key] = entry.value
                totalSize += size - (sizes[entry.key] ?? 0)
                sizes[entry.key] = size
                refusals[entry.key] = nil
                refusedRecords[record] = nil
            case .absent:
                refusedRecords[record] = nil
                guard let key = keys[record] else { return }
                remove(key)
                refusals[key] = nil
            case .refused(let error):
                guard let key = keys[record] else {
                    refusedRecords[record] = error
                    return
                }
                remove(key)
                refusals[key] = error
            }
        }

        /// Why the entry of `record` is refused, or `nil` when it holds a value or is absent.
        func refusal(for record: String) -> VaultError? {
            keys[record].flatMap { refusals[$0] } ?? refusedRecords[record]
        }

        private mutating func remove(_ key: String) {
            entries[key] = nil
            totalSize -= sizes.removeValue(forKey: key) ?? 0
        }
    }

    let vault: Vault
    let naming: EntryNaming
    let suite: String
    let state = Locked(State())
    /// How many entries this cache has read from disk: tests check that warm reads add none.
    let entryReads = Atomic<Int>(0)

    init(vault: Vault, naming: EntryNaming, suite: String) {
        self.vault = vault
        self.naming = naming
        self.suite = suite
    }

    /// Marks what a change notification says may have changed.
    func note(_ change: VaultChange) {
        switch change.kind {
        case .overflow:
            state.withLock { $0.needsReload = true }
        case .written, .removed:
            guard let record = change.name, naming.owns(record) else { return }
            state.withLock { _ = $0.stale.insert(record) }
        }
    }

    /// Runs `body` on a state that reflects every change reported so far.
    func withFreshState<Result>(_ body: (inout State) throws(SharedDefaultsError) -> Result) throws(SharedDefaultsError) -> Result {
        try state.withLock { (state: inout State) throws(SharedDefaultsError) -> Result in
            try refresh(&state)
            return try body(&state)
        }
    }

    /// Runs `body` on a state that is loaded, without re-reading the records reported stale:
    /// for writers, which need only the suite's size, and must not pay for reading every
    /// other process's writes (the sizes of stale entries are then a little behind, which the
    /// suite-size limit tolerates by design).
    func withLoadedState<Result>(_ body: (inout State) throws(SharedDefaultsError) -> Result) throws(SharedDefaultsError) -> Result {
        try state.withLock { (state: inout State) throws(SharedDefaultsError) -> Result in
            if !state.loaded || state.needsReload { try refresh(&state) }
            return try body(&state)
        }
    }

    /// Loads the suite if needed, then re-reads the records reported stale.
    private func refresh(_ state: inout State) throws(SharedDefaultsError) {
        if !state.loaded || state.needsReload {
            let records: Set<String>
            do {
                // The directory lists the entries that are there; the trust ledger adds those
                // that were written and whose files are gone, which read as refused
                // (`missing`), not as never set.
                records = Set(try vault.recordNames(withPrefix: naming.suitePrefix))
                    .union(try vault.ledgerRecordNames(withPrefix: naming.suitePrefix))
            } catch {
                throw SharedDefaultsError(.storage, "could not list suite \"\(suite)\" of \(vault.group): \(error.reason)", vaultError: error)
            }
            let registered = state.registered
            // Record names are keyed hashes of the keys, so a key learned once still names its
            // record: kept, so that an entry refused after a reload is reported under its key.
            let keys = state.keys
            state = State()
            state.registered = registered
            state.keys = keys
            for record in records.sorted() {
                state.apply(read(record), record: record)
            }
            state.loaded = true
            return
        }
        guard !state.stale.isEmpty else { return }
        let stale = state.stale
        state.stale = []
        for record in stale {
            state.apply(read(record), record: record)
        }
    }

    /// `record`'s entry refused for `error`, logged: the getters answer "not set" for it, so the
    /// log is where the reason shows. Once per read of the record (after it changed), not once
    /// per getter call.
    private func refused(_ record: String, _ error: VaultError) -> Reading {
        vault.logger.info("shared defaults entry refused; getters return no value", metadata: [
            "group": "\(vault.group)", "suite": "\(printable(suite))", "record": "\(record)", "reason": "\(error.code)",
        ])
        return .refused(error)
    }

    /// Reads and checks one entry.
    func read(_ record: String) -> Reading {
        entryReads.add(1, ordering: .relaxed)
        let entry: DefaultsEntry
        do {
            entry = try vault.read(DefaultsEntry.self, from: record)
        } catch where error.code == .notFound || error.code == .deleted {
            return .absent
        } catch {
            return refused(record, error)
        }
        // The record name is a keyed hash of suite and key: an entry claiming another suite
        // or key was sealed under the wrong name by a key holder, and is not this key's value.
        guard entry.suite == suite, naming.recordName(forKey: entry.key) == record else {
            return refused(record, VaultError(.invalidRecord, "record \"\(record)\" of \(vault.group) is authentic but holds an entry of another suite or key; it was not used"))
        }
        return .value(entry, size: Self.encodedSize(key: entry.key, value: entry.value))
    }

    /// What an entry counts against the suite-size limit: the key's bytes plus the value's
    /// encoded (sealed JSON) bytes.
    static func encodedSize(key: String, value: SharedDefaults.Value) -> Int {
        key.utf8.count + ((try? JSONEncoder().encode(value).count) ?? 0)
    }
}
