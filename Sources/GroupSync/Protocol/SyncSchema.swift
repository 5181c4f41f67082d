import GroupSyncCore

/// The tables GroupSync creates on its server, and their migrations (docs/SYNC.md, "Schema").
///
/// Plain SQL, no extension and no server-side function: the server stores what clients send
/// and hands it back. Migrations run in one transaction under a transaction-scoped advisory
/// lock, so machines starting at once migrate once; a server whose schema is newer than this
/// client knows is refused (`SyncError.Code.schema`), never written with an older layout.
enum SyncSchema {
    /// The newest schema version this client creates and understands.
    static let currentVersion = 3

    /// The advisory lock key that serializes migrations (`pg_advisory_xact_lock`): "GVSY".
    static let migrationLock: Int64 = 0x4756_5359

    /// The statements that bring a database from version `index` to `index + 1`.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE groupsync_entry (
                space bytea NOT NULL CHECK (octet_length(space) = 32),
                name bytea NOT NULL CHECK (octet_length(name) = 32),
                sequence bigint NOT NULL CHECK (sequence > 0),
                change bigint NOT NULL,
                blob bytea NOT NULL CHECK (octet_length(blob) <= 1048736),
                written_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (space, name)
            )
            """,
            "CREATE SEQUENCE groupsync_change",
            "CREATE INDEX groupsync_entry_by_change ON groupsync_entry (space, change)",
        ],
        // Version 2: one sealed snapshot per space (docs/SYNC.md, section 6, "Snapshots"). The
        // bound is `SyncSnapshot.maximumByteCount`, 64 MiB.
        [
            """
            CREATE TABLE groupsync_snapshot (
                space bytea PRIMARY KEY CHECK (octet_length(space) = 32),
                change bigint NOT NULL CHECK (change > 0),
                blob bytea NOT NULL CHECK (octet_length(blob) <= 67108864),
                written_at timestamptz NOT NULL DEFAULT now()
            )
            """,
        ],
        // Version 3: no table changes. A change number is drawn under the space's lock
        // (docs/SYNC.md, section 6, "Change numbers in commit order"); a client of version 2
        // draws it without, which lets a catch-up miss a write for good, so the version it
        // refuses is the version that says every writer takes the lock. The comment tells an
        // operator reading the schema why.
        [
            """
            COMMENT ON SEQUENCE groupsync_change IS 'GroupSync schema 3: each change number is drawn \
            under pg_advisory_xact_lock(1196839767, the first four bytes of its space), so that the \
            writes of a space commit in the order of their numbers'
            """,
        ],
    ]

    /// Creates the version table when missing (idempotent, safe to race).
    static let versionTable = """
        CREATE TABLE IF NOT EXISTS groupsync_schema (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
}
