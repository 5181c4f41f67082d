import CSQLite

/// The header of a WAL database's wal-index, as SQLite's readers read it before taking any
/// lock: every commit of any connection writes a new one (its change counter and last frame
/// move on) before the commit returns, and `PRAGMA data_version` changes only when a read
/// transaction finds a header other than the one its connection last read. So while the
/// header is the one read before a `PRAGMA data_version`, that pragma would answer the same
/// (docs/ARCHITECTURE.md, "An unchanged database is seen without a transaction").
struct WALIndexHeader: Equatable, Sendable {
    /// The header's 48 bytes, as six words: compared, never interpreted here.
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    private init(_ header: groupvault_wal_index_header) {
        words = withUnsafeBytes(of: header.words) { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 32, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 40, as: UInt64.self))
        }
    }

    /// The header at the start of `region` (a wal-index's first bytes, 4-byte aligned, at
    /// least 96 bytes), or `nil` unless both copies agree and SQLite would accept it: version
    /// 3007000, initialised, its checksum right. A write in progress reads as `nil`.
    init?(region: UnsafeRawPointer) {
        var header = groupvault_wal_index_header()
        guard groupvault_wal_index_header_read(region, &header) == 1 else { return nil }
        self.init(header)
    }

    /// The header of `connection`'s database, or `nil` when it cannot be read so. The
    /// connection must be in WAL mode and have run a read transaction (``SQLiteConnection/walIndexHeader()``).
    init?(of connection: OpaquePointer) {
        var header = groupvault_wal_index_header()
        guard groupvault_sqlite_wal_index_header(connection, &header) == 1 else { return nil }
        self.init(header)
    }

    static func == (lhs: WALIndexHeader, rhs: WALIndexHeader) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3 && lhs.words.4 == rhs.words.4 && lhs.words.5 == rhs.words.5
    }
}
