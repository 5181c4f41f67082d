@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import XCTest

/// A connection the server has closed fails every request made on it, at once, with the
/// server's code: postgres-nio drops a query written on a closed channel without failing it, so
/// a request awaited there would wait forever, and a session stopped then would never stop.
final class ServerConnectionLossTests: SyncServerTestCase {
    private static let space = [UInt8](repeating: 0x5A, count: 32)

    /// What `request` threw, run on a connection whose server has stopped, once the connection
    /// has seen it close. A request still waiting after `limit` fails the test: the request runs
    /// in a task of its own, so that a regression fails here instead of hanging the suite (a
    /// guard, not a measure of anything).
    private func errorOfARequestAfterTheServerStopped(
        limit: Duration = .seconds(60),
        _ request: @escaping @Sendable (ServerConnection) async throws -> Void
    ) async throws -> (any Error)? {
        let connection = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(server.url)))
        try server.stop()
        try await connection.connection.closeFuture.get()

        let (outcomes, outcome) = AsyncStream<(any Error)??>.makeStream()
        Task {
            do {
                try await request(connection)
                outcome.yield(.some(nil))
            } catch {
                outcome.yield(.some(error))
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            outcome.yield(nil)
        }
        var iterator = outcomes.makeAsyncIterator()
        guard let first = await iterator.next(), let finished = first else {
            XCTFail("the request was still waiting after \(limit)")
            return nil
        }
        return finished
    }

    func testAQueryOnAConnectionTheServerClosedFailsAtOnce() async throws {
        let error = try await errorOfARequestAfterTheServerStopped { connection in
            _ = try await connection.rows(space: Self.space, after: 0, within: .standard)
        }

        XCTAssertEqual((error as? SyncError)?.code, .server, "\(String(describing: error))")
    }

    func testACompareAndSwapOnAConnectionTheServerClosedFailsAtOnce() async throws {
        let error = try await errorOfARequestAfterTheServerStopped { connection in
            _ = try await connection.compareAndSwap(
                space: Self.space, name: [UInt8](repeating: 1, count: 32), base: 0, sequence: 1, blob: [1, 2, 3], channel: "groupsync_test")
        }

        XCTAssertEqual((error as? SyncError)?.code, .server, "\(String(describing: error))")
    }
}
