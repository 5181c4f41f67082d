import Dispatch
import FixtureSupport
import Foundation
import GRDB
import GroupDatabase
import Keyring
import SharedDefaults
import Vault

// A child process for the SharedDefaults and GroupDatabase multi-process tests.
// Usage: GroupStoresFixture <command> --option value ...
// Storage comes from GROUPVAULT_HOME; the identity is entitled to --group (default
// group.com.example.shared). Output is a line protocol the tests parse; usage errors exit 64,
// failures 1, timeouts 2.
//
// - defaults-set --suite S --prefix P --keys K --rounds R: for each round 1...R sets every key
//   P-0 ... P-(K-1) to the round number; prints `done`.
// - defaults-observe --suite S --key K --until V [--seconds T]: subscribes to changes of K,
//   prints `ready`, then `value <n>` on each change; a value lower than one seen before is a
//   violation (exit 1); exits 0 once the value is V.
// - defaults-read --suite S --key K: prints `value <n>`, `absent` or `refused <vault code>`.
// - db-write --name N --writer W --rows R: opens database N (migrating it) and inserts R rows,
//   one transaction each; prints `done`.
// - db-observe --name N --until-rows C [--seconds T]: prints `ready`, then `rows <n>` after
//   each change; exits 0 once the table holds C rows.
// - db-swap-directory --directory D --name N --link-to T --go G [--uid U --gid G2]: the attack
//   on an opener waiting for the open lock. As uid U (only group G2) when given: takes the
//   exclusive flock of D/N.sqlite-open.lock, prints `locked`, waits until the file G exists
//   (the test creates it once the opener waits), moves D aside to D.moved, puts a symbolic
//   link to T in its place, releases the lock; prints `swapped`.

func keyring(_ options: FixtureOptions) throws -> (Keyring, GroupIdentifier) {
    let group = try GroupIdentifier(validating: try options.string("group", default: "group.com.example.shared"))
    let identity = Identity(teamID: "ABCDE12345", bundleID: "com.example.fixture", applicationGroups: [group])
    return (Keyring(identity: identity, home: try .fromEnvironment()), group)
}

func defaults(_ options: FixtureOptions) throws -> SharedDefaults {
    let (keyring, group) = try keyring(options)
    return try SharedDefaults(suiteName: try options.string("suite"), group: group, keyring: keyring, durability: .atomic)
}

/// The schema every db command opens with: the migration logs each run, so a test can count them.
func database(_ options: FixtureOptions) throws -> GroupDatabase {
    let (keyring, group) = try keyring(options)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
        try db.execute(sql: "CREATE TABLE migration_run (pid INTEGER NOT NULL)")
        try db.execute(sql: "INSERT INTO migration_run (pid) VALUES (?)", arguments: [Int(getpid())])
        try db.execute(sql: "CREATE TABLE row (writer TEXT NOT NULL, number INTEGER NOT NULL, UNIQUE (writer, number))")
    }
    return try GroupDatabase(name: try options.string("name", default: "shared"), group: group, keyring: keyring, migrator: migrator)
}

/// Runs `body` on the changes of `stream` until it returns true (exit 0) or `seconds` pass (exit 2).
func awaitChanges<Element: Sendable>(_ stream: AsyncStream<Element>, seconds: Int, _ body: @escaping @Sendable () throws -> Bool) -> Int32 {
    let done = DispatchSemaphore(value: 0)
    let result = ResultBox()
    let task = Task {
        do {
            if try body() { result.set(0); done.signal(); return }
            for await _ in stream {
                if try body() { result.set(0); done.signal(); return }
            }
        } catch {
            printError("error \(error)")
            result.set(1)
            done.signal()
        }
    }
    if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
        task.cancel()
        return 2
    }
    return result.value
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var status: Int32 = 1
    func set(_ value: Int32) { lock.withLock { status = value } }
    var value: Int32 { lock.withLock { status } }
}

/// The highest value an observer has seen.
final class Highest: @unchecked Sendable {
    private let lock = NSLock()
    private var highest = Int.min
    func set(_ value: Int) { lock.withLock { highest = max(highest, value) } }
    var value: Int { lock.withLock { highest } }
}

var commands: [String: (FixtureOptions) throws -> Int32] = [
    "defaults-set": { options in
        let suite = try defaults(options)
        let prefix = try options.string("prefix")
        let keys = try options.integer("keys")
        let rounds = try options.integer("rounds")
        for round in 1...rounds {
            for key in 0..<keys {
                try suite.set(round, forKey: "\(prefix)-\(key)")
            }
        }
        printLine("done")
        return 0
    },
    "defaults-observe": { options in
        let suite = try defaults(options)
        let key = try options.string("key")
        let until = try options.integer("until")
        let changes = try suite.changes(forKey: key)
        printLine("ready")
        let highest = Highest()
        return awaitChanges(changes, seconds: try options.integer("seconds", default: 60)) {
            let value = suite.integer(forKey: key)
            printLine("value \(value)")
            if value < highest.value {
                printError("violation: went back to \(value)")
                throw UsageError(message: "value went back")
            }
            highest.set(value)
            return value == until
        }
    },
    "defaults-read": { options in
        let suite = try defaults(options)
        do {
            if let value = try suite.value(forKey: try options.string("key")) {
                printLine("value \(suite.integer(forKey: try options.string("key"))) \(value.typeName)")
            } else {
                printLine("absent")
            }
        } catch let error as SharedDefaultsError {
            printLine("refused \(error.vaultError?.code.rawValue ?? error.code.rawValue)")
        }
        return 0
    },
    "db-write": { options in
        let database = try database(options)
        let writer = try options.string("writer")
        for number in 0..<(try options.integer("rows")) {
            try database.pool.write { db in
                try db.execute(sql: "INSERT INTO row (writer, number) VALUES (?, ?)", arguments: [writer, number])
            }
        }
        printLine("done")
        return 0
    },
    "db-observe": { options in
        let database = try database(options)
        let until = try options.integer("until-rows")
        let changes = try database.changes()
        printLine("ready")
        return awaitChanges(changes, seconds: try options.integer("seconds", default: 60)) {
            let rows = try database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row") ?? 0 }
            printLine("rows \(rows)")
            return rows >= until
        }
    },
]

/// Drops to `--uid` with `--gid` as the only group, when `--uid` is given.
func becomeUser(_ options: FixtureOptions) throws {
    let uid = try options.integer("uid", default: -1)
    guard uid >= 0 else { return }
    var gid = gid_t(try options.integer("gid", default: 0))
    guard setgroups(1, &gid) == 0, setgid(gid) == 0, setuid(uid_t(uid)) == 0 else {
        throw UsageError(message: "cannot become uid \(uid) gid \(gid): errno \(errno) (the fixture must start as root)")
    }
}

/// A failed system call of the attack commands.
struct AttackStepFailure: Error, CustomStringConvertible {
    var description: String
    init(_ step: String) { description = "\(step): errno \(errno)" }
}

commands["db-swap-directory"] = { options in
    try becomeUser(options)
    let directory = try options.string("directory")
    let lockPath = directory + "/" + (try options.string("name")) + ".sqlite-open.lock"
    let lock = open(lockPath, O_RDONLY | O_CLOEXEC)
    guard lock >= 0, flock(lock, LOCK_EX) == 0 else { throw AttackStepFailure("lock \(lockPath)") }
    printLine("locked")
    let go = try options.string("go")
    var status = stat()
    while stat(go, &status) != 0 { usleep(1_000) }
    guard rename(directory, directory + ".moved") == 0 else { throw AttackStepFailure("move \(directory) aside") }
    guard symlink(try options.string("link-to"), directory) == 0 else { throw AttackStepFailure("link \(directory)") }
    close(lock)
    printLine("swapped")
    return 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let command = commands[name] else {
    printError("usage: GroupStoresFixture <\(commands.keys.sorted().joined(separator: "|"))> --option value ...")
    exit(64)
}
exit(runFixture(Array(arguments.dropFirst()), command))
