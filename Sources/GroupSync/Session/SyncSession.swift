#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoreMetrics
import Logging
import PostgresNIO
import SealedStorage
import GroupSyncCore

/// Keeps one space in sync while it runs: connects, listens on the space's channel, runs a
/// ``SyncRound`` after each notification or local write (no polling), verifies the server on
/// the configuration's schedule (``VerificationSchedule``), and on any failure reconnects after
/// a backoff that doubles up to the configuration's maximum.
final class SyncSession: Sendable {
    /// What ``SyncStatus`` shows of the connection.
    struct Health: Sendable {
        var connected = false
        var lastError: String?
        var failuresInARow = 0
    }

    let replica: SyncReplica
    let configuration: SyncConfiguration
    private let task = Locked<Task<Void, Never>?>(nil)
    let health = Locked(Health())
    /// When the next verification is due; `nil` without a verification interval.
    private let verification: Locked<VerificationSchedule>?

    init(replica: SyncReplica, configuration: SyncConfiguration) {
        self.replica = replica
        self.configuration = configuration
        verification = VerificationSchedule.of(interval: configuration.verificationInterval, from: .now).map { Locked($0) }
    }

    func start() {
        task.withLock { task in
            guard task == nil else { return }
            verification?.withLock { $0 = VerificationSchedule(interval: $0.interval, from: .now) }
            task = Task { [self] in await run() }
        }
    }

    /// Stops the session and waits until its connection is closed.
    func stop() async {
        let running = task.withLock { task -> Task<Void, Never>? in defer { task = nil }; return task }
        running?.cancel()
        await running?.value
    }

    private func run() async {
        var delay = configuration.initialReconnectDelay
        while !Task.isCancelled {
            do {
                // Connecting waits on the server (a new backend, authentication) and adopting on
                // the disk (on a fresh home, the state's first write): done at once, a session's
                // start pays the longer of the two rather than their sum (docs/ARCHITECTURE.md,
                // "A session connects while its state adopts the server").
                async let opening = ServerConnection.open(configuration)
                do {
                    try replica.adopt(server: configuration.url.serverIdentity)
                } catch {
                    // The connection is not used; closed once made, so none outlives the failure.
                    if let server = try? await opening { await server.close() }
                    throw error
                }
                let server = try await opening
                let failures = health.withLock { health in
                    defer { health.connected = true; health.failuresInARow = 0 }
                    return health.failuresInARow
                }
                if failures > 0 { reportReconnected(after: failures) }
                delay = configuration.initialReconnectDelay
                defer { health.withLock { $0.connected = false } }
                do {
                    try await serve(server)
                } catch {
                    await server.close()
                    throw error
                }
                await server.close()
            } catch {
                let message: String
                if let error = error as? SyncError { message = error.description } else { message = ServerConnection.describe(error) }
                let failures = health.withLock { health in
                    health.lastError = message
                    health.failuresInARow += 1
                    return health.failuresInARow
                }
                if Task.isCancelled { break }
                reportFailure(message, inARow: failures, retryingIn: delay)
            }
            if Task.isCancelled { break }
            // Backoff with jitter, so machines that lost one server do not return in lockstep.
            let jitter = Double.random(in: 0.5...1.0)
            try? await Task.sleep(for: delay * jitter)
            delay = min(delay * 2, configuration.maximumReconnectDelay)
        }
    }

    // MARK: Diagnostics

    private var logger: Logger { replica.keyring.logger }

    /// A failed or lost connection: counted every time, logged at `.info` the first time in a
    /// row (a daemon whose server is down for an hour logs one line, not one per backoff) and
    /// at `.debug` after that. The server is named without its password.
    private func reportFailure(_ message: String, inARow failures: Int, retryingIn delay: Duration) {
        Counter(label: SyncMetricLabel.reconnects, factory: replica.keyring.currentMetricsFactory).increment()
        let metadata: Logger.Metadata = [
            "server": "\(configuration.url.redacted)", "group": "\(replica.group)", "error": "\(message)",
            "failures_in_a_row": "\(failures)", "retry_within_ms": "\(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)",
        ]
        logger.log(level: failures == 1 ? .info : .debug, "sync server unreachable; reconnecting after a backoff", metadata: metadata)
    }

    /// A connection made after failures: the end of what ``reportFailure(_:inARow:retryingIn:)``
    /// began, at the same level as its first line.
    private func reportReconnected(after failures: Int) {
        logger.info("sync server reachable again", metadata: [
            "server": "\(configuration.url.redacted)", "group": "\(replica.group)", "failures": "\(failures)",
        ])
    }

    /// A scheduled verification's result: counted every time; its findings counted and logged
    /// at `.info`, the highest level the library logs at (what the caller cannot otherwise
    /// learn: no call of the caller's returned them), a clean one at `.debug`.
    private func reportVerification(_ found: SyncVerification) {
        let factory = replica.keyring.currentMetricsFactory
        Counter(label: SyncMetricLabel.verifications, factory: factory).increment()
        var metadata: Logger.Metadata = [
            "server": "\(configuration.url.redacted)", "group": "\(replica.group)",
            "rows_read": "\(found.rowsRead)", "entries_compared": "\(found.entriesCompared)",
        ]
        guard !found.isClean else {
            logger.debug("sync server verified: it holds what this machine accepted", metadata: metadata)
            return
        }
        Counter(label: SyncMetricLabel.verificationFindings, factory: factory)
            .increment(by: found.missing + found.older + found.differing + found.unread)
        metadata["missing"] = "\(found.missing)"
        metadata["older"] = "\(found.older)"
        metadata["differing"] = "\(found.differing)"
        metadata["unread"] = "\(found.unread)"
        metadata["restored"] = "\(found.restored)"
        logger.info("sync server verification found rows the server dropped, put back or altered", metadata: metadata)
    }

    /// Verifies the server each time the schedule falls due, until the connection fails or the
    /// session is cancelled. The next date is drawn as a verification starts, so one that fails
    /// (and makes the session reconnect) is not run again at once on the next connection.
    private func verify(on schedule: Locked<VerificationSchedule>, with server: ServerConnection) async throws {
        while true {
            try await Task.sleep(until: schedule.withLock { $0.due }, clock: .continuous)
            schedule.withLock { $0.verificationStarted(at: .now) }
            reportVerification(try await VerificationRound.run(replica, on: server))
        }
    }

    /// Listens and runs rounds until the connection fails or the session is cancelled.
    private func serve(_ server: ServerConnection) async throws {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        replica.setWake(wake)
        defer { replica.setWake(nil) }
        let replica = self.replica
        // Set by what may have changed the server beyond the rows notifications carried (LISTEN
        // starting, a notification without its row, a row left out below), cleared by the round
        // that reads it before catching up; a local write's wake leaves it alone.
        let serverChanged = Locked(false)
        // Rows that notifications carried (``ChangeNotification``), taken by the next round,
        // which catches up unless it holds every one of them already (``SyncRound``).
        let notifiedRows = Locked<[ServerRow]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await server.connection.listen(on: replica.channel) { notifications in
                    // LISTEN is active: a first round now misses nothing written before it.
                    serverChanged.withLock { $0 = true }
                    wake.yield()
                    for try await notification in notifications {
                        if let row = ChangeNotification(payload: notification.payload).row {
                            // Bounded while a round runs long: a row left out is read by the
                            // catch-up it asks for.
                            let kept = notifiedRows.withLock { rows in
                                guard rows.count < SyncRound.page.rows else { return false }
                                rows.append(row)
                                return true
                            }
                            if !kept { serverChanged.withLock { $0 = true } }
                        } else {
                            serverChanged.withLock { $0 = true }
                        }
                        wake.yield()
                    }
                }
                throw SyncError(.server, "the sync server ended the notification stream")
            }
            group.addTask { [configuration] in
                var pause = configuration.initialReconnectDelay
                for await _ in wakes {
                    let catchUp = serverChanged.withLock { changed in defer { changed = false }; return changed }
                    let notified = notifiedRows.withLock { rows in defer { rows = [] }; return rows }
                    let outcome = try await SyncRound.run(replica, on: server, catchingUpFirst: catchUp, notified: notified)
                    guard outcome.unfinished else {
                        pause = configuration.initialReconnectDelay
                        continue
                    }
                    // Writes left to push after every pass: again after a pause that doubles as
                    // the reconnect backoff does, not at once, or a server that keeps a row this
                    // machine refuses above them would keep it running rounds without end.
                    try await Task.sleep(for: pause)
                    pause = min(pause * 2, configuration.maximumReconnectDelay)
                    wake.yield()
                }
            }
            if let verification {
                group.addTask { [self] in try await verify(on: verification, with: server) }
            }
            defer { group.cancelAll(); wake.finish() }
            try await group.next()
        }
    }
}
