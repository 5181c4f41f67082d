import Foundation

/// A program run to its end through `posix_spawn` and a blocking `waitpid`, its standard input
/// `/dev/null` and its outputs in files.
///
/// For what starts a process that outlives it (`scripts/postgres-server start --watch-pid`
/// leaves a watcher behind): Foundation's `Process` never saw such a script exit and waited
/// for ever, with the script a zombie that the watcher in turn waited on. Files rather than
/// pipes, so that the process left behind holds no pipe of the caller's.
public enum SpawnedProgram {
    /// Why a program could not be run.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with its `errno`.
        public let description: String
    }

    /// Runs `executable` with `arguments` and returns its exit status (128 + the signal when a
    /// signal ended it). `environment` is the whole environment, or `nil` for this process's;
    /// `errors` may be `output`, for one transcript of both.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, output: String, errors: String
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if errors == output {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, executable, &actions, nil, argv, $0) } ?? posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(executable): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "waitpid for \(executable) failed: errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
