import BenchModel
import Foundation
import GroupSync
import Keyring
import PostgresNIO

// Machine B of the sync figures, a process with a home of its own as another computer is:
//
//   SyncObserver HOME URL    opens the benchmark's ubiquitous key-value store in HOME (whose
//                            keyring already holds the group's key #1), syncing through URL, and
//                            LISTENs on the floor's channel on a connection of its own; prints
//                            "ready" once both listen, then "kv N" each time the store's key
//                            changes through the server to round N's value, and "floor N" for
//                            each notification N on the floor's channel, until its standard
//                            input closes or it is killed
//
// Both report the same way (one write(2) of a line to a pipe), so the pipe's cost is the same on
// both sides of the figure's ratio.

/// Writes `line` in one write(2): lines from two tasks never interleave (a pipe write of at
/// most PIPE_BUF bytes is atomic).
func report(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SyncObserver: \(message)\n".utf8))
    exit(1)
}

guard CommandLine.arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: SyncObserver HOME URL\n".utf8))
    exit(2)
}
// The parent dies without killing us (a crash, say): end with its pipe rather than linger.
Thread.detachNewThread {
    _ = FileHandle.standardInput.readDataToEndOfFile()
    exit(0)
}

let home = URL(fileURLWithPath: CommandLine.arguments[1])
do {
    let url = try SyncServerURL(CommandLine.arguments[2])
    let store = try UbiquitousKeyValueStore(
        group: BenchHome.group, keyring: BenchHome.keyring(root: home),
        entitlement: .some(UbiquityKeyValueStoreEntitlement(identifier: BenchSync.storeIdentifier)),
        configuration: .some(SyncConfiguration(url: url)))
    guard let socketPath = url.socketPath else { fail("the benchmark's server listens on a Unix socket; got \(url.redacted)") }
    var logger = Logger(label: "bench.sync-observer")
    logger.logLevel = .critical
    let floor = try await PostgresConnection.connect(
        configuration: .init(unixSocketPath: socketPath, username: url.user, password: nil, database: url.database),
        id: 1, logger: logger)
    let changes = store.externalChanges()
    store.start()
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        let (listening, listened) = AsyncStream<Void>.makeStream()
        tasks.addTask {
            try await floor.listen(on: BenchSync.floorChannel) { notifications in
                listened.yield()
                for try await notification in notifications { report("floor \(notification.payload)") }
            }
        }
        tasks.addTask {
            var ready = false
            for await change in changes {
                switch change.reason {
                case .initialSyncChange:
                    // The session listens before its first round, so it misses nothing from here on.
                    if !ready {
                        ready = true
                        for await _ in listening { break }
                        report("ready")
                    }
                case .serverChange where change.changedKeys.contains(BenchSync.key):
                    if let value = store.string(forKey: BenchSync.key), let round = BenchSync.round(of: value) {
                        report("kv \(round)")
                    }
                default:
                    break
                }
            }
        }
        try await tasks.next()
    }
} catch {
    fail("\(error)")
}
