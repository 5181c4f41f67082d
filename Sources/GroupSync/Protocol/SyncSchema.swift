import GroupSyncCore

/// The tables GroupSync creates on its server, and their migrations (docs/SYNC.md, "Schema").
///
/// Plain SQL, no extension and no server-side function: the server stores what clients send
/// and hands it back. Migrations run in one transaction under a transaction-scoped advisory
/// lock, so machines starting at once migrate once; a server whose schema is newer than this
/// client knows is refused (`SyncError.Code.schema`), never written with an older layout.
enum SyncSchema {
    /// The newest schema version this client creates and understands.
    static let currentVersion = 2

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
    ]

    /// Creates the version table when missing (idempotent, safe to race).
    static let versionTable = """
        CREATE TABLE IF NOT EXISTS groupsync_schema (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
}
