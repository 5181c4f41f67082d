import Foundation
import SealedStorage

/// The scratch directory of one fuzzing or replay run, and the state the targets that need
/// files keep in it (a keyring home for `sealed-document` and `secitem`).
///
/// State is made once, on first use, because creating a keyring home per input would dominate
/// the time per execution; the targets reset what an input may have changed before each run,
/// so an input's outcome never depends on the inputs before it. The driver calls ``remove()``
/// when the process exits, the corpus tests after their last replay. scripts/fuzz points
/// `TMPDIR` at a tmpfs, where the keyring's `fsync` calls cost nothing.
package enum FuzzWorkspace {
    private struct Run {
        var root: URL
        var states: [String: any Sendable] = [:]
    }

    private static let run = Locked<Run?>(nil)

    /// The state called `name`, made by `make` in a fresh directory `<run>/<name>` the first
    /// time it is asked for (after ``remove()``, again).
    /// - Throws: What `make` throws, or when the directory cannot be created.
    static func state<State: Sendable>(_ name: String, make: (URL) throws -> State) throws -> State {
        try run.withLock { run throws -> State in
            if let existing = run?.states[name] as? State { return existing }
            var current = try run ?? Run(root: makeRoot())
            let directory = current.root.appendingPathComponent(name, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let state = try make(directory)
            current.states[name] = state
            run = current
            return state
        }
    }

    /// Deletes the run directory and forgets every state made in it.
    package static func remove() {
        let root = run.withLock { run in
            defer { run = nil }
            return run?.root
        }
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    private static func makeRoot() throws -> URL {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("groupvault-fuzz-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return root
    }
}
