@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import PostgresNIO
import XCTest

/// A round's statements are prepared once per connection (docs/SYNC.md, section 6, "Prepared
/// statements"), not parsed and planned by the server on every send; a connection's first
/// catch-up goes unprepared, in one round trip rather than two.
final class ServerStatementsTests: SyncServerTestCase {
    private static let space = [UInt8](repeating: 0x5A, count: 32)

    /// The names of the statements prepared on `server`'s connection, as its server session lists them.
    private func preparedNames(on server: ServerConnection) async throws -> [String] {
        var names: [String] = []
        let rows = try await server.connection.query("SELECT name FROM pg_prepared_statements ORDER BY name", logger: Logger(label: "test"))
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    func testARoundsStatementsArePreparedOnceOnTheirConnection() async throws {
        let server = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(self.server.url)))
        addTeardownBlock { await server.close() }
        let name = [UInt8](repeating: 0x11, count: 32)
        for sequence in 1...3 {
            let stored = try await server.compareAndSwap(
                space: Self.space, name: name, base: UInt64(sequence - 1), sequence: UInt64(sequence),
                blob: [UInt8](repeating: UInt8(sequence), count: 40), channel: "test")
            XCTAssertNotNil(stored, "write \(sequence) must be stored")
            _ = try await server.changes(space: Self.space, after: 0, within: .standard)
            _ = try await server.rows(space: Self.space, after: 0, within: .standard)
        }

        let prepared = try await preparedNames(on: server)
        XCTAssertEqual(prepared, [CompareAndSwapStatement.name, ChangesStatement.name, PageStatement.name].sorted())
    }

    func testAConnectionsFirstCatchUpIsSentUnpreparedAndItsSecondPrepared() async throws {
        let server = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(self.server.url)))
        addTeardownBlock { await server.close() }

        _ = try await server.changes(space: Self.space, after: 0, within: .standard)
        let afterTheFirst = try await preparedNames(on: server)
        _ = try await server.changes(space: Self.space, after: 0, within: .standard)
        let afterTheSecond = try await preparedNames(on: server)

        XCTAssertEqual(afterTheFirst, [], "the first catch-up must not cost a round trip to prepare")
        XCTAssertEqual(afterTheSecond, [ChangesStatement.name])
    }
}
