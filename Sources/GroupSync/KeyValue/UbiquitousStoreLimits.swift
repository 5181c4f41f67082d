import GroupSyncCore

/// `NSUbiquitousKeyValueStore`'s limits, enforced as Apple documents them.
///
/// A store can be over a limit without any write of its own breaking it: two machines that each
/// stay within the limits can, merged, hold more than either may. Such a store keeps every value
/// (docs/SYNC.md, "Quota"), tells its observers with a quota-violation change, and takes the
/// writes that do not make it larger, so that an app can remove values to get back within it.
public enum UbiquitousStoreLimits {
    /// Total size of a store: keys' UTF-8 bytes plus values' encoded bytes (1 MB).
    public static let maximumTotalBytes = 1_048_576
    /// Keys in a store.
    public static let maximumKeyCount = 1024
    /// A key's length in UTF-8 bytes.
    public static let maximumKeyBytes = 64

    /// Refuses the write of `written` (`nil`: a removal) under `key`, which replaces `replaced`,
    /// when it breaks a limit, naming it; `values` are the store as it would be after the write.
    /// A write that adds no key is never refused for the key count, nor one that adds no bytes
    /// for the size.
    static func check(
        _ values: [EntryName: SyncReplica.Value], writing key: String, _ written: SyncReplica.Value?, replacing replaced: SyncReplica.Value?
    ) throws(SyncError) {
        let keyBytes = key.utf8.count
        guard keyBytes > 0, keyBytes <= maximumKeyBytes else {
            throw SyncError(.quota, "the key is \(keyBytes) bytes of UTF-8; keys of the ubiquitous key-value store are 1 to \(maximumKeyBytes) bytes")
        }
        let addsAKey = replaced == nil && written != nil
        guard !addsAKey || values.count <= maximumKeyCount else {
            throw SyncError(.quota, "the store would hold \(values.count) keys; it holds at most \(maximumKeyCount): remove keys first")
        }
        guard size(of: written) > size(of: replaced) else { return }
        let total = totalBytes(values)
        guard total <= maximumTotalBytes else {
            throw SyncError(.quota, "the store would hold \(total) bytes; it holds at most \(maximumTotalBytes) (keys and values): remove or shorten values first")
        }
    }

    /// Whether `values` break the key count or the size (a store merged from machines' writes).
    static func areBroken(by values: [EntryName: SyncReplica.Value]) -> Bool {
        values.count > maximumKeyCount || totalBytes(values) > maximumTotalBytes
    }

    private static func size(of value: SyncReplica.Value?) -> Int {
        value.map { $0.key.utf8.count + $0.bytes.count } ?? 0
    }

    private static func totalBytes(_ values: [EntryName: SyncReplica.Value]) -> Int {
        values.values.reduce(0) { $0 + size(of: $1) }
    }
}
