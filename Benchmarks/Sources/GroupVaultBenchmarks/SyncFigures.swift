import BenchModel
import Foundation
import GroupSync
import Keyring
import PostgresNIO
import Vault

/// The initial-sync figure's values: a synced record holding a 64-byte string.
struct SyncBenchValue: VaultRecord {
    static let schemaVersion: UInt32 = 1
    var text: String
}

/// GroupSync's figures, on a PostgreSQL server of their own: a write on one machine until
/// another machine (a child process) sees it, and a fresh machine's initial sync, each
/// interleaved with the least postgres-nio work that moves the same bytes.
final class SyncFigures {
    private let root: URL
    private let executables: Executables
    private let options: Options
    private let server: SyncServer
    private let url: SyncServerURL
    private let configuration: SyncConfiguration
    private let groupKey: Data
    private let writer: Keyring
    private var homes = 0

    /// Starts the server under `root`; ``close()`` stops it.
    init(root: URL, executables: Executables, options: Options) throws {
        self.root = root
        self.executables = executables
        self.options = options
        server = try SyncServer(root: root)
        do {
            url = try SyncServerURL(server.url)
            configuration = SyncConfiguration(url: url)
            // Machine A creates the group's key #1; every other machine imports it, as a
            // machine that joins a group does (`keys export`, `keys import`).
            writer = BenchHome.keyring(root: root.appendingPathComponent("machine-a", isDirectory: true))
            _ = try writer.groupKey(for: BenchHome.group)
            groupKey = try writer.exportKey(id: 1, in: BenchHome.group)
        } catch {
            server.remove()
            throw error
        }
    }

    /// Stops the server and removes it.
    func close() { server.remove() }

    func measure() throws -> Outcome {
        var outcome = Outcome()
        progress("sync: a write seen on another machine...")
        outcome.append(try writeSeenFigure())
        outcome.append(try initialSyncFigures())
        return outcome
    }

    // MARK: Machines

    /// A new machine: a home of its own whose keyring holds the group's key #1.
    private func newMachine(_ name: String) throws -> (home: URL, keyring: Keyring) {
        homes += 1
        let home = root.appendingPathComponent("\(name)-\(homes)", isDirectory: true)
        let keyring = BenchHome.keyring(root: home)
        _ = try keyring.importKey(groupKey, id: 1, in: BenchHome.group)
        return (home, keyring)
    }

    /// A connection of the floors' own, as bare as postgres-nio makes one.
    private static func connect(_ url: SyncServerURL) async throws -> PostgresConnection {
        guard let socketPath = url.socketPath else { throw BenchmarkFailure("the benchmark's server listens on a Unix socket; got \(url.redacted)") }
        return try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: socketPath, username: url.user, password: nil, database: url.database),
            id: 1, logger: quietLogger)
    }

    // MARK: Write seen on another machine

    private func writeSeenFigure() throws -> Outcome {
        let store = try UbiquitousKeyValueStore(
            group: BenchHome.group, keyring: writer,
            entitlement: .some(UbiquityKeyValueStoreEntitlement(identifier: BenchSync.storeIdentifier)),
            configuration: .some(configuration))
        let started = store.externalChanges()
        store.start()
        defer { try? blocking { await store.stop() } }
        try blocking { try await firstChange(started, .initialSyncChange) }
        // A first write, untimed, so the entry exists and its sealed size can be read back.
        store.set(BenchSync.value(round: 0), forKey: BenchSync.key)
        store.synchronize()
        let deadline = ContinuousClock.now + .seconds(60)
        while store.status.pendingWrites > 0 {
            guard ContinuousClock.now < deadline else { throw BenchmarkFailure("machine A did not push its first write in 60 s: \(store.status.lastError ?? "no error")") }
            Thread.sleep(forTimeInterval: 0.01)
        }

        let url = self.url
        let floor = try blocking { try await Self.connect(url) }
        defer { try? blocking { try await floor.close() } }
        let blobSize = try blocking { () async throws -> Int in
            try await floor.query("CREATE TABLE \(unescaped: BenchSync.floorTable) (id bigint PRIMARY KEY, blob bytea NOT NULL)", logger: quietLogger)
            var size = 0
            for try await found in try await floor.query("SELECT max(octet_length(blob)) FROM groupsync_entry", logger: quietLogger).decode(Int.self) {
                size = found
            }
            return size
        }
        guard blobSize > 0 else { throw BenchmarkFailure("machine A's write is not on the server") }

        // Machine B: a process of its own, with its own home.
        let observerHome = try newMachine("machine-b").home
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executables.path("SyncObserver"))
        child.arguments = [observerHome.path, server.url]
        // The child exits when this pipe closes, so it never outlives the benchmark.
        let lifeline = Pipe()
        let output = Pipe()
        child.standardInput = lifeline
        child.standardOutput = output
        try child.run()
        defer {
            try? lifeline.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        let lines = ChildLines(output)
        try lines.wait(for: "ready")

        let label = "`UbiquitousKeyValueStore.set` + `synchronize()` on machine A until machine B's `externalChanges()` reports it"
        let floorLabel = "postgres-nio `INSERT` + `NOTIFY` of \(count(blobSize)) B on one connection until a `LISTEN` on another reports it"
        var writes = 0
        var inserts = 0
        // After each contender, untimed, a pause: machine A's session runs a round or two more
        // after a write (for its own notification and the extra wake-up of `synchronize()`:
        // a catch-up query and a journal record synced). Nothing public says when they
        // end, so the pause is twice the write's own time (at least 20 ms), which keeps that
        // work out of the next contender's time in the traces this was checked with.
        let settle = 0.02
        let results = try interleave([
            Contender(label: label, role: .groupVault) {
                writes += 1
                let value = BenchSync.value(round: writes)
                let expected = "kv \(writes)"
                let measurement = try Measurement.timing {
                    store.set(value, forKey: BenchSync.key)
                    store.synchronize()
                    try lines.wait(for: expected)
                }
                Thread.sleep(forTimeInterval: max(settle, 2 * measurement.microseconds / 1e6))
                return measurement
            },
            Contender(label: floorLabel, role: .floor) {
                inserts += 1
                let round = inserts
                var bytes = Data(repeating: 0x61, count: blobSize)
                bytes[0] = UInt8(truncatingIfNeeded: round)
                let blob = bytes
                let microseconds = try blocking {
                    try await timed {
                        let rows = try await floor.query("""
                            WITH written AS (
                                INSERT INTO \(unescaped: BenchSync.floorTable) (id, blob) VALUES (1, \(blob))
                                ON CONFLICT (id) DO UPDATE SET blob = EXCLUDED.blob
                                RETURNING id
                            )
                            SELECT pg_notify(\(BenchSync.floorChannel), \(String(round))) FROM written
                            """, logger: quietLogger)
                        for try await _ in rows {}
                        try lines.wait(for: "floor \(round)")
                    }
                }
                Thread.sleep(forTimeInterval: settle)
                return Measurement(microseconds: microseconds)
            },
        ], options.schedule)

        var outcome = Outcome()
        outcome.sections.append(Section(
            title: "Write seen on another machine",
            notes: [
                "Machine A (this process, its own home) sets a \(BenchSync.valueSize)-byte string in a `UbiquitousKeyValueStore` and calls "
                    + "`synchronize()`, as an app using Apple's store does; machine B (a `SyncObserver` child process with a home of its own) "
                    + "has the same store syncing and prints a line to a pipe when `externalChanges()` reports the key changed through the "
                    + "server. Timed: from the `set` until this process reads that line. In between: A's durable local write (one journal "
                    + "record, `fdatasync`ed), its session's round (a compare-and-swap of the \(count(blobSize))-byte sealed entry with "
                    + "`NOTIFY` in the same statement, with no catch-up first when only local writes woke it), and B's round after the "
                    + "notification, whose payload carries the stored row (judging and opening the entry, one journal record "
                    + "`fdatasync`ed; the catch-up query that follows every notification finds nothing more). "
                    + "Each contender is followed, untimed, by a pause (20 ms, or twice the write's own time) so that the extra rounds "
                    + "A's session runs after a write (its own notification, `synchronize()`'s wake-up) end before the next one.",
                "The floor is the bare postgres-nio path between the same two processes and the same server: one statement on this "
                    + "process's connection upserts a \(count(blobSize))-byte `bytea` row and notifies in the same transaction; "
                    + "B's own connection `LISTEN`s and prints a line to the same pipe for each notification. The server is a throw-away "
                    + "cluster on a Unix socket, started by `scripts/postgres-server` (`fsync=off`, as in the tests).",
            ],
            table: timeTable(results)))
        let synced = result(label, in: results).times
        let bare = result(floorLabel, in: results).times
        outcome.checks.append(.ratio(
            "write seen on another machine", ratio: synced.median / bare.median, limit: 2,
            measured: ratioText(results, label, floorLabel, floorName: "INSERT + NOTIFY to LISTEN")
                + "; p99 \(microseconds(synced.p99)) µs vs \(microseconds(bare.p99)) µs",
            target: "≤ 2× INSERT + NOTIFY to LISTEN"))
        return outcome
    }

    // MARK: Initial sync

    private func initialSyncFigures() throws -> Outcome {
        let filler = try SyncedRecords(group: BenchHome.group, keyring: writer, configuration: .some(configuration))
        let url = self.url
        let floor = try blocking { try await Self.connect(url) }
        defer { try? blocking { try await floor.close() } }
        try blocking { _ = try await floor.query("CREATE TABLE bench_rows (name bytea PRIMARY KEY, blob bytea NOT NULL)", logger: quietLogger) }

        var growth = GroupGrowth(budgetSeconds: options.populationBudget)
        var outcome = Outcome()
        var measured = -1
        let push = {
            try blocking { try await filler.synchronizeWithServer() }
            guard filler.status.pendingWrites == 0 else { throw BenchmarkFailure("the filling machine's writes stayed pending: \(filler.status.lastError ?? "no error")") }
        }
        for target in options.sizes {
            progress("sync: filling the server to \(count(target)) synced records...")
            // Written locally, pushed every 500 writes: the writes of a machine that was offline.
            let size = try growth.grow(to: target) { index in
                try filler.write(SyncBenchValue(text: BenchSync.value(round: index)), to: BenchHome.recordName(index))
                if (index + 1) % 500 == 0 { try push() }
            }
            try push()
            if size == measured {
                outcome.skipped.append("Initial sync of \(count(target)) values: not measured, the server stayed at \(count(size)) values (population budget spent).")
                continue
            }
            measured = size
            progress("sync: measuring an initial sync of \(count(size)) values...")
            outcome.append(try initialSyncFigure(size: size, target: target, notes: [growth.shortfall(target: target, reached: size, unit: "values")].compactMap { $0 }, floor: floor))
        }
        return outcome
    }

    private func initialSyncFigure(size: Int, target: Int, notes: [String], floor: PostgresConnection) throws -> Outcome {
        // The floor's table holds the very bytes of the synced space's rows.
        let copied = try blocking { () async throws -> Int in
            try await floor.query("TRUNCATE bench_rows", logger: quietLogger)
            try await floor.query("""
                INSERT INTO bench_rows (name, blob) SELECT name, blob FROM groupsync_entry
                WHERE space = (SELECT space FROM groupsync_entry GROUP BY space ORDER BY count(*) DESC LIMIT 1)
                """, logger: quietLogger)
            var rows = 0
            for try await found in try await floor.query("SELECT count(*) FROM bench_rows", logger: quietLogger).decode(Int.self) { rows = found }
            return rows
        }
        guard copied == size else { throw BenchmarkFailure("the server holds \(copied) synced records, not \(size)") }
        let bytes = try blocking { () async throws -> Int in
            var total = 0
            for try await found in try await floor.query("SELECT sum(octet_length(name) + octet_length(blob))::bigint FROM bench_rows", logger: quietLogger).decode(Int.self) { total = found }
            return total
        }

        // The space's snapshot (docs/SYNC.md, section 6, "Snapshots"), as the filling machine's
        // rounds left it: the values it holds, and the rows a fresh machine reads after it.
        let (covered, after) = try blocking { () async throws -> (Int?, Int) in
            var found: (Int?, Int) = (nil, size)
            for try await row in try await floor.query("""
                SELECT (SELECT count(*) FROM groupsync_entry AS e WHERE e.space = s.space AND e.change <= s.change)::bigint,
                       (SELECT count(*) FROM groupsync_entry AS e WHERE e.space = s.space AND e.change > s.change)::bigint
                FROM groupsync_snapshot AS s
                WHERE s.space = (SELECT space FROM groupsync_entry GROUP BY space ORDER BY count(*) DESC LIMIT 1)
                """, logger: quietLogger).decode((Int, Int).self) { found = (row.0, row.1) }
            return found
        }
        let snapshotNote = covered.map { "the newest holds \(count($0)) of the values, and \(count(after)) rows come after it" }
            ?? "there is none (fewer than 64 entries changed), and the fresh machine reads all \(count(after)) rows"

        let label = "`SyncedRecords.start()` on a fresh machine until `changes()` reports `initialSyncChange`"
        let floorLabel = "postgres-nio connect + one `SELECT` of the same \(count(size)) rows (\(count(bytes)) B)"
        let configuration = self.configuration
        let url = self.url
        let results = try interleave([
            Contender(label: label, role: .groupVault) {
                let machine = try self.newMachine("fresh")
                defer { try? FileManager.default.removeItem(at: machine.home) }
                let records = try SyncedRecords(group: BenchHome.group, keyring: machine.keyring, configuration: .some(configuration))
                let changes = records.changes()
                let microseconds = try blocking {
                    try await timed {
                        records.start()
                        try await firstChange(changes, .initialSyncChange)
                    }
                }
                try blocking { await records.stop() }
                guard records.names().count == size else {
                    throw BenchmarkFailure("the fresh machine holds \(records.names().count) records after its initial sync, not \(size)")
                }
                return Measurement(microseconds: microseconds)
            },
            Contender(label: floorLabel, role: .floor) {
                let (microseconds, connection) = try blocking { () async throws -> (Double, PostgresConnection) in
                    var opened: PostgresConnection?
                    let microseconds = try await timed {
                        let connection = try await Self.connect(url)
                        opened = connection
                        var rows: [(Data, Data)] = []
                        rows.reserveCapacity(size)
                        for try await row in try await connection.query("SELECT name, blob FROM bench_rows", logger: quietLogger).decode((Data, Data).self) {
                            rows.append(row)
                        }
                        guard rows.count == size else { throw BenchmarkFailure("the floor read \(rows.count) rows, not \(size)") }
                    }
                    return (microseconds, opened!)
                }
                try blocking { try await connection.close() }
                return Measurement(microseconds: microseconds)
            },
        ], options.schedule)

        var outcome = Outcome()
        outcome.sections.append(Section(
            title: "Initial sync of \(count(size)) values",
            notes: notes + [
                "The server holds \(count(size)) synced records (`SyncedRecords`, each a \(BenchSync.valueSize)-byte string, sealed: "
                    + "\(count(bytes)) B of names and sealed entries), written by machine A. Each round a fresh machine (a new home that imports "
                    + "the group's key #1, in this process) opens the group's `SyncedRecords` and starts its session; timed from `start()` "
                    + "until `changes()` reports `initialSyncChange`: connecting, the schema check, `LISTEN`, reading and opening the "
                    + "space's sealed snapshot (one AEAD pass, each entry's checks) while the rows after it are read and opened (pages "
                    + "of 4,000 rows at most), then judging those rows against the snapshot's entries and writing both as one state, "
                    + "whole and durably (the journal that follows it started once `initialSyncChange` is told; a journal record per later "
                    + "page). Machine A pushed every 500 writes, and its rounds wrote a snapshot whenever half the space's entries had "
                    + "changed since the last (docs/SYNC.md, section 6, \"Snapshots\"): \(snapshotNote). `SyncedRecords` rather than the "
                    + "key-value store: Apple's store holds at most 1,024 keys.",
                "The floor connects a new postgres-nio connection and reads the same rows (the same bytes, copied server-side into "
                    + "a bare table by one batched `INSERT … SELECT`) with one `SELECT`, decoding each into `Data`.",
            ],
            table: timeTable(results)))
        if target == options.sizes.last {
            outcome.checks.append(sizedCheck(
                "initial sync of \(count(target)) values",
                ratio: result(label, in: results).median / result(floorLabel, in: results).median, limit: 2,
                reached: size, required: target, unit: "values",
                measured: ratioText(results, label, floorLabel, floorName: "connect + SELECT"),
                target: "≤ 2× connect + batched SELECT"))
        }
        return outcome
    }
}

/// postgres-nio logs at debug and trace only; the floors, as GroupSync, keep it silent.
let quietLogger: Logger = {
    var logger = Logger(label: "bench.sync")
    logger.logLevel = .critical
    return logger
}()

/// Waits until `changes` reports a change for `reason`, for at most `timeout` (a bound on a
/// session that never gets there, which fails the run).
func firstChange(_ changes: AsyncStream<UbiquitousChange>, _ reason: UbiquitousChangeReason, timeout: Duration = .seconds(120)) async throws {
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            for await change in changes where change.reason == reason { return }
            throw BenchmarkFailure("the change stream ended before \(reason)")
        }
        tasks.addTask {
            try await Task.sleep(for: timeout)
            throw BenchmarkFailure("no \(reason) within \(timeout)")
        }
        try await tasks.next()
        tasks.cancelAll()
    }
}
