import ArgumentParser
import Foundation
import GroupSync

/// What `status`, `now` and `watch` need of either kind of synced store: a group's ubiquitous
/// key-value store (`vaultcli sync`) and its synced records (`vaultcli sync records`).
protocol SyncedStore: Sendable {
    /// The server, when one is configured.
    var configuration: SyncConfiguration? { get }
    /// Where the store stands.
    var status: SyncStatus { get }
    /// One exchange with the server.
    func synchronizeWithServer() async throws(SyncError)
    /// Starts the background session (nothing without a server).
    func start()
    /// Stops it.
    func stop() async
}

extension UbiquitousKeyValueStore: SyncedStore {}
extension SyncedRecords: SyncedStore {}

/// A change a watch prints: another machine's or process's change, or (synced records) a
/// write of this machine that lost to another's.
enum SyncedStoreEvent: Sendable {
    case changed(UbiquitousChange)
    case conflict(SyncConflict)
}

extension SyncedStore {
    /// `status`: prints where the store stands.
    func printStatus(json: Bool) throws {
        let status = status
        if json {
            print(try JSONOutput.encodeLine(status))
            return
        }
        print("server: \(status.server ?? "none (local only)")")
        print("store id: \(status.storeID)   (the same on every machine that shares the store)")
        print("last push: \(status.lastPush.map { "\($0)" } ?? "never")")
        print("last pull: \(status.lastPull.map { "\($0)" } ?? "never")")
        print("pending writes: \(status.pendingWrites)")
        print("superseded: \(status.superseded)  conflicts: \(status.conflicts)")
        let refusals = status.refusals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print("refused: \(refusals.isEmpty ? "none" : refusals.joined(separator: ", "))")
    }

    /// `now`: one exchange with the server, then a line of what is left.
    func exchangeOnce(json: Bool) async throws {
        // The library's reason names its own way out (a SyncConfiguration); this one, the
        // command line's.
        guard configuration != nil else {
            throw CLIError(.usage, "configuration: no sync server is configured: set \(SyncConfiguration.environmentVariable)=postgres://user:password@host/database or pass --url")
        }
        do throws(SyncError) {
            try await synchronizeWithServer()
        } catch {
            throw CLIError(error)
        }
        let status = status
        if json {
            print(try JSONOutput.encodeLine(status))
        } else {
            print("synced: \(status.pendingWrites) pending, \(status.refusedCount) refused")
        }
    }

    /// `watch`: runs the session (when a server is configured) and hands each event to
    /// `report`, after `watching` once the streams are in place: a change made from then on
    /// is reported, by a notification or by the catch-up that follows every connection.
    /// Returns after `count` events, or runs until the process is killed.
    func watch(_ events: AsyncStream<SyncedStoreEvent>, count: Int?, watching: () -> Void, report: (SyncedStoreEvent) -> Void) async {
        start()
        watching()
        var seen = 0
        for await event in events {
            report(event)
            seen += 1
            if let count, seen >= count { break }
        }
        await stop()
    }

    /// One stream of `changes` and, when given, `conflicts`, in the order they arrive.
    static func events(_ changes: AsyncStream<UbiquitousChange>, _ conflicts: AsyncStream<SyncConflict>? = nil) -> AsyncStream<SyncedStoreEvent> {
        let (events, continuation) = AsyncStream.makeStream(of: SyncedStoreEvent.self)
        let forwarding = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await change in changes { continuation.yield(.changed(change)) } }
                if let conflicts {
                    group.addTask { for await conflict in conflicts { continuation.yield(.conflict(conflict)) } }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return events
    }
}

/// The server `--url` names, or (`nil`) the library's default, `GROUPVAULT_SYNC_URL`.
func serverConfiguration(_ url: String?) throws(SyncError) -> SyncConfiguration?? {
    guard let url else { return nil }
    return .some(SyncConfiguration(url: try SyncServerURL(url)))
}

extension UbiquitousChange {
    /// The change as `watch` prints it for a person: `serverChange: font, theme`, the keys
    /// sorted (a change lists them in no particular order). An initial sync that found nothing
    /// says so rather than ending on a colon.
    var line: String {
        "\(reason): " + (changedKeys.isEmpty ? "nothing changed" : changedKeys.sorted().joined(separator: ", "))
    }
}

extension CLIError {
    /// A GroupSync error with the exit status of its kind; its text escaped, since it may
    /// quote a key or a record name that a member of the group chose.
    init(_ error: SyncError) {
        let status: ExitStatus = switch error.code {
        case .configuration, .invalidArgument, .quota: .usage
        case .missingEntitlement, .refused: .refused
        default: .failed
        }
        self.init(status, Terminal.escaped(error.description))
    }
}
