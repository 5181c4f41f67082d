/// How much one catch-up query may return: at most `rows` rows, and no row that starts past
/// `bytes` of blobs (docs/SYNC.md, "Protocol", step 2).
///
/// A row count alone would let a page of the largest blobs (about 1 MiB each) hold 500 MiB,
/// twice over while the next page is in flight. The byte bound keeps a page near `bytes` plus
/// one blob, and never empty while rows remain: a first row larger than `bytes` comes alone.
struct CatchUpPageLimit: Sendable, Equatable {
    /// Rows per page at most.
    var rows: Int
    /// Blob bytes after which a page takes no further row.
    var bytes: Int

    /// What a catch-up reads per query.
    static let standard = CatchUpPageLimit(rows: 500, bytes: 4 << 20)

    /// Whether `page` may have been cut by this limit, so that more rows may follow it. A page
    /// that reached `bytes` exactly without being cut also counts: the next query then finds
    /// nothing, which costs one round trip and loses nothing.
    func isFull(_ page: [ServerRow]) -> Bool {
        page.count >= rows || page.reduce(0) { $0 + $1.blob.count } >= bytes
    }
}
