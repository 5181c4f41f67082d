import Keyring
import SealedStorage

/// Values a ``Vault`` has read and judged, each kept with everything its verdict was drawn
/// from (``Observation``): the record file's version as `fstatat` describes it
/// (``SealedStorage/FileVersion``: a replacement is a new inode, a change in place or a new link
/// a new change time), a look at the records directory's inotify watch (any entry created,
/// written, renamed, re-moded or removed by any process: ``SealedStorage/DirectoryChanges``),
/// the keyring database and its ``KeyringDatabase/ContentStamp`` (any row changed by any
/// process: a ledger raised, a key retired or rotated), and the authenticated header. A read of
/// the same record as the same type that observes all of it unchanged returns the value without
/// reading, opening, admitting and decoding the blob again, which would decide the same
/// (docs/ARCHITECTURE.md, "A read while nothing changed returns the value it judged"). It still
/// makes the keyring's checks before any use of a group key (the entitlement, the home, a lock
/// state), the expiry and issue-time checks against the clock, and the type's `validate()`.
/// Without an inotify watch of the directory, nothing is kept.
final class JudgedValues: Sendable {
    /// One record, read as one type.
    struct Key: Hashable, Sendable {
        var name: RecordName
        var type: ObjectIdentifier
    }

    /// What a read observed, before it read, of everything a verdict is drawn from.
    struct Observation: Sendable {
        var directory: DirectoryLook
        var file: FileVersion
        var database: KeyringDatabase
        var stamp: KeyringDatabase.ContentStamp

        /// Whether `other` observed the same: then a read would decide as this one did.
        func isSame(as other: Observation) -> Bool {
            database === other.database && directory == other.directory && stamp == other.stamp && file == other.file
        }
    }

    /// A value with what it was judged from.
    struct Judged: @unchecked Sendable {
        // @unchecked: `value` is a `VaultRecord`, so Sendable; it is kept as `any Sendable`
        // and cast back to the type it was stored under (the key's).
        var observed: Observation
        var header: BlobHeader
        var value: any Sendable
    }

    /// At most this many values are kept; a new one beyond it replaces the oldest.
    static let capacity = 64

    /// Whether values are kept at all (`Vault(cachesReadValues:)`).
    let isEnabled: Bool
    private let state = Locked(State())

    private struct State {
        var values = OldestFirstTable<Key, Judged>(capacity: JudgedValues.capacity)
        /// The database of the latest read, for the stamp taken before the next one.
        var database: KeyringDatabase?
        /// The records directory watched, and its watch.
        var watched: (directory: DirectoryHandle, registration: DirectoryChanges.Registration)?
    }

    /// What the watch of the records directory showed at one look: equal looks mean no entry of
    /// the directory changed in between.
    struct DirectoryLook: Equatable {
        var registration: UInt64
        var changes: DirectoryChanges.Count
    }

    /// A look at the watch of `directory` (watched from the first look on; a directory held
    /// anew is watched anew), or `nil` when it cannot be watched. `mark` is
    /// ``SealedStorage/DirectoryChanges/looks`` when the read began: the queue is not read again
    /// if a look began since (the keyring's look at the home, made by the same read).
    func look(at directory: DirectoryHandle, lookedSince mark: DirectoryChanges.Count) -> DirectoryLook? {
        guard isEnabled, let changes = DirectoryChanges.shared else { return nil }
        let registration: DirectoryChanges.Registration? = state.withLock { state in
            if let watched = state.watched, watched.directory === directory { return watched.registration }
            guard let registration = changes.register(directory) else { return nil }
            state.watched = (directory, registration)
            return registration
        }
        guard let registration else { return nil }
        return DirectoryLook(registration: registration.serial, changes: changes.changes(of: [registration], lookedSince: mark))
    }

    init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// The value kept for `name` as `type`, if any, whatever has changed since.
    func judged<Value>(_ type: Value.Type, of name: RecordName) -> Judged? {
        guard isEnabled else { return nil }
        let key = Key(name: name, type: ObjectIdentifier(type))
        return state.withLock { $0.values[key] }
    }

    /// The database the latest read used.
    var latestDatabase: KeyringDatabase? {
        state.withLock { $0.database }
    }

    /// Notes the database a read used, for the next read's stamp.
    func noteDatabase(_ database: KeyringDatabase) {
        guard isEnabled else { return }
        state.withLock { $0.database = database }
    }

    /// Keeps `judged` for `name` as `type`.
    func keep<Value>(_ judged: Judged, for type: Value.Type, of name: RecordName) {
        guard isEnabled else { return }
        let key = Key(name: name, type: ObjectIdentifier(type))
        state.withLock { $0.values.set(judged, for: key) }
    }

    /// Drops what is kept for `name` as `type`: a read of it decided otherwise.
    func forget<Value>(_ type: Value.Type, of name: RecordName) {
        let key = Key(name: name, type: ObjectIdentifier(type))
        state.withLock { $0.values.remove(key) }
    }
}
