import BenchModel
import Foundation
import Keyring
import SharedDefaults

/// `SharedDefaults` warm get and set at each suite size: get beside Foundation's
/// `UserDefaults(suiteName:)` and the SQLCipher peer's point select of the same bytes; set,
/// flush-bound, beside a SQLite WAL `synchronous=FULL` upsert (the floor) and the SQLCipher
/// peer's upsert of the same bytes.
final class DefaultsFigures {
    /// The value every set writes: a short setting, as defaults hold. Two of them, alternated,
    /// so no write is of the value already stored.
    private static let values = [String(repeating: "a", count: 64), String(repeating: "b", count: 64)]
    /// The service of every row in the SQLCipher peer's table; the account is the key.
    private static let cipherService = "defaults"
    /// The floor's row: the value sealed (24-byte nonce, 16-byte tag).
    private static let rowSize = 64 + 40

    /// One suite of one size, in a home of its own, with its denominators holding as many keys.
    private final class Suite {
        /// The suite measured, with SharedDefaults' default durability (`.full`).
        let defaults: SharedDefaults
        /// Foundation's suite holding the same keys, in memory: the get's denominator.
        let foundation: UserDefaults
        /// Its name, to remove its domain when done.
        let foundationName: String
        /// Keys in the suite.
        let size: Int
        /// The note of a suite that fell short of its target size.
        let shortfall: String?
        /// The size it was filled towards.
        let target: Int

        init(defaults: SharedDefaults, foundation: UserDefaults, foundationName: String, size: Int, shortfall: String?, target: Int) {
            self.defaults = defaults
            self.foundation = foundation
            self.foundationName = foundationName
            self.size = size
            self.shortfall = shortfall
            self.target = target
        }

        deinit { UserDefaults.standard.removePersistentDomain(forName: foundationName) }
    }

    private let root: URL
    private let executables: Executables
    private let options: Options

    init(root: URL, executables: Executables, options: Options) {
        self.root = root
        self.executables = executables
        self.options = options
    }

    private static func key(_ index: Int) -> String { "setting." + String(index + 100_000).dropFirst() }

    /// Fills one suite per size of `sizes` (each within the population budget), measures the
    /// warm get in each, then the set in each, in ``Options/flushRuns`` runs: a suite per size,
    /// rather than one suite grown from size to size, so the set's runs at every size can take
    /// turns and so lie minutes apart.
    func measure(sizes: [Int]) throws -> Outcome {
        var outcome = Outcome()
        var suites: [Suite] = []
        for target in sizes {
            progress("defaults: filling a suite to \(count(target)) keys...")
            let suite = try fill(target: target)
            if let previous = suites.last, suite.size <= previous.size {
                outcome.skipped.append("SharedDefaults figures for \(count(target)) keys: not measured, the suite reached only \(count(suite.size)) keys (population budget spent).")
                continue
            }
            suites.append(suite)
        }
        for suite in suites {
            progress("defaults: measuring get at \(count(suite.size)) keys...")
            outcome.append(try getFigure(suite))
        }
        outcome.append(try measureFlushBound(try suites.map(setFigure), runs: options.flushRuns, options.flushSchedule))
        return outcome
    }

    /// A suite of `target` keys (or as many as the population budget allows) in a home of its
    /// own, and a Foundation suite holding the same keys.
    private func fill(target: Int) throws -> Suite {
        let keyring = BenchHome.keyring(root: root.appendingPathComponent("defaults-home-\(target)", isDirectory: true))
        // Filled `.atomic` (the same entries, fewer fsyncs), measured `.full`.
        let filling = try SharedDefaults(suiteName: "bench", group: BenchHome.group, keyring: keyring, durability: .atomic)
        let foundationName = "com.example.bench.\(UUID().uuidString)"
        guard let foundation = UserDefaults(suiteName: foundationName) else {
            throw BenchmarkFailure("UserDefaults(suiteName: \(foundationName)) returned nil")
        }
        var growth = GroupGrowth(budgetSeconds: options.populationBudget)
        let size = try growth.grow(to: target) { index in
            try filling.set(Self.values[0], forKey: Self.key(index))
            foundation.set(Self.values[0], forKey: Self.key(index))
        }
        return Suite(
            defaults: try SharedDefaults(suiteName: "bench", group: BenchHome.group, keyring: keyring),
            foundation: foundation, foundationName: foundationName, size: size,
            shortfall: growth.shortfall(target: target, reached: size, unit: "keys"), target: target)
    }

    /// The warm get figure of `suite`.
    private func getFigure(_ suite: Suite) throws -> Outcome {
        var outcome = Outcome()
        let sizeLabel = "\(count(suite.size)) keys"
        let key = Self.key(suite.size / 2)
        let get = "`SharedDefaults.string(forKey:)`, warm"
        let foundationGet = "Foundation `UserDefaults.string(forKey:)`, warm"
        let cipherGet = "SQLCipher point select of a 64-byte row, \(count(suite.size)) rows (child process)"
        let scratch = root.appendingPathComponent("defaults-get-peer-\(suite.target)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let cipher = try SQLCipherPeer(
            executables, path: scratch.appendingPathComponent("sqlcipher.db"), rows: suite.size, bytes: Self.values[0].utf8.count
        ) { (Self.cipherService, Self.key($0)) }
        defer { cipher.close() }
        // On one CPU, SQLCipher's child beside this thread, as the warm read's figure places it.
        let gets = try onOneCPU(with: [cipher.processIdentifier]) { try interleave([
            Contender(label: get, role: .groupVault) {
                .timing { _ = suite.defaults.string(forKey: key) }
            },
            Contender(label: foundationGet, role: .floor) {
                .timing { _ = suite.foundation.string(forKey: key) }
            },
            Contender(label: cipherGet, role: .peer(lessWork: nil)) {
                try cipher.get(Self.cipherService, key)
            },
        ], options.schedule) }
        outcome.sections.append(Section(
            title: "SharedDefaults warm get, suite of \(sizeLabel)",
            notes: [suite.shortfall].compactMap { $0 } + [
                "Reads the middle key (`\(key)`, a 64-byte string) of a suite of \(sizeLabel), after the warm-up rounds. "
                    + "The denominator is Foundation's `UserDefaults(suiteName:)` holding the same keys in memory, as the issue states "
                    + "its target (there is no C floor: both are in-memory lookups). The SQLCipher peer selects the same key's 64-byte "
                    + "row from a table of as many rows, timed inside its child process: what a process that shares settings through "
                    + "an encrypted database pays for each read.",
            ],
            table: timeTable(gets)))
        outcome.checks.append(sizedCheck(
            "`SharedDefaults` warm get, \(sizeLabel)",
            ratio: result(get, in: gets).median / result(foundationGet, in: gets).median, limit: 2,
            reached: suite.size, required: suite.target, unit: "keys",
            measured: ratioText(gets, get, foundationGet, floorName: "UserDefaults"), target: "≤ 2× `UserDefaults` warm get"))
        return outcome
    }

    /// The set figure of `suite`, flush-bound: its contenders and report.
    private func setFigure(_ suite: Suite) throws -> FlushBoundFigure {
        let size = suite.size
        let sizeLabel = "\(count(size)) keys"
        let middle = size / 2
        let key = Self.key(middle)
        let scratch = root.appendingPathComponent("defaults-floors-\(suite.target)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let database = try SQLiteFloor(path: scratch.appendingPathComponent("full.sqlite"), synchronousFull: true, rows: size, valueSize: Self.rowSize)
        let cipher = try SQLCipherPeer(
            executables, path: scratch.appendingPathComponent("sqlcipher.db"), rows: size, bytes: Self.values[0].utf8.count
        ) { (Self.cipherService, Self.key($0)) }

        let set = "`SharedDefaults.set(_:forKey:)` (`.full`), 64 B string"
        let floor = "SQLite WAL upsert, synchronous FULL, \(Self.rowSize)-byte row, \(count(size)) rows"
        let cipherSet = "SQLCipher WAL replace of a 64-byte row, synchronous FULL, \(count(size)) rows (child process)"
        let foundationSet = "Foundation `UserDefaults.set(_:forKey:)`"
        // The GroupVault and Foundation sets alternate the two values on their own, so neither
        // writes the value it wrote last; the floor changes its row at every upsert.
        var writes = [0, 0]
        let contenders = [
            Contender(label: set, role: .groupVault) {
                writes[0] += 1
                let value = Self.values[writes[0] % 2]
                return try .timing { try suite.defaults.set(value, forKey: key) }
            },
            Contender(label: floor, role: .floor) {
                try .timing { try database.upsert(middle) }
            },
            Contender(label: cipherSet, role: .peer(lessWork: nil)) {
                try cipher.put(Self.cipherService, key, bytes: Self.values[0].utf8.count)
            },
            Contender(label: foundationSet, role: .reference(lessWork: "in memory; written to disk later, unsealed")) {
                writes[1] += 1
                let value = Self.values[writes[1] % 2]
                return .timing { suite.foundation.set(value, forKey: key) }
            },
        ]
        return FlushBoundFigure(name: "SharedDefaults set, \(sizeLabel)", contenders: contenders) { sets in
            var outcome = Outcome()
            outcome.sections.append(Section(
                title: "SharedDefaults set, suite of \(sizeLabel)",
                notes: [suite.shortfall].compactMap { $0 } + [
                    "Replaces the middle key (`\(key)`) of a suite of \(sizeLabel) with a 64-byte string, alternating between two values, "
                        + "with SharedDefaults' default durability, `.full`, as its denominators are durable at commit. "
                        + "The floor replaces a \(Self.rowSize)-byte row (the value sealed) in a SQLite WAL table of as many rows in its own "
                        + "transaction, `synchronous=FULL`; the SQLCipher peer replaces the same key's 64-byte row the same way, timed inside "
                        + "its child process. Foundation's set only changes memory (the plist is written later) and is context, never a denominator.",
                ],
                table: timeTable(sets)))
            outcome.checks.append(sizedCheck(
                "`SharedDefaults.set` against SQLCipher, \(sizeLabel)",
                ratio: result(set, in: sets).median / result(cipherSet, in: sets).median, limit: 2,
                reached: size, required: suite.target, unit: "keys",
                measured: ratioText(sets, set, cipherSet, floorName: "SQLCipher WAL FULL replace"), target: "≤ 2× SQLCipher WAL FULL upsert"))
            return outcome
        }
    }
}
