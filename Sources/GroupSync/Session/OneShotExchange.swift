/// An exchange with the server on a connection of its own, outside any session: what
/// `synchronizeWithServer()` and `verifyWithServer()` of both stores run.
enum OneShotExchange {
    /// Opens a connection to `configuration`'s server (refused when there is none), adopts the
    /// server for `replica` (another server is an account change), runs `exchange` on it and
    /// closes it, whether `exchange` succeeds or fails. `connectionID` tells this connection
    /// from a session's in postgres-nio's logs.
    @discardableResult
    static func run<Result: Sendable>(
        _ replica: SyncReplica, configuration: SyncConfiguration?, connectionID: Int,
        _ exchange: (ServerConnection) async throws(SyncError) -> Result
    ) async throws(SyncError) -> Result {
        guard let configuration else {
            throw SyncError(.configuration, "no sync server is configured: set \(SyncConfiguration.environmentVariable)=postgres://... or pass a SyncConfiguration")
        }
        try replica.adopt(server: configuration.url.serverIdentity)
        let server = try await ServerConnection.open(configuration, id: connectionID)
        let result: Result
        do {
            result = try await exchange(server)
        } catch {
            await server.close()
            throw error
        }
        await server.close()
        return result
    }
}
