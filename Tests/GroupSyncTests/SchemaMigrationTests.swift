@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import PostgresNIO
import SealedStorage
import XCTest

/// Connecting creates or migrates the server's schema (docs/SYNC.md, "Schema"): once, under a
/// lock, refusing a schema newer than this client knows, and recognising a current one with a
/// single statement, without the migration's lock.
final class SchemaMigrationTests: SyncServerTestCase {
    private var configuration: SyncConfiguration {
        get throws { SyncConfiguration(url: try SyncServerURL(server.url)) }
    }

    private func connect() async throws -> ServerConnection {
        let connection = try await ServerConnection.open(try configuration)
        addTeardownBlock { await connection.close() }
        return connection
    }

    func testAFreshServerGetsTheCurrentSchemaOnceWhateverTheConnections() async throws {
        for _ in 0..<3 { _ = try await connect() }

        // One version row per migration step: each ran once.
        XCTAssertEqual(try server.value("SELECT count(*), max(version) FROM groupsync_schema"), "\(SyncSchema.currentVersion)|\(SyncSchema.currentVersion)")
        XCTAssertEqual(try server.value("SELECT count(*) FROM groupsync_entry"), "0")
    }

    func testAVersionTableWithoutItsMigrationIsMigrated() async throws {
        _ = try server.psql(SyncSchema.versionTable)

        _ = try await connect()

        XCTAssertEqual(try server.value("SELECT max(version) FROM groupsync_schema"), "\(SyncSchema.currentVersion)")
        XCTAssertEqual(try server.value("SELECT count(*) FROM groupsync_entry"), "0")
    }

    /// A server of version 1 (before snapshots) keeps its rows and gains the snapshot table.
    func testAVersion1ServerIsMigratedToTheCurrentVersionWithItsRowsKept() async throws {
        _ = try server.psql(SyncSchema.versionTable)
        for statement in SyncSchema.migrations[0] { _ = try server.psql(statement) }
        _ = try server.psql("""
            INSERT INTO groupsync_schema (version) VALUES (1);
            INSERT INTO groupsync_entry (space, name, sequence, change, blob)
            VALUES (decode(repeat('00', 32), 'hex'), decode(repeat('11', 32), 'hex'), 1, nextval('groupsync_change'), '\\x01')
            """)

        _ = try await connect()

        XCTAssertEqual(try server.value("SELECT string_agg(version::text, ',' ORDER BY version) FROM groupsync_schema"), "1,2,3")
        XCTAssertEqual(try server.value("SELECT count(*) FROM groupsync_entry"), "1")
        XCTAssertEqual(try server.value("SELECT count(*) FROM groupsync_snapshot"), "0")
    }

    /// A client of version 2 draws change numbers without the space's lock, which lets a
    /// catch-up miss a write for good (docs/SYNC.md, section 6, "Change numbers in commit
    /// order"). This client marks the server version 3, which such a client refuses as newer
    /// than it knows, rather than writing beside this one.
    func testAVersion2ServerIsMarkedVersion3SoThatClientsDrawingWithoutTheSpaceLockRefuseIt() async throws {
        _ = try server.psql(SyncSchema.versionTable)
        for statement in SyncSchema.migrations[0] + SyncSchema.migrations[1] { _ = try server.psql(statement) }
        _ = try server.psql("INSERT INTO groupsync_schema (version) VALUES (1), (2)")

        _ = try await connect()

        XCTAssertEqual(try server.value("SELECT string_agg(version::text, ',' ORDER BY version) FROM groupsync_schema"), "1,2,3")
        let comment = try server.value("SELECT obj_description('groupsync_change'::regclass, 'pg_class')")
        XCTAssertTrue(comment.contains("pg_advisory_xact_lock(1196839767"), comment)
    }

    func testASchemaNewerThanThisClientKnowsIsRefused() async throws {
        _ = try await connect()
        _ = try server.psql("INSERT INTO groupsync_schema (version) VALUES (\(SyncSchema.currentVersion + 1))")

        do {
            _ = try await connect()
            XCTFail("a schema of version \(SyncSchema.currentVersion + 1) was used")
        } catch {
            let error = try XCTUnwrap(error as? SyncError, "\(error)")
            XCTAssertEqual(error.code, .schema)
            XCTAssertTrue(error.reason.contains("schema version \(SyncSchema.currentVersion + 1)"), error.reason)
        }
    }

    /// While another session holds the migration's advisory lock, a connection to a server at
    /// the current version still opens: it never asked for the lock. (Had it, it would wait in
    /// the server; the test watches the server for such a wait rather than timing anything.)
    func testACurrentSchemaIsRecognisedWithoutTheMigrationLock() async throws {
        let holder = try await connect()
        let logger = Logger(label: "test")
        try await holder.connection.query("SELECT pg_advisory_lock(\(SyncSchema.migrationLock))", logger: logger)

        let configuration = try configuration
        let finished = Locked<Result<ServerConnection, SyncError>?>(nil)
        let opening = Task {
            let result: Result<ServerConnection, SyncError>
            do throws(SyncError) { result = .success(try await ServerConnection.open(configuration, id: 2)) } catch { result = .failure(error) }
            finished.withLock { $0 = result }
        }
        let waitingForTheLock = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        while true {
            if let result = finished.withLock({ $0 }) {
                await (try result.get()).close()
                return
            }
            if try server.value(waitingForTheLock) != "0" {
                try await holder.connection.query("SELECT pg_advisory_unlock_all()", logger: logger)
                await opening.value
                if case .success(let opened) = finished.withLock({ $0 }) { await opened.close() }
                XCTFail("connecting to a server at the current schema waited for the migration lock")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
