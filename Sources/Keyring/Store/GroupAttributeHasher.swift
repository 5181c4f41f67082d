import SealedStorage

/// ``ItemTable/Hashes/hasher(for:key:)`` of one group, made the first time it is needed.
///
/// A warm lookup whose query's primary-key hash and whose row's consistency are both
/// remembered (``QueriedKeyDigests``, ``ConsistentItemRows``) hashes nothing; making the hasher
/// anyway (its state allocated, the key, the domain and the group absorbed, then zeroed and
/// freed) was 1,600 instructions of such a lookup. Used within one operation, by one thread.
final class GroupAttributeHasher {
    private let group: GroupIdentifier
    private let key: SymmetricKey
    private var made: KeyedBLAKE2bHasher?
    /// Whether the hasher was made (kept apart: testing the noncopyable optional would consume it).
    private(set) var isMade = false

    /// The hasher of `group`'s attributes under `key` (the database's item lookup key).
    init(group: GroupIdentifier, key: SymmetricKey) {
        self.group = group
        self.key = key
    }

    /// Runs `body` with the hasher, made now if this is its first use.
    func use<Result>(_ body: (borrowing KeyedBLAKE2bHasher) -> Result) -> Result {
        if !isMade {
            made = ItemTable.Hashes.hasher(for: group, key: key)
            isMade = true
        }
        switch made {
        case .some(let hasher): return body(hasher)
        case .none: preconditionFailure("the hasher was made above")
        }
    }
}
