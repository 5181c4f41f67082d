import Foundation

/// The SQLCipher peer: a `SQLCipherChild serve` process holding an encrypted database of items
/// keyed by service and account, opened with a raw 256-bit key, WAL, `synchronous=FULL`.
final class SQLCipherPeer {
    /// The database file; a cold process opens it too.
    let path: URL
    /// The raw key, 64 hex digits (a ``rekey()`` replaces it).
    private(set) var hexKey: String
    private let child: TimedChild

    /// Creates the database at `path` (which must not exist) and fills it with `rows` rows, row
    /// `index` at `key(index)` with a `bytes`-byte secret, in one transaction.
    init(_ executables: Executables, path: URL, rows: Int, bytes: Int, key: (Int) -> (service: String, account: String)) throws {
        self.path = path
        hexKey = Self.randomHexKey()
        child = try TimedChild([executables.path("SQLCipherChild"), "serve", path.path, hexKey])
        _ = try child.run("begin")
        for index in 0..<rows {
            let (service, account) = key(index)
            _ = try child.run("put \(service) \(account) \(bytes)")
        }
        _ = try child.run("commit")
    }

    /// The child process's ID, for placing it on a CPU (``onOneCPU(with:_:)``).
    var processIdentifier: pid_t { child.processIdentifier }

    /// Upserts a row with a `bytes`-byte secret in its own durable transaction.
    func put(_ service: String, _ account: String, bytes: Int) throws -> Measurement {
        try child.measure("put \(service) \(account) \(bytes)")
    }

    /// Point select of a row's secret, every byte touched.
    func get(_ service: String, _ account: String) throws -> Measurement {
        try child.measure("get \(service) \(account)")
    }

    /// Deletes a row in its own durable transaction.
    func delete(_ service: String, _ account: String) throws {
        _ = try child.run("del \(service) \(account)")
    }

    /// Closes the database and opens it again with the key, up to reading its first page, then
    /// selects one row: a keyed open and first select, both timed by the child.
    func reopenAndGet(_ service: String, _ account: String) throws -> Measurement {
        Measurement(microseconds: try child.run("reopen") + child.run("get \(service) \(account)"))
    }

    /// Closes the database, opens it again with the key (which empties SQLCipher's page cache),
    /// then reads every row's secret, every byte touched: each page decrypted and its HMAC
    /// checked, what checking every record costs SQLCipher. Microseconds, both timed by the child;
    /// fails unless the table holds `rows` rows.
    func reopenAndScan(rows: Int) throws -> Double {
        try child.run("reopen") + child.run("scan \(rows)")
    }

    /// Encrypts every page again under a new random raw key (`PRAGMA rekey`, one transaction);
    /// later opens use it. Microseconds, timed by the child.
    func rekey() throws -> Double {
        let newKey = Self.randomHexKey()
        let microseconds = try child.run("rekey " + newKey)
        hexKey = newKey
        return microseconds
    }

    /// A random raw 256-bit key as SQLCipher's `x'…'` takes it: 64 hex digits.
    static func randomHexKey() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Ends the child, which closes the database (checkpointing its WAL).
    func close() { child.stop() }
}
