#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PostgresNIO
import GroupSyncCore

// The statements a session sends on every round, prepared once per connection (postgres-nio
// prepares a statement the first time a connection executes it, under the statement's `name`).
//
// Why prepared: sent as unnamed statements, the server parsed and planned each one anew. Its
// own log (`log_min_duration_statement = 0`, during the benchmark's write figure) put the
// compare-and-swap at 320 µs of parsing and 140 µs of binding and planning for 210 µs of
// executing, all on the path from a write on one machine to its notification on another
// (docs/ARCHITECTURE.md, "The statements of a round are prepared").
//
// The names carry a version: a statement whose text changes gets a new name, so a connection
// never executes an older text under a newer name.

/// A catch-up page (docs/SYNC.md, section 6, steps 1 and 2): `$1` the space, `$2` the change it
/// starts after, `$3` and `$4` its row and byte bounds. The inner query takes at most `$3`
/// rows; the window keeps those that start before `$4` bytes of blobs, so the first row always
/// comes. `octet_length` of a stored blob reads its size, not the blob.
private let pageSQL = """
    SELECT name, sequence, change, blob FROM (
        SELECT name, sequence, change, blob, sum(octet_length(blob)) OVER (ORDER BY change) - octet_length(blob) AS before
        FROM (SELECT name, sequence, change, blob FROM groupsync_entry
              WHERE space = $1 AND change > $2 ORDER BY change LIMIT $3) AS page
    ) AS counted
    WHERE before < $4
    """

/// The bindings of ``pageSQL``.
private func pageBindings(space: [UInt8], after change: Int64, within limit: CatchUpPageLimit) throws -> PostgresBindings {
    var bindings = PostgresBindings(capacity: 4)
    try bindings.append(Data(space))
    bindings.append(change)
    bindings.append(limit.rows)
    bindings.append(limit.bytes)
    return bindings
}

/// The rows of a space changed after a change number, in change order, within a page's limit.
struct PageStatement: PostgresPreparedStatement {
    static let name = "groupsync_page_v1"
    static let sql = pageSQL + " ORDER BY change"

    var space: [UInt8]
    var after: Int64
    var limit: CatchUpPageLimit

    func makeBindings() throws -> PostgresBindings {
        try pageBindings(space: space, after: after, within: limit)
    }

    func decodeRow(_ row: PostgresRow) throws -> ServerRow {
        // As buffers, copied once into the row's arrays: through `Data` each column was copied
        // twice, for every row of a catch-up.
        var columns = RowColumns(row)
        let name = try columns.next(ByteBuffer.self), sequence = try columns.next(Int64.self)
        let change = try columns.next(Int64.self), blob = try columns.next(ByteBuffer.self)
        return ServerRow(name: Array(name.readableBytesView), sequence: sequence, change: change, blob: Array(blob.readableBytesView))
    }
}

/// The server's change counter (0 before the first write) and the first page after a change
/// number, in one round trip: one row for the counter even when no entry changed (the LEFT
/// JOIN keeps it, its entry columns NULL).
struct ChangesStatement: PostgresPreparedStatement {
    static let name = "groupsync_changes_v1"
    static let sql = """
        SELECT c.last, e.name, e.sequence, e.change, e.blob
        FROM (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM groupsync_change) AS c
        LEFT JOIN LATERAL (\(pageSQL)) AS e ON true
        ORDER BY e.change
        """

    var space: [UInt8]
    var after: Int64
    var limit: CatchUpPageLimit

    func makeBindings() throws -> PostgresBindings {
        try pageBindings(space: space, after: after, within: limit)
    }

    func decodeRow(_ row: PostgresRow) throws -> (lastChange: Int64, row: ServerRow?) {
        var columns = RowColumns(row)
        let counter = try columns.next(Int64.self), name = try columns.next(ByteBuffer?.self)
        let sequence = try columns.next(Int64?.self), change = try columns.next(Int64?.self), blob = try columns.next(ByteBuffer?.self)
        guard let name, let sequence, let change, let blob else { return (counter, nil) }
        return (counter, ServerRow(name: Array(name.readableBytesView), sequence: sequence, change: change, blob: Array(blob.readableBytesView)))
    }
}

/// The compare-and-swap: stores a blob at a sequence for an entry if the server's sequence for
/// it is still the base (no row when the base is 0), and notifies the space's channel in the
/// same transaction, with the stored row when it fits (``ChangeNotification``). A row comes
/// back, with the change number, only when the write was stored, and with whether the entry
/// had a row before: `held` sees the table as the statement started (every part of a statement
/// shares one snapshot), so a write that finds no row where its base says one was is told so
/// (docs/SYNC.md, section 6, "A row the server dropped").
///
/// The change number is drawn under `space_lock`, a transaction lock on the space (the
/// two-key form, whose keys never meet the migration's one-key lock), held until the write
/// commits: without it a write could draw a number, be overtaken by a later one that commits
/// first, and commit below a cursor that a catch-up had already moved past it, so that no
/// catch-up would ever read it (docs/SYNC.md, section 6, step 3, "Change numbers in commit
/// order").
struct CompareAndSwapStatement: PostgresPreparedStatement {
    static let name = "groupsync_compare_and_swap_v3"
    static let sql = """
        WITH held AS (SELECT 1 FROM groupsync_entry WHERE space = $1 AND name = $2),
        space_lock AS (SELECT pg_advisory_xact_lock(\(spaceLockClass), \(spaceLockKey))),
        written AS (
            INSERT INTO groupsync_entry AS e (space, name, sequence, change, blob)
            VALUES ($1, $2, $3, (SELECT nextval('groupsync_change') FROM space_lock), $4)
            ON CONFLICT (space, name) DO UPDATE
                SET sequence = EXCLUDED.sequence, change = EXCLUDED.change, blob = EXCLUDED.blob, written_at = now()
                WHERE e.sequence = $5
            RETURNING change, sequence, name, blob
        )
        SELECT change, EXISTS (SELECT 1 FROM held), pg_notify($6, \(ChangeNotification.payloadExpression)) FROM written
        """

    var space: [UInt8]
    var entry: [UInt8]
    var sequence: Int64
    var blob: [UInt8]
    var base: Int64
    var channel: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        try bindings.append(Data(space))
        try bindings.append(Data(entry))
        bindings.append(sequence)
        try bindings.append(Data(blob))
        bindings.append(base)
        bindings.append(channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> SwapResult {
        var columns = RowColumns(row)
        return SwapResult(change: try columns.next(Int64.self), replacedARow: try columns.next(Bool.self))
    }
}

/// The first key of the space lock: the bytes "GVSW" (the migration's lock is "GVSY").
private let spaceLockClass: Int32 = 0x4756_5357

/// The second key of the space lock: the space's first four bytes, as a signed big-endian
/// integer. Two spaces that share them share a lock, which only makes their writers wait for
/// each other.
private let spaceLockKey = "('x' || encode(substring($1 FROM 1 FOR 4), 'hex'))::bit(32)::integer"

/// A stored write: its change number, and whether it replaced a row of its entry (`false`: the
/// entry had none on the server).
struct SwapResult: Sendable, Equatable {
    var change: Int64
    var replacedARow: Bool
}
