import BenchModel
import Foundation
import Keyring

/// `Keyring.item(matching:)` and `Keyring.add` at each group size, interleaved with SQLite WAL
/// point selects and upserts on a table of as many rows.
final class KeyringFigures {
    /// Medians per figure and group size, for the growth targets.
    struct Medians {
        var lookup: [(size: Int, median: Double)] = []
        var add: [(size: Int, median: Double)] = []
    }

    private let keyring: Keyring
    private let scratch: URL
    private var growth: GroupGrowth
    private let schedule: Schedule
    /// The medians measured so far.
    private(set) var medians = Medians()

    /// Items in the group now.
    var size: Int { growth.size }

    /// The size of a row in the SQLite floor: a sealed item with its attributes.
    static let rowSize = 256

    init(root: URL, options: Options) throws {
        scratch = root.appendingPathComponent("keyring-floors", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        keyring = BenchHome.keyring(root: root.appendingPathComponent("keyring-home", isDirectory: true))
        growth = GroupGrowth(budgetSeconds: options.populationBudget)
        schedule = options.schedule
    }

    /// The `index`th item: unique by account, a 32-byte secret.
    func item(_ index: Int) -> KeychainItem {
        KeychainItem(
            service: "bench.example.com", account: "account-\(index)", accessGroup: BenchHome.group,
            secret: Data(repeating: UInt8(truncatingIfNeeded: index), count: 32),
            accessibility: .afterFirstUnlock)
    }

    /// The query that finds item `index` and only it.
    func query(_ index: Int) -> ItemQuery {
        ItemQuery(service: "bench.example.com", account: "account-\(index)", accessGroup: BenchHome.group)
    }

    /// Fills the group up to `target` items (or the population deadline); returns the size.
    func grow(to target: Int) throws -> Int {
        try growth.grow(to: target) { index in _ = try keyring.add(item(index)) }
    }

    /// Both figures at the group's current size.
    func measure(target: Int, sizeForLookupTarget: Int) throws -> Outcome {
        let size = self.size
        let sizeLabel = "\(count(size)) items"
        var outcome = Outcome()
        let full = try SQLiteFloor(path: scratch.appendingPathComponent("full-\(size).sqlite"), synchronousFull: true, rows: size, valueSize: Self.rowSize)
        let normal = try SQLiteFloor(path: scratch.appendingPathComponent("normal-\(size).sqlite"), synchronousFull: false, rows: size, valueSize: Self.rowSize)
        let notes = [growth.shortfall(target: target, reached: size, unit: "items")].compactMap { $0 }

        // The middle item, so a linear scan is not flattered by finding the first one.
        let middle = size / 2
        let lookupQuery = query(middle)
        _ = try keyring.item(matching: lookupQuery)
        let lookupLabel = "`Keyring.item(matching:)` by service and account, warm"
        let lookupFloor = "SQLite point select by primary key, \(count(size)) rows (WAL, synchronous FULL)"
        let lookup = try interleave([
            Contender(label: lookupLabel, role: .groupVault) {
                try .timing { _ = try self.keyring.item(matching: lookupQuery) }
            },
            Contender(label: lookupFloor, role: .floor) {
                try .timing { try full.select(middle) }
            },
            Contender(label: "SQLite point select by primary key, \(count(size)) rows (WAL, synchronous NORMAL)", role: .reference(lessWork: nil)) {
                try .timing { try normal.select(middle) }
            },
        ], schedule)
        outcome.sections.append(Section(
            title: "`Keyring.item(matching:)`, group of \(sizeLabel)",
            notes: notes + [
                "Finds the middle item of \(sizeLabel) with its secret. The floor is a prepared `SELECT` by a 16-byte primary key "
                    + "in a WAL table of \(count(size)) rows of \(Self.rowSize) bytes, decrypting nothing.",
            ],
            table: timeTable(lookup)))
        let lookupMedian = result(lookupLabel, in: lookup).times.median
        medians.lookup.append((size, lookupMedian))
        if target == sizeForLookupTarget {
            outcome.checks.append(sizedCheck(
                "`Keyring.item(matching:)` at \(count(target)) items",
                ratio: lookupMedian / result(lookupFloor, in: lookup).times.median, limit: 10,
                reached: size, required: target, unit: "items",
                measured: ratioText(lookup, lookupLabel, lookupFloor, floorName: "SQLite point select"),
                target: "≤ 10× SQLite point select"))
        }

        // Each add is undone, untimed, so every add finds the group at exactly `size` items;
        // the floor inserts a new row and deletes it the same way.
        let extra = item(size)
        let extraQuery = query(size)
        let addLabel = "`Keyring.add` of a new item"
        let addFloor = "SQLite WAL upsert of a new row, synchronous FULL, \(count(size)) rows"
        let add = try interleave([
            Contender(label: addLabel, role: .groupVault) {
                let measurement = try Measurement.timing { _ = try self.keyring.add(extra) }
                guard try self.keyring.delete(matching: extraQuery) == 1 else { throw BenchmarkFailure("the added item was not there to delete") }
                return measurement
            },
            Contender(label: addFloor, role: .floor) {
                let measurement = try Measurement.timing { try full.upsert(size) }
                try full.delete(size)
                return measurement
            },
            Contender(label: "SQLite WAL upsert of a new row, synchronous NORMAL, \(count(size)) rows",
                      role: .reference(lessWork: "no fsync at commit (WAL NORMAL syncs at checkpoints only)")) {
                let measurement = try Measurement.timing { try normal.upsert(size) }
                try normal.delete(size)
                return measurement
            },
        ], schedule)
        outcome.sections.append(Section(
            title: "`Keyring.add`, group of \(sizeLabel)",
            notes: notes + [
                "Adds one item to a group of \(sizeLabel) and, untimed, deletes it again. The floor inserts a \(Self.rowSize)-byte row "
                    + "with a prepared upsert in its own transaction (one WAL commit, fsynced under synchronous FULL) and deletes it, untimed.",
            ],
            table: timeTable(add)))
        let addMedian = result(addLabel, in: add).times.median
        medians.add.append((size, addMedian))
        outcome.checks.append(.ratio(
            "`Keyring.add`, \(sizeLabel)", ratio: addMedian / result(addFloor, in: add).times.median, limit: 2,
            measured: ratioText(add, addLabel, addFloor, floorName: "SQLite WAL FULL upsert"),
            target: "≤ 2× SQLite WAL FULL upsert"))
        return outcome
    }

    /// The growth targets: neither figure's median grows more than 2× from the smallest group
    /// to `required` items.
    func growthChecks(required: Int) -> [TargetCheck] {
        [("`Keyring.item(matching:)`", medians.lookup), ("`Keyring.add`", medians.add)].compactMap { name, medians in
            guard let first = medians.first, let last = medians.last, medians.count > 1 else { return nil }
            let growth = last.median / first.median
            return sizedCheck(
                "\(name) growth, \(count(first.size)) → \(count(required)) items",
                ratio: growth, limit: 2, reached: last.size, required: required, unit: "items",
                measured: "\(microseconds(first.median)) µs → \(microseconds(last.median)) µs at \(count(last.size)) items = \(times(growth))",
                target: "≤ 2× growth")
        }
    }
}
