import BenchModel
import Foundation
import Keyring
import SharedDefaults
import Vault

/// A Vault record holding one setting: the `.atomic` Vault write a `SharedDefaults.set` of the
/// same value is compared with.
struct SettingRecord: VaultRecord {
    static let schemaVersion: UInt32 = 1
    var value: String
}

/// `SharedDefaults` warm get and set at each suite size, interleaved with Foundation's
/// `UserDefaults(suiteName:)` and, for set, a Vault `.atomic` write of the same value.
final class DefaultsFigures {
    /// The value every set writes: a short setting, as defaults hold. Two of them, alternated,
    /// so no write is of the value already stored.
    private static let values = [String(repeating: "a", count: 64), String(repeating: "b", count: 64)]

    private let defaults: SharedDefaults
    private let vault: Vault
    private let foundation: UserDefaults
    private let foundationSuite: String
    private var growth: GroupGrowth
    private let options: Options

    init(root: URL, options: Options) throws {
        let keyring = BenchHome.keyring(root: root.appendingPathComponent("defaults-home", isDirectory: true))
        // `.atomic`, as the target compares with a Vault `.atomic` write.
        defaults = try SharedDefaults(suiteName: "bench", group: BenchHome.group, keyring: keyring, durability: .atomic)
        vault = try Vault(keyring: keyring, group: BenchHome.group, durability: .atomic)
        foundationSuite = "com.example.bench.\(UUID().uuidString)"
        guard let foundation = UserDefaults(suiteName: foundationSuite) else {
            throw BenchmarkFailure("UserDefaults(suiteName: \(foundationSuite)) returned nil")
        }
        self.foundation = foundation
        growth = GroupGrowth(budgetSeconds: options.populationBudget)
        self.options = options
    }

    deinit { UserDefaults.standard.removePersistentDomain(forName: foundationSuite) }

    private static func key(_ index: Int) -> String { "setting." + String(index + 100_000).dropFirst() }

    /// Every figure at each size of `sizes`, filling the suite (within the population budget) first.
    func measure(sizes: [Int]) throws -> Outcome {
        var outcome = Outcome()
        var measured = -1
        for target in sizes {
            progress("defaults: filling the suite to \(count(target)) keys...")
            let reached = try growth.grow(to: target) { index in
                try defaults.set(Self.values[0], forKey: Self.key(index))
                foundation.set(Self.values[0], forKey: Self.key(index))
            }
            if reached == measured {
                outcome.skipped.append("SharedDefaults figures for \(count(target)) keys: not measured, the suite stayed at \(count(reached)) keys (population budget spent).")
                continue
            }
            progress("defaults: measuring at \(count(reached)) keys...")
            outcome.append(try measure(target: target, size: reached))
            measured = reached
        }
        return outcome
    }

    private func measure(target: Int, size: Int) throws -> Outcome {
        var outcome = Outcome()
        let sizeLabel = "\(count(size)) keys"
        let shortfall = growth.shortfall(target: target, reached: size, unit: "keys")
        let key = Self.key(size / 2)

        let get = "`SharedDefaults.string(forKey:)`, warm"
        let foundationGet = "Foundation `UserDefaults.string(forKey:)`, warm"
        let gets = try interleave([
            Contender(label: get, role: .groupVault) {
                .timing { _ = self.defaults.string(forKey: key) }
            },
            Contender(label: foundationGet, role: .floor) {
                .timing { _ = self.foundation.string(forKey: key) }
            },
        ], options.schedule)
        outcome.sections.append(Section(
            title: "SharedDefaults warm get, suite of \(sizeLabel)",
            notes: [shortfall].compactMap { $0 } + [
                "Reads the middle key (`\(key)`, a 64-byte string) of a suite of \(sizeLabel), after the warm-up rounds. "
                    + "The denominator is Foundation's `UserDefaults(suiteName:)` holding the same keys in memory, as the issue states "
                    + "its target (there is no C floor: both are in-memory lookups).",
            ],
            table: timeTable(gets)))
        outcome.checks.append(sizedCheck(
            "`SharedDefaults` warm get, \(sizeLabel)",
            ratio: result(get, in: gets).times.median / result(foundationGet, in: gets).times.median, limit: 2,
            reached: size, required: target, unit: "keys",
            measured: ratioText(gets, get, foundationGet, floorName: "UserDefaults"), target: "≤ 2× `UserDefaults` warm get"))

        let set = "`SharedDefaults.set(_:forKey:)` (`.atomic`), 64 B string"
        let vaultWrite = "`Vault.write` (`.atomic`) of a record holding the same string"
        let foundationSet = "Foundation `UserDefaults.set(_:forKey:)`"
        // Each contender alternates the two values on its own, so none writes the value it wrote last.
        var writes = [0, 0, 0]
        let sets = try interleave([
            Contender(label: set, role: .groupVault) {
                writes[0] += 1
                let value = Self.values[writes[0] % 2]
                return try .timing { try self.defaults.set(value, forKey: key) }
            },
            Contender(label: vaultWrite, role: .floor) {
                writes[1] += 1
                let record = SettingRecord(value: Self.values[writes[1] % 2])
                return try .timing { _ = try self.vault.write(record, to: "setting-record") }
            },
            Contender(label: foundationSet, role: .reference(lessWork: "in memory; written to disk later, unsealed")) {
                writes[2] += 1
                let value = Self.values[writes[2] % 2]
                return .timing { self.foundation.set(value, forKey: key) }
            },
        ], options.schedule)
        outcome.sections.append(Section(
            title: "SharedDefaults set, suite of \(sizeLabel)",
            notes: [shortfall].compactMap { $0 } + [
                "Replaces the middle key of a suite of \(sizeLabel) with a 64-byte string, alternating between two values. "
                    + "The denominator, as the issue states the target, is a Vault `.atomic` write of a record holding the same "
                    + "string in the same group (sealed, written to a temporary file and renamed, no fsync). Foundation's set only "
                    + "changes memory (the plist is written later) and is context, never a denominator.",
            ],
            table: timeTable(sets)))
        outcome.checks.append(sizedCheck(
            "`SharedDefaults` set, \(sizeLabel)",
            ratio: result(set, in: sets).times.median / result(vaultWrite, in: sets).times.median, limit: 2,
            reached: size, required: target, unit: "keys",
            measured: ratioText(sets, set, vaultWrite, floorName: "Vault `.atomic` write"), target: "≤ 2× Vault `.atomic` write"))
        return outcome
    }
}
