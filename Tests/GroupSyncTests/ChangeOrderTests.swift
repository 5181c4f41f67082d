@testable import GroupSync
import GroupSyncTestKit
import Logging
import PostgresNIO
import XCTest

/// Change numbers of a space commit in the order they are drawn (docs/SYNC.md, section 6,
/// step 3, "Change numbers in commit order"): a catch-up that has read a change has read every
/// change below it that will ever commit, so no write slips in under a machine's cursor.
final class ChangeOrderTests: SyncServerTestCase {
    override class var machines: Int { 3 }

    /// The lock a stalled write waits for, held by the test: the one-key form, which never
    /// meets the space lock's two keys.
    private static let stallLock = 4242

    /// Installs a trigger that holds the first write stored on the server, after it has drawn
    /// its change number and before it commits, until ``releaseTheStalledWrite(_:)``, and
    /// returns the connection holding the lock it waits for.
    private func stallTheFirstWrite() async throws -> ServerConnection {
        // Connecting creates the schema the trigger is on.
        let holder = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(server.url)))
        try await holder.connection.query("SELECT pg_advisory_lock(\(Self.stallLock))", logger: Logger(label: "test"))
        try server.psql("""
            CREATE SEQUENCE stall_once;
            CREATE FUNCTION stall_the_first_write() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('stall_once') = 1 THEN PERFORM pg_advisory_xact_lock(\(Self.stallLock)); END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER stall AFTER INSERT OR UPDATE ON groupsync_entry FOR EACH ROW EXECUTE FUNCTION stall_the_first_write();
            """)
        return holder
    }

    private func releaseTheStalledWrite(_ holder: ServerConnection) async throws {
        try await holder.connection.query("SELECT pg_advisory_unlock(\(Self.stallLock))", logger: Logger(label: "test"))
        await holder.close()
    }

    /// How many backends wait for an advisory lock: the stall's (one key) or a space lock (two).
    private func waitingForALock(keys: Int) throws -> Int {
        Int(try server.value("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = \(keys)")) ?? -1
    }

    private func storedRows() throws -> Int {
        Int(try server.value("SELECT count(*) FROM groupsync_entry")) ?? -1
    }

    func testAWriteThatDrewItsChangeNumberFirstAndCommitsLastIsStillReadByAnotherMachine() async throws {
        let (first, second, reader) = (try sandbox.store(0, url: server.url), try sandbox.store(1, url: server.url), try sandbox.store(2, url: server.url))
        let holder = try await stallTheFirstWrite()
        try first.setValue(.string("first"), forKey: "a")
        let firstPush = Task { try await first.synchronizeWithServer() }
        let stalled = try await eventually { try self.waitingForALock(keys: 1) == 1 }
        XCTAssertTrue(stalled, "the first write must be held after drawing its change number")

        // The second write, of another key, either waits for the first to commit (the space
        // lock) or, drawing a higher number, commits before it.
        try second.setValue(.string("second"), forKey: "b")
        let secondPush = Task { try await second.synchronizeWithServer() }
        let decided = try await eventually { try self.waitingForALock(keys: 2) == 1 || self.storedRows() == 1 }
        XCTAssertTrue(decided, "the second write must either wait or be stored")
        // A catch-up now reads whatever has committed and moves the reader's cursor past it.
        try await reader.synchronizeWithServer()
        try await releaseTheStalledWrite(holder)
        try await firstPush.value
        try await secondPush.value

        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.string(forKey: "a"), "first", "the write that committed last must reach the reader: \(reader.status)")
        XCTAssertEqual(reader.string(forKey: "b"), "second")
    }

    func testAWriteOfAnotherSpaceDoesNotWaitForOneInFlight() async throws {
        let holder = try await stallTheFirstWrite()
        let configuration = SyncConfiguration(url: try SyncServerURL(server.url))
        let (stalled, other) = (try await ServerConnection.open(configuration), try await ServerConnection.open(configuration))
        addTeardownBlock { await stalled.close(); await other.close() }
        let name = [UInt8](repeating: 0x11, count: 32), blob = [UInt8](repeating: 0x22, count: 40)
        let held = Task {
            try await stalled.compareAndSwap(space: [UInt8](repeating: 0x5A, count: 32), name: name, base: 0, sequence: 1, blob: blob, channel: "test")
        }
        let isHeld = try await eventually { try self.waitingForALock(keys: 1) == 1 }
        XCTAssertTrue(isHeld)

        let written = Task {
            try await other.compareAndSwap(space: [UInt8](repeating: 0xA5, count: 32), name: name, base: 0, sequence: 1, blob: blob, channel: "test")
        }
        let decided = try await eventually { try self.waitingForALock(keys: 2) == 1 || self.storedRows() == 1 }

        XCTAssertTrue(decided)
        XCTAssertEqual(try waitingForALock(keys: 2), 0, "a write of another space must not wait for the space lock")
        XCTAssertEqual(try storedRows(), 1, "the other space's write must commit while the first is held")
        try await releaseTheStalledWrite(holder)
        _ = try await held.value
        let stored = try await written.value
        XCTAssertNotNil(stored)
    }
}
