import GroupSyncCore

/// `NSUbiquitousKeyValueStore`'s limits, enforced as Apple documents them.
public enum UbiquitousStoreLimits {
    /// Total size of a store: keys' UTF-8 bytes plus values' encoded bytes (1 MB).
    public static let maximumTotalBytes = 1_048_576
    /// Keys in a store.
    public static let maximumKeyCount = 1024
    /// A key's length in UTF-8 bytes.
    public static let maximumKeyBytes = 64

    /// Refuses `values` (the store as it would be after a write) that break a limit, naming it.
    static func check(_ values: [EntryName: SyncReplica.Value], writing key: String) throws(SyncError) {
        let keyBytes = key.utf8.count
        guard keyBytes > 0, keyBytes <= maximumKeyBytes else {
            throw SyncError(.quota, "the key is \(keyBytes) bytes of UTF-8; keys of the ubiquitous key-value store are 1 to \(maximumKeyBytes) bytes")
        }
        guard values.count <= maximumKeyCount else {
            throw SyncError(.quota, "the store would hold \(values.count) keys; it holds at most \(maximumKeyCount): remove keys first")
        }
        let total = values.values.reduce(0) { $0 + $1.key.utf8.count + $1.bytes.count }
        guard total <= maximumTotalBytes else {
            throw SyncError(.quota, "the store would hold \(total) bytes; it holds at most \(maximumTotalBytes) (keys and values): remove or shorten values first")
        }
    }
}
