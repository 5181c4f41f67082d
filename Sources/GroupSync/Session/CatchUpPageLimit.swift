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

    /// What a catch-up's first query reads.
    static let standard = CatchUpPageLimit(rows: 500, bytes: 4 << 20)

    /// The most rows a page grows to (``next()``). A catch-up's last page has a limit above
    /// what is left of the space; with a larger limit, where that is a large part of an
    /// analysed table, the planner read the whole table and sorted it rather than the index
    /// (docs/ARCHITECTURE.md, "A catch-up's pages double in rows").
    static let largestRows = 4_000

    /// The limit of the page after a full page read with this one: twice the rows, up to
    /// ``largestRows`` (a larger given count stays), the same bytes.
    ///
    /// Why it grows: the next page is asked for only once this one has arrived (it starts after
    /// this page's last change), so a catch-up makes one round trip per page, and across a
    /// network a first sync of many rows waited on round trips rather than on work. Why it
    /// starts small: a catch-up after a notification or a reconnect reads a few rows, and a
    /// first sync's first page is applied sooner (docs/ARCHITECTURE.md, "A catch-up's pages
    /// double in rows").
    func next() -> CatchUpPageLimit {
        CatchUpPageLimit(rows: max(rows, min(rows * 2, Self.largestRows)), bytes: bytes)
    }

    /// Whether `page` may have been cut by this limit, so that more rows may follow it. A page
    /// that reached `bytes` exactly without being cut also counts: the next query then finds
    /// nothing, which costs one round trip and loses nothing.
    func isFull(_ page: [ServerRow]) -> Bool {
        page.count >= rows || page.reduce(0) { $0 + $1.blob.count } >= bytes
    }
}
