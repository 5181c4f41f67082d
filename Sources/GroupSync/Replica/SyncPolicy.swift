import GroupSyncCore

/// What happens to a local write that another machine's write overtook on the server
/// (docs/SYNC.md, "Conflicts").
enum SyncPolicy: Sendable {
    /// The ubiquitous key-value store's rule, as Apple's: the most recent write (by the
    /// writers' clocks, ties broken by the blobs' digests) wins everywhere; a machine whose
    /// write lost sees a server-change notification for the key.
    case lastWriterWins
    /// Synced records: the write the server holds first wins; the writer whose write lost
    /// gets a conflict (``SyncedRecords/conflicts()``) naming the key and the winning sequence.
    case reportToWriter
}

/// Why a machine's view of its store changed, in the words of `NSUbiquitousKeyValueStore`.
public enum UbiquitousChangeReason: Int, Sendable, Hashable, CustomStringConvertible {
    /// Another machine changed values on the server (`NSUbiquitousKeyValueStoreServerChange`).
    case serverChange = 0
    /// The first download from the server completed (`NSUbiquitousKeyValueStoreInitialSyncChange`).
    case initialSyncChange = 1
    /// A write was refused for exceeding the store's limits (`NSUbiquitousKeyValueStoreQuotaViolationChange`).
    case quotaViolationChange = 2
    /// The store's server changed, so its contents were replaced (`NSUbiquitousKeyValueStoreAccountChange`).
    case accountChange = 3

    /// The reason's name.
    public var description: String {
        switch self {
        case .serverChange: "serverChange"
        case .initialSyncChange: "initialSyncChange"
        case .quotaViolationChange: "quotaViolationChange"
        case .accountChange: "accountChange"
        }
    }
}

/// A change to a store that did not come from this process's own writes.
public struct UbiquitousChange: Sendable, Hashable {
    /// Why the values changed.
    public var reason: UbiquitousChangeReason
    /// The keys whose values changed (`NSUbiquitousKeyValueStoreChangedKeysKey`), in no
    /// particular order, as Apple's.
    public var changedKeys: [String]

    /// A change.
    public init(reason: UbiquitousChangeReason, changedKeys: [String]) {
        self.reason = reason
        self.changedKeys = changedKeys
    }
}
