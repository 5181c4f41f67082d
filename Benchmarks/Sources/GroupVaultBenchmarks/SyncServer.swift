import Foundation

/// The sync figures' PostgreSQL server: a throw-away cluster in a directory of its own, on a
/// Unix socket only, started and stopped by the repository's `scripts/postgres-server` (the
/// one GroupSync's tests and demo use).
///
/// ``remove()`` stops it and deletes its directory; the benchmark calls it in a `defer`, and
/// the script's `--watch-pid` stops the server when this process ends any other way (a crash,
/// SIGKILL), so no server outlives a run.
final class SyncServer {
    /// The directory holding the cluster, its socket and its logs.
    let directory: URL
    /// The connection URL `scripts/postgres-server start` printed.
    let url: String

    /// `scripts/postgres-server`, found from the checkout measured.
    static var script: URL { packageRoot.appendingPathComponent("scripts/postgres-server") }

    /// Initialises and starts a server in a new directory under `root`.
    init(root: URL) throws {
        directory = root.appendingPathComponent("postgres", isDirectory: true)
        let printed = try Self.script(["start", directory.path, "--watch-pid", String(getpid())], doing: "start PostgreSQL", scratch: root)
        url = printed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !url.isEmpty else { throw BenchmarkFailure("scripts/postgres-server start printed no URL") }
    }

    /// Stops the server at once and removes its directory.
    func remove() {
        _ = try? Self.script(["remove", directory.path], doing: "remove PostgreSQL", scratch: directory.deletingLastPathComponent())
    }

    /// Runs the script with `arguments`; returns what it printed, or fails with what it complained.
    private static func script(_ arguments: [String], doing what: String, scratch: URL) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: script.path) else {
            throw BenchmarkFailure("\(script.path) is missing: the sync figures need the repository's scripts")
        }
        // Output goes to files, not pipes: the server the script starts inherits its descriptors
        // and would hold a pipe of ours open for as long as it runs.
        let output = scratch.appendingPathComponent("postgres-server.out")
        let errors = scratch.appendingPathComponent("postgres-server.err")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        let status = try spawnAndWait(["/bin/bash", script.path] + arguments, output: output.path, errors: errors.path)
        guard status == 0 else {
            let complaint = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw BenchmarkFailure("could not \(what) (scripts/postgres-server exited with \(status)): \(complaint)"
                + "\nThe sync figures need PostgreSQL's server programs: scripts/install-dependencies installs them (Debian's postgresql package).")
        }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// posix_spawn and a blocking waitpid: the script leaves a watcher running in the
    /// background, whose inherited descriptors Foundation's `Process` waits on for ever.
    private static func spawnAndWait(_ arguments: [String], output: String, errors: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkFailure("cannot start \(arguments[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw BenchmarkFailure("waitpid failed: errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
