#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOPosix
import PostgresNIO
import SealedStorage
import GroupSyncCore

/// One connection to the sync server and the few statements GroupSync sends over it
/// (docs/SYNC.md, "Protocol"). Every value is bound, never formatted into SQL; every failure
/// becomes a `SyncError` whose reason names the server redacted and keeps the driver's error.
final class ServerConnection: Sendable {
    let connection: PostgresConnection
    private let url: SyncServerURL
    private let logger: Logger
    private let requests: InFlightRequests
    /// Whether this connection has sent ``ChangesStatement`` before (``changes(space:after:within:)``).
    private let sentCatchUp = Locked(false)

    private init(connection: PostgresConnection, url: SyncServerURL, logger: Logger) {
        self.connection = connection
        self.url = url
        self.logger = logger
        requests = InFlightRequests(closingWith: connection.closeFuture)
    }

    /// Connects, then creates or migrates the schema.
    static func open(_ configuration: SyncConfiguration, id: Int = 1) async throws(SyncError) -> ServerConnection {
        let settings = try configuration.connectionConfiguration()
        var logger = Logger(label: "org.groupvault.sync")
        // postgres-nio logs at debug and trace only; nothing it logs reaches output by default.
        logger.logLevel = .critical
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: settings, id: id, logger: logger)
        } catch {
            throw SyncError(.server, "cannot connect to the sync server \(configuration.url.redacted): \(Self.describe(error)); writes stay pending and are pushed once it is reachable", underlyingError: error)
        }
        let server = ServerConnection(connection: connection, url: configuration.url, logger: logger)
        do {
            try await server.migrate()
        } catch {
            await server.close()
            throw error
        }
        return server
    }

    func close() async {
        try? await connection.close()
    }

    // MARK: Schema

    /// Creates the schema, or migrates it to ``SyncSchema/currentVersion``, in one transaction.
    ///
    /// A server already at the current version is recognised in one statement, with no
    /// transaction and no lock: every connection (each start of a session, each reconnect)
    /// made five round trips for nothing, on the path of a first sync. The version is written
    /// in the transaction that migrates, so a version read as current means every migration up
    /// to it is committed; anything else (no version table, an older version, an error) takes
    /// the locked path below, which also refuses a newer one.
    func migrate() async throws(SyncError) {
        if let version = try? await currentVersion() {
            if version == SyncSchema.currentVersion { return }
            if version > SyncSchema.currentVersion { throw schemaTooNew(version) }
        }
        try await run("migrate the schema") { connection, logger in
            try await connection.query("BEGIN", logger: logger)
            do {
                try await connection.query("SELECT pg_advisory_xact_lock(\(SyncSchema.migrationLock))", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: SyncSchema.versionTable), logger: logger)
                let version = try await Self.readVersion(on: connection, logger: logger)
                if version > SyncSchema.currentVersion {
                    throw SchemaTooNew(found: version)
                }
                for step in version..<SyncSchema.currentVersion {
                    for statement in SyncSchema.migrations[step] {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO groupsync_schema (version) VALUES (\(step + 1))", logger: logger)
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    private struct SchemaTooNew: Error { let found: Int }

    /// The server's schema version, read without a transaction; fails when there is no version
    /// table yet.
    func currentVersion() async throws(SyncError) -> Int {
        try await run("read the schema version") { connection, logger in
            try await Self.readVersion(on: connection, logger: logger)
        }
    }

    /// Reads the schema version (0 when the table is empty) and, in the same statement, makes
    /// the connection's ``sessionSettings``: every connection reads the version, alone or in the
    /// migration's transaction, whose commit keeps them.
    private static func readVersion(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var version = 0
        let query = PostgresQuery(unsafeSQL: "SELECT \(sessionSettings), coalesce(max(version), 0) FROM groupsync_schema")
        for try await (_, _, found) in try await connection.query(query, logger: logger).decode((String, String, Int).self) {
            version = found
        }
        return version
    }

    /// What every connection sets for its session, as `set_config` calls in the statement that
    /// reads the schema version (docs/SYNC.md, section 6, "Session settings").
    ///
    /// Bitmap scans off: a catch-up page must read the `(space, change)` index in order and stop
    /// at the page's limit. Where the planner has no statistics for the table (a new server,
    /// before autovacuum's first `ANALYZE`) or underestimates a space, it picks a bitmap scan of
    /// every row of the space and a sort instead, so each page costs the whole space: 3.4 ms for
    /// a page of 500 of 10,000 rows against 0.58 ms with the index (`EXPLAIN ANALYZE` on
    /// PostgreSQL 15). No statement GroupSync sends is better served by a bitmap scan.
    ///
    /// A random page priced at 1.1 sequential ones, not PostgreSQL's default 4: on an analysed
    /// table, the first catch-up after a snapshot (thousands of rows, planned for its values)
    /// was read by a scan of the whole table and a sort, where the `(space, change)` index
    /// serves the rows in order (on a copy of the first-sync figure's 10,000 rows, 3.4 to
    /// 7.9 ms against 1.6 to 1.8 ms for the 2,000 after the snapshot). The table's pages are
    /// in the server's cache, where a random read costs about what a sequential one does.
    static let sessionSettings = "set_config('enable_bitmapscan', 'off', false), set_config('random_page_cost', '1.1', false)"

    private func schemaTooNew(_ found: Int) -> SyncError {
        SyncError(.schema, "the sync server \(url.redacted) has GroupSync schema version \(found); this GroupSync knows version \(SyncSchema.currentVersion) at most: update it before syncing")
    }

    // MARK: Reading

    /// The rows of `space` changed after `change`, in change order, within `limit`.
    func rows(space: [UInt8], after change: Int64, within limit: CatchUpPageLimit) async throws(SyncError) -> [ServerRow] {
        let rows = try await run("read changes") { connection, logger in
            var rows: [ServerRow] = []
            for try await row in try await connection.execute(PageStatement(space: space, after: change, limit: limit), logger: logger) {
                rows.append(row)
            }
            return rows
        }
        try Self.checkPage(rows, after: change)
        return rows
    }

    /// Refuses a catch-up page with a row at or below the change it was asked to start after:
    /// the next page starts after the highest change of this one, so a server answering so
    /// could keep a catch-up asking for the same page for ever, holding the round (docs/SYNC.md,
    /// section 6, "Pages that do not move on").
    private static func checkPage(_ rows: [ServerRow], after change: Int64) throws(SyncError) {
        guard let behind = rows.first(where: { $0.change <= change }) else { return }
        throw SyncError(.server, "the sync server answered a catch-up after change \(change) with a row at change \(behind.change), at or below it; the round stopped, and the next one asks again")
    }

    /// The highest change number the server has handed out (0 before the first write), and the
    /// first page of rows of `space` changed after `change`, in one round trip. A counter below
    /// what a machine has already read means the server went back in time.
    ///
    /// A connection's first catch-up sends the statement unnamed, parsed and planned for this
    /// execution, in one round trip; its later ones send it prepared. postgres-nio prepares a
    /// statement in a round trip of its own before its first execution, and a connection's first
    /// catch-up is on the path of every session's start (docs/ARCHITECTURE.md, "The statements of
    /// a round are prepared").
    func changes(space: [UInt8], after change: Int64, within limit: CatchUpPageLimit) async throws(SyncError) -> (lastChange: Int64, rows: [ServerRow]) {
        let statement = ChangesStatement(space: space, after: change, limit: limit)
        let first = sentCatchUp.withLock { sent in defer { sent = true }; return !sent }
        let read: (lastChange: Int64, rows: [ServerRow]) = try await run("read changes") { connection, logger in
            var last: Int64 = 0
            var rows: [ServerRow] = []
            func take(_ found: (lastChange: Int64, row: ServerRow?)) {
                last = found.lastChange
                if let row = found.row { rows.append(row) }
            }
            if first {
                let query = PostgresQuery(unsafeSQL: ChangesStatement.sql, binds: try statement.makeBindings())
                for try await row in try await connection.query(query, logger: logger) { take(try statement.decodeRow(row)) }
            } else {
                for try await found in try await connection.execute(statement, logger: logger) { take(found) }
            }
            return (last, rows)
        }
        try Self.checkPage(read.rows, after: change)
        return read
    }

    /// The row the server holds for one entry of `space`, whatever its change number, or `nil`
    /// when it holds none: how a machine sees a row no catch-up returns, one whose change number
    /// lies at or below its cursor (docs/SYNC.md, section 6, "A push that nothing overtook").
    func row(space: [UInt8], name: [UInt8]) async throws(SyncError) -> ServerRow? {
        try await run("read an entry") { connection, logger in
            var found: ServerRow?
            let query: PostgresQuery = try """
                SELECT sequence, change, blob FROM groupsync_entry WHERE space = \(Data(space)) AND name = \(Data(name))
                """
            for try await (sequence, change, blob) in try await connection.query(query, logger: logger).decode((Int64, Int64, ByteBuffer).self) {
                found = ServerRow(name: name, sequence: sequence, change: change, blob: Array(blob.readableBytesView))
            }
            return found
        }
    }

    /// The space's rows in name order after `name` (empty: from the first), within `limit`'s
    /// rows and bytes as a catch-up page is: what a verification reads to compare every entry
    /// with what this machine accepted, whatever its change number (docs/SYNC.md, section 6,
    /// "Verifying the server").
    func rows(space: [UInt8], afterName name: [UInt8], within limit: CatchUpPageLimit) async throws(SyncError) -> [ServerRow] {
        let rows = try await run("read the space's entries by name") { connection, logger in
            var rows: [ServerRow] = []
            let query: PostgresQuery = try """
                SELECT name, sequence, change, blob FROM (
                    SELECT name, sequence, change, blob, sum(octet_length(blob)) OVER (ORDER BY name) - octet_length(blob) AS before
                    FROM (SELECT name, sequence, change, blob FROM groupsync_entry
                          WHERE space = \(Data(space)) AND name > \(Data(name)) ORDER BY name LIMIT \(limit.rows)) AS page
                ) AS counted
                WHERE before < \(limit.bytes) ORDER BY name
                """
            for try await (name, sequence, change, blob) in try await connection.query(query, logger: logger).decode((ByteBuffer, Int64, Int64, ByteBuffer).self) {
                rows.append(ServerRow(name: Array(name.readableBytesView), sequence: sequence, change: change, blob: Array(blob.readableBytesView)))
            }
            return rows
        }
        // As a catch-up page must move on (``checkPage(_:after:)``): the next page starts after
        // this one's last name.
        if rows.contains(where: { !name.lexicographicallyPrecedes($0.name) }) {
            throw SyncError(.server, "the sync server answered a verification's page with an entry at or below the name the page was asked to start after; the verification stopped")
        }
        return rows
    }

    /// The space's snapshot (docs/SYNC.md, section 6, "Snapshots"): its change column and sealed
    /// bytes, or `nil` when the server holds none.
    func snapshot(space: [UInt8]) async throws(SyncError) -> (change: Int64, blob: [UInt8])? {
        try await run("read the space's snapshot") { connection, logger in
            var found: (change: Int64, blob: [UInt8])?
            let query: PostgresQuery = try "SELECT change, blob FROM groupsync_snapshot WHERE space = \(Data(space))"
            for try await (change, blob) in try await connection.query(query, logger: logger).decode((Int64, ByteBuffer).self) {
                found = (change, Array(blob.readableBytesView))
            }
            return found
        }
    }

    /// The change number of the space's snapshot on the server (0 when there is none) and how
    /// many of the space's entries changed after it (the rows a fresh machine would read after
    /// it): whether a snapshot is due (``SnapshotSchedule``).
    func snapshotStanding(space: [UInt8]) async throws(SyncError) -> (change: Int64, changedSince: Int) {
        try await run("read the standing of the space's snapshot") { connection, logger in
            var standing: (change: Int64, changedSince: Int) = (0, 0)
            let query: PostgresQuery = try """
                SELECT s.change, (SELECT count(*) FROM groupsync_entry AS e WHERE e.space = \(Data(space)) AND e.change > s.change)
                FROM (SELECT coalesce((SELECT change FROM groupsync_snapshot WHERE space = \(Data(space))), 0) AS change) AS s
                """
            for try await (change, changed) in try await connection.query(query, logger: logger).decode((Int64, Int64).self) {
                standing = (change, Int(changed))
            }
            return standing
        }
    }

    // MARK: Writing

    /// Stores `blob` as the space's snapshot of change `change`, unless the server holds a
    /// snapshot of the same or a later change (two members writing at once keep the later).
    /// Returns whether it was stored.
    @discardableResult
    func storeSnapshot(space: [UInt8], change: Int64, blob: [UInt8]) async throws(SyncError) -> Bool {
        try await run("store the space's snapshot") { connection, logger in
            let query: PostgresQuery = try """
                INSERT INTO groupsync_snapshot AS s (space, change, blob) VALUES (\(Data(space)), \(change), \(Data(blob)))
                ON CONFLICT (space) DO UPDATE SET change = EXCLUDED.change, blob = EXCLUDED.blob, written_at = now()
                    WHERE s.change < EXCLUDED.change
                RETURNING change
                """
            var stored = false
            for try await _ in try await connection.query(query, logger: logger).decode(Int64.self) { stored = true }
            return stored
        }
    }

    /// Compare-and-swap (``CompareAndSwapStatement``): stores `blob` at `sequence` for the entry
    /// if the server's sequence for it is still `base` (0: no row), and notifies the space's
    /// channel in the same transaction. Returns the change number and whether the entry had a
    /// row before, or `nil` when another write got there first.
    func compareAndSwap(space: [UInt8], name: [UInt8], base: UInt64, sequence: UInt64, blob: [UInt8], channel: String) async throws(SyncError) -> SwapResult? {
        guard let sequence = Int64(exactly: sequence), let base = Int64(exactly: base) else {
            throw SyncError(.invalidArgument, "sequence \(sequence) does not fit the server's bigint column")
        }
        let statement = CompareAndSwapStatement(space: space, entry: name, sequence: sequence, blob: blob, base: base, channel: channel)
        return try await run("push a write") { connection, logger in
            var result: SwapResult?
            for try await stored in try await connection.execute(statement, logger: logger) { result = stored }
            return result
        }
    }

    // MARK: Errors

    /// Runs `body` on the connection, and fails it with the server's code if the connection
    /// closes first (``InFlightRequests``).
    private func run<Result: Sendable>(
        _ what: String,
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result
    ) async throws(SyncError) -> Result {
        let connection = self.connection
        let logger = self.logger
        do {
            return try await requests.run { try await body(connection, logger) }
        } catch let error as SchemaTooNew {
            throw schemaTooNew(error.found)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.server, "could not \(what) on the sync server \(url.redacted): \(Self.describe(error))", underlyingError: error)
        }
    }

    /// postgres-nio's errors hide the server's message from `description` (it may quote
    /// bound values); the SQLSTATE and message fields are shown, which never carry our values.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            var parts = ["\(error.code)"]
            if let state = error.serverInfo?[.sqlState] { parts.append("SQLSTATE \(state)") }
            if let message = error.serverInfo?[.message] { parts.append(UntrustedText.printable(message, limit: 300)) }
            // A connection's failure says only `connectionError`; what the system said (refused,
            // no such socket, a name not found) is in the error it wraps.
            if let underlying = error.underlying { parts.append(UntrustedText.printable(cause(underlying), limit: 300)) }
            return parts.joined(separator: ", ")
        }
        return UntrustedText.printable(String(describing: error), limit: 300)
    }

    /// What the system said of a failed connection, each address tried with its own failure.
    private static func cause(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            let failures = error.connectionErrors.map { "\($0.target): \(cause($0.error))" }
            if failures.isEmpty, let lookup = error.dnsAError ?? error.dnsAAAAError { return "\(error.host) not found: \(cause(lookup))" }
            return failures.joined(separator: "; ")
        }
        // Its own description names the system call, and a refused connection a reset.
        if let error = error as? IOError { return "\(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))" }
        return String(describing: error)
    }
}
