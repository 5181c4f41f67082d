import SealedStorage

/// The answers this process gave to item searches, each kept with the keyring database's
/// ``KeyringDatabase/ContentStamp`` taken before its rows were read: while the stamp is the
/// same, no row of any group changed (any process's commit moves it), so the same search
/// would read, open and match the same rows to the same items (docs/ARCHITECTURE.md, "A
/// search while nothing changed returns the items it found").
///
/// What a search still does every time: the entitlement of its groups, the home's checks (its
/// look at the home's watch), the stamp, and the lock state against each found item's
/// accessibility; a user-presence prompt is asked by the caller as before. Only the reading
/// of rows is skipped: the `SELECT`, the AEAD open of each row and its matching.
struct KeptLookups: Sendable {
    /// One search: the query and the groups it searched, in order. Two searches are one only
    /// when every text of their queries has the same bytes: `String`'s `==` takes canonically
    /// equivalent texts (NFC and NFD) for equal, and the keyring matches bytes, so two such
    /// accounts name two items (`ItemLookupIndexTests`).
    struct Search: Hashable, Sendable {
        var query: ItemQuery
        var groups: [GroupIdentifier]

        /// Every text a query holds (group identifiers are ASCII, so their `==` is their
        /// bytes'). `KeptLookupsTests` counts the `String` properties of `ItemQuery` and its
        /// key and certificate queries, so that one added there is not left out here.
        static let texts: [@Sendable (ItemQuery) -> String?] =
            TextAttribute.all.map(\.readQuery) + [{ $0.key.keyType }, { $0.key.tokenID }]

        static func == (lhs: Search, rhs: Search) -> Bool {
            lhs.query == rhs.query && lhs.groups == rhs.groups
                && texts.allSatisfy { text in
                    switch (text(lhs.query), text(rhs.query)) {
                    case (nil, nil): true
                    case (let left?, let right?): left.hasSameUTF8(as: right)
                    default: false
                    }
                }
        }

        // Equal searches have equal queries, so hashing the query is consistent with `==`.
        func hash(into hasher: inout Hasher) {
            hasher.combine(query)
            hasher.combine(groups)
        }
    }

    /// At most this many answers are kept; a new one beyond it replaces the oldest.
    static let capacity = 64
    /// An answer of more items is not kept: a lookup finds one item or a few, and a listing
    /// of a whole group would keep every secret of it.
    static let largestAnswer = 16

    private var answers = OldestFirstTable<Search, (stamp: KeyringDatabase.ContentStamp, items: [KeychainItem])>(capacity: KeptLookups.capacity)
    /// Searches answered from what was kept (for tests: that a search was answered so).
    private(set) var answered = 0

    /// The items found by `search` when the database was at `stamp`, if kept.
    mutating func items(for search: Search, at stamp: KeyringDatabase.ContentStamp) -> [KeychainItem]? {
        guard let kept = answers[search], kept.stamp == stamp else { return nil }
        answered += 1
        return kept.items
    }

    /// Keeps `items`, found by `search` when the database was at `stamp`.
    mutating func keep(_ items: [KeychainItem], for search: Search, at stamp: KeyringDatabase.ContentStamp) {
        guard items.count <= Self.largestAnswer else { return }
        answers.set((stamp, items), for: search)
    }
}
