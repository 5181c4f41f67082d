import Foundation
import GroupVaultTestKit

/// A throw-away PostgreSQL server for one test: a cluster in a temporary directory, listening
/// on a Unix socket there only, with a database named `groupsync`. Started and stopped by
/// `scripts/postgres-server` (the demo and the benchmarks use the same script), which also stops
/// it when this process exits in any way, SIGKILL included.
///
/// Each cluster is a copy of one initialised once per test process (``template``), on tmpfs
/// where there is one (``scratch``): initialising about 1,300 files on the disk for every test
/// that starts a server was minutes of every CI run (docs/SYNC.md, section 12, has the
/// measurements).
///
/// A machine without PostgreSQL's server programs makes ``start()`` throw with the way out
/// (`scripts/install-dependencies`), so a test that needs the server fails rather than skips.
public final class PostgresServer: @unchecked Sendable {
    /// What starting, stopping or dumping the server reported.
    public struct Failure: Error, CustomStringConvertible {
        /// What was being done, and what the script printed.
        public let description: String
    }

    /// The directory holding the cluster (`data/`), its socket and its logs.
    public let directory: URL
    /// A connection URL for the `groupsync` database (no password: the socket directory, mode
    /// 0700, is the access control).
    public private(set) var url: String = ""
    private let temporary: TemporaryDirectory

    /// Creates the directory; the server is not running until ``start()``.
    public init() throws {
        temporary = try TemporaryDirectory(prefix: "groupsync-pg", in: Self.scratch)
        directory = temporary.url.appendingPathComponent("server", isDirectory: true)
    }

    /// Where servers and their template live: `/dev/shm` when it is writable with at least
    /// 1 GiB free (PostgreSQL already keeps its dynamic shared memory there), else the system
    /// temporary directory. With `fsync=off` the tests never ask the server's disk for
    /// durability, so nothing they check depends on which.
    public static let scratch: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        if let attributes = try? FileManager.default.attributesOfFileSystem(forPath: shm.path),
           let free = (attributes[.systemFreeSize] as? NSNumber)?.int64Value, free >= 1 << 30,
           FileManager.default.isWritableFile(atPath: shm.path) {
            return shm
        }
        return FileManager.default.temporaryDirectory
    }()

    /// The cluster every server of this process copies, made by the first ``start()`` and
    /// removed by the script when this process exits.
    public static let template: URL = scratch.appendingPathComponent("groupsync-pg-template-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)

    /// `scripts/postgres-server`, found from this source file's place in the repository.
    public static let script: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-server")

    /// Where a server started with TLS (``start(tls:)``) also listens: a TCP port on localhost
    /// that takes TLS connections only, with the password ``tlsPassword``, and the PEM file of
    /// the certificate authority of its certificate (made for the host name `localhost` only).
    public private(set) var tls: (port: Int, rootCertificate: String)?

    /// The password of the user `groupsync` over the TLS port.
    public static let tlsPassword = "groupsync-tls"

    /// Copies the ``template`` cluster the first time, starts the server and waits until it
    /// accepts connections; `tls` also has it listen as ``tls`` says. Starting again after
    /// ``stop()`` restarts it on the same data (give `tls` again).
    @discardableResult
    public func start(tls: Bool = false) throws -> String {
        let output = try Self.run(
            ["start", directory.path, "--watch-pid", String(getpid()), "--template", Self.template.path] + (tls ? ["--tls"] : []),
            doing: "start PostgreSQL")
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        url = lines.first ?? ""
        if tls {
            let parts = lines.dropFirst().first?.split(separator: " ") ?? []
            guard parts.count == 3, parts[0] == "tls", let port = Int(parts[1]) else {
                throw Failure(description: "start PostgreSQL with TLS: no 'tls PORT CA' line in \(output)")
            }
            self.tls = (port, String(parts[2]))
        }
        return url
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`); the data stays for a restart.
    public func stop() throws {
        _ = try Self.run(["stop", directory.path], doing: "stop PostgreSQL")
    }

    /// Stops the server and removes its directory.
    public func remove() {
        _ = try? Self.run(["remove", directory.path], doing: "remove PostgreSQL")
        temporary.remove()
    }

    /// Runs `sql` with psql as the cluster's superuser: the test plays the server's operator.
    @discardableResult
    public func psql(_ sql: String) throws -> String {
        try runAsOwner(["psql", "-h", directory.path, "-p", socketPort, "-U", "groupsync", "-d", "groupsync", "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql], doing: "psql")
    }

    /// What `sql` returns, as psql prints it unaligned (`|` between columns), without its
    /// newline: a test's assertion on the server's state.
    public func value(_ sql: String) throws -> String {
        try psql(sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Dumps the `groupsync` database to `file` (custom format), as an operator's backup.
    public func dump(to file: String) throws {
        try runAsOwner(["pg_dump", "-h", directory.path, "-p", socketPort, "-U", "groupsync", "-Fc", "-f", file, "groupsync"], doing: "pg_dump")
    }

    /// Restores a dump over the database, as an operator rolling the server back.
    public func restore(from file: String) throws {
        try runAsOwner(["pg_restore", "-h", directory.path, "-p", socketPort, "-U", "groupsync", "-d", "groupsync", "--clean", "--single-transaction", file], doing: "pg_restore")
    }

    /// The port in the socket's name: the TLS port when there is one, else PostgreSQL's default.
    private var socketPort: String { String(tls?.port ?? 5432) }

    /// A path the server's user can write (for dumps).
    public var dumpPath: String { directory.appendingPathComponent("dump-\(UUID().uuidString.prefix(8)).pgdump").path }

    @discardableResult
    private func runAsOwner(_ arguments: [String], doing what: String) throws -> String {
        let binary = try Self.binaryDirectory().appendingPathComponent(arguments[0]).path
        let rest = Array(arguments.dropFirst())
        if getuid() == 0 {
            return try Self.execute("/usr/sbin/runuser", ["-u", "postgres", "--", binary] + rest, doing: what)
        }
        return try Self.execute(binary, rest, doing: what)
    }

    private static func binaryDirectory() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted().reversed() {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw Failure(description: "PostgreSQL's server programs are not installed under /usr/lib/postgresql: run scripts/install-dependencies (Debian's postgresql package)")
    }

    private static func run(_ arguments: [String], doing what: String) throws -> String {
        _ = try binaryDirectory()
        return try execute("/bin/bash", [script.path] + arguments, doing: what)
    }

    private static func execute(_ executable: String, _ arguments: [String], doing what: String) throws -> String {
        // Output goes to files, not pipes: the server started by the script must not hold a
        // pipe of ours, and Foundation's pipe reads have hung here waiting for it.
        let scratch = try TemporaryDirectory(prefix: "groupsync-run")
        defer { try? FileManager.default.removeItem(at: scratch.url) }
        let outputURL = scratch.url.appendingPathComponent("out")
        let errorURL = scratch.url.appendingPathComponent("err")
        // Not Foundation's `Process`, which missed this script's exit (it leaves a watcher
        // running in the background) and waited for ever.
        let status: Int32
        do {
            status = try SpawnedProgram.run(executable, arguments, output: outputURL.path, errors: errorURL.path)
        } catch {
            throw Failure(description: "\(what): \(error)")
        }
        let printed = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let complaint = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            throw Failure(description: "\(what) failed (exit status \(status)): \(complaint)")
        }
        return printed
    }
}
