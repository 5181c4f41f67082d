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
