/// The keyed hashes of the generic-password primary keys this process's queries named, so that
/// a lookup asked again by the same service and account finds its row without hashing the key
/// again (one or two BLAKE2b digests, about a sixteenth of a warm lookup's instructions).
///
/// Sound without invalidation for the same reason as ``ConsistentItemRows``: a digest is a pure
/// function of its message (the group, service, account and synchronizable flag) and of the
/// lookup key, which a ``KeyringDatabase`` holds fixed for its life. Strings are compared byte
/// for byte, as they are hashed: Swift's `==` would take a precomposed "é" for its decomposed
/// form, whose digest differs. It holds attribute values a query named (never a secret), at
/// most ``capacity`` of them.
struct QueriedKeyDigests: Sendable {
    /// At most this many keys are remembered; the table starts over when it is full.
    static let capacity = 128

    private struct Entry: Sendable {
        var group: String
        var service: String
        var account: String
        var isSynchronizable: Bool
        var digest: [UInt8]

        func names(group: String, service: String, account: String, isSynchronizable: Bool) -> Bool {
            self.isSynchronizable == isSynchronizable && self.account.hasSameUTF8(as: account)
                && self.service.hasSameUTF8(as: service) && self.group.hasSameUTF8(as: group)
        }
    }

    /// Entries by account (the attribute most likely to differ between a process's items);
    /// accounts that `String`'s hashing takes for equal share a list and are told apart there.
    private var entries: [String: [Entry]] = [:]
    /// How many entries the lists hold.
    private(set) var count = 0

    /// The digest remembered for this key, if any.
    func digest(group: String, service: String, account: String, isSynchronizable: Bool) -> [UInt8]? {
        entries[account]?.first { $0.names(group: group, service: service, account: account, isSynchronizable: isSynchronizable) }?.digest
    }

    /// Remembers `digest` for this key.
    mutating func insert(_ digest: [UInt8], group: String, service: String, account: String, isSynchronizable: Bool) {
        guard self.digest(group: group, service: service, account: account, isSynchronizable: isSynchronizable) == nil else { return }
        if count >= Self.capacity {
            entries.removeAll(keepingCapacity: true)
            count = 0
        }
        entries[account, default: []].append(Entry(group: group, service: service, account: account, isSynchronizable: isSynchronizable, digest: digest))
        count += 1
    }
}
