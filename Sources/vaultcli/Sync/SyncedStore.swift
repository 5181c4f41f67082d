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
    /// One exchange that also compares every entry on the server with this machine's.
    func verifyWithServer() async throws(SyncError) -> SyncVerification
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
        try requireServer()
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

    /// `verify`: one verification (docs/SYNC.md, section 6, "Verifying the server"); prints
    /// what it found, and exits 1 when it found anything.
    func verifyOnce(json: Bool) async throws {
        try requireServer()
        let verification: SyncVerification
        do throws(SyncError) {
            verification = try await verifyWithServer()
        } catch {
            throw CLIError(error)
        }
        if json {
            print(try JSONOutput.encodeLine(ServerVerificationReport(verification)))
        } else {
            let counts = [
                ("rows read", verification.rowsRead), ("entries compared", verification.entriesCompared), ("missing", verification.missing),
                ("older", verification.older), ("differing", verification.differing), ("unread", verification.unread), ("restored", verification.restored),
            ]
            print("\(verification.isClean ? "clean" : "findings"): " + counts.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            let refusals = verification.refusals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            if !refusals.isEmpty { print("refused: \(refusals.joined(separator: ", "))") }
        }
        if !verification.isClean { throw ExitCode(ExitStatus.findings.rawValue) }
    }

    /// Refuses a command that needs the server when none is configured. The library's reason
    /// names its own way out (a SyncConfiguration); this one, the command line's.
    private func requireServer() throws {
        guard configuration != nil else {
            throw CLIError(.usage, "configuration: no sync server is configured: set \(SyncConfiguration.environmentVariable)=postgres://user:password@host/database or pass --url")
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

/// The server `--url` names, or (`nil`) the library's default, `GROUPVAULT_SYNC_URL`; with
/// `verificationInterval` (`--verify-every`) in place of the library's, when given.
func serverConfiguration(_ url: String?, verificationInterval: Duration?? = nil) throws(SyncError) -> SyncConfiguration?? {
    guard url != nil || verificationInterval != nil else { return nil }
    var configuration: SyncConfiguration?
    if let url {
        configuration = SyncConfiguration(url: try SyncServerURL(url))
    } else {
        // The environment's server, read here rather than by the store, to set the interval on it.
        configuration = try SyncConfiguration.fromEnvironment()
    }
    if let verificationInterval { configuration?.verificationInterval = verificationInterval }
    return .some(configuration)
}

/// `--verify-every`: how often a watch's session verifies the server.
struct VerificationOptions: ParsableArguments {
    @Option(name: .customLong("verify-every"), help: "Seconds between the session's verifications of the server, 0 for none (default: a day).")
    var verifyEvery: Double?

    func validate() throws {
        // Duration(seconds:) traps on a value that is not finite or too large to hold.
        guard let verifyEvery else { return }
        guard verifyEvery.isFinite, verifyEvery >= 0, verifyEvery <= 1e9 else {
            throw ValidationError("--verify-every is a number of seconds from 0 (no verification) to 1000000000, not \(verifyEvery)")
        }
    }

    /// The interval to configure: `nil` for the library's default, `.some(nil)` for none.
    var interval: Duration?? {
        guard let verifyEvery else { return nil }
        return .some(verifyEvery > 0 ? .seconds(verifyEvery) : nil)
    }
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

/// `verify --json`: the verification's counts (``SyncVerification``'s own members) and
/// whether it is clean, in one object.
struct ServerVerificationReport: Encodable {
    var verification: SyncVerification

    init(_ verification: SyncVerification) { self.verification = verification }

    private enum CodingKeys: String, CodingKey { case clean }

    func encode(to encoder: any Encoder) throws {
        // The verification's members and `clean` share one keyed container.
        try verification.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(verification.isClean, forKey: .clean)
    }
}
