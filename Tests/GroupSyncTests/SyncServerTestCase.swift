import GroupSync
import GroupSyncTestKit
import SealedStorage
import XCTest

/// A throw-away PostgreSQL server and a sandbox of machines, started before each test and
/// removed after it: the arrangement every suite that syncs through a server shares.
class SyncServerTestCase: SyncSandboxTestCase {
    override class var machines: Int { 2 }

    var server: PostgresServer!

    override func setUpWithError() throws {
        server = try PostgresServer()
        try server.start()
        try super.setUpWithError()
    }

    override func tearDown() {
        server?.remove()
        super.tearDown()
    }

    /// Which rows ``tamperWithBlobs(of:announcing:)`` alters.
    enum TamperedRows {
        case all
        /// The row with the highest change number.
        case newest
    }

    /// Flips one byte of the sealed part of the blobs of `rows` on the server, as an operator
    /// who alters what the server stores would; `announcing` also gives each a new change
    /// number, so that a machine's next catch-up reads it.
    func tamperWithBlobs(of rows: TamperedRows = .all, announcing: Bool = true) throws {
        let change = announcing ? ", change = nextval('groupsync_change')" : ""
        let which = rows == .newest ? " WHERE change = (SELECT max(change) FROM groupsync_entry)" : ""
        try server.psql("UPDATE groupsync_entry SET blob = set_byte(blob, 100, get_byte(blob, 100) # 1)\(change)\(which)")
    }

    /// Flips one byte of the sealed part of every snapshot on the server (SQL for `psql`).
    static let tamperWithTheSnapshot = "UPDATE groupsync_snapshot SET blob = set_byte(blob, 100, get_byte(blob, 100) # 1)"

    /// Runs `sync` while the file step `step` fails with an I/O error in the whole process (a
    /// process-wide fault, so the session's threads meet it too), and asserts that the sync
    /// fails as `storage`; `unexpected` is the failure when it succeeds instead.
    func assertSyncFailsAsStorage(
        at step: FaultPoint, _ unexpected: String, file: StaticString = #filePath, line: UInt = #line,
        _ sync: () async throws -> Void
    ) async {
        do {
            try await FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(step)) {
                try await sync()
            }
            XCTFail(unexpected, file: file, line: line)
        } catch {
            XCTAssertEqual((error as? SyncError)?.code, .storage, "\(error)", file: file, line: line)
        }
    }
}
