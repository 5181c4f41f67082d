import Foundation
import Keyring

/// `Keyring.add` and `Keyring.item(matching:)` on a keyring already holding `itemCount` items,
/// beside the same item list kept as one unencrypted, unlocked JSON file.
struct KeyringBenchmarks {
    /// The keyring measured; each instance uses its own access group so sizes do not mix.
    let keyring: Keyring
    /// The access group the items go to.
    let group: GroupIdentifier
    /// How many items the keyring holds while an operation is measured.
    let itemCount: Int
    /// A directory of the same file system for the baseline's file.
    let baselineDirectory: URL
    /// Untimed iterations before each measurement.
    let warmup: Int
    /// Timed iterations per measurement.
    let iterations: Int

    /// The `index`th item of the benchmark: unique by account, a 32-byte secret.
    func item(_ index: Int) -> KeychainItem {
        KeychainItem(
            service: "bench.example.com", account: "account-\(index)", accessGroup: group,
            secret: Data(repeating: UInt8(truncatingIfNeeded: index), count: 32),
            accessibility: .afterFirstUnlock)
    }

    /// Fills the keyring and the baseline file with `itemCount` items, then measures.
    func run() throws -> [Comparison] {
        let clock = ContinuousClock()
        let listURL = baselineDirectory.appendingPathComponent("items-\(itemCount).json")
        var stored: [KeychainItem] = []
        for index in 0..<itemCount { stored.append(try keyring.add(item(index))) }
        try JSONEncoder().encode(stored).write(to: listURL, options: .atomic)

        // Each add is undone, untimed, so every iteration adds to a keyring of exactly itemCount.
        let extra = item(itemCount)
        let extraQuery = ItemQuery(service: extra.service, account: extra.account, accessGroup: group)
        let added = try sample(warmup: warmup, iterations: iterations) {
            let duration = try clock.measure { _ = try keyring.add(extra) }
            _ = try keyring.delete(matching: extraQuery)
            return duration
        }
        // The baseline does what an add must at the least: load the list, refuse a duplicate
        // primary key, append, and replace the file; it encrypts nothing and takes no lock.
        let addBaseline = try sample(warmup: warmup, iterations: iterations) {
            let duration = try clock.measure {
                var items = try JSONDecoder().decode([KeychainItem].self, from: Data(contentsOf: listURL))
                guard !items.contains(where: { $0.service == extra.service && $0.account == extra.account }) else {
                    throw BenchmarkFailure("baseline list already holds the item being added")
                }
                items.append(extra)
                try JSONEncoder().encode(items).write(to: listURL, options: .atomic)
            }
            try JSONEncoder().encode(stored).write(to: listURL, options: .atomic)
            return duration
        }

        // The middle item, so a linear scan is not flattered by finding the first one.
        let target = item(itemCount / 2)
        let query = ItemQuery(service: target.service, account: target.account, accessGroup: group)
        let found = try sample(warmup: warmup, iterations: iterations) {
            try clock.measure { _ = try keyring.item(matching: query) }
        }
        let findBaseline = try sample(warmup: warmup, iterations: iterations) {
            try clock.measure {
                let items = try JSONDecoder().decode([KeychainItem].self, from: Data(contentsOf: listURL))
                guard items.contains(where: { $0.service == target.service && $0.account == target.account }) else {
                    throw BenchmarkFailure("baseline list lost the item being looked up")
                }
            }
        }
        let baselineKind = "unencrypted JSON list, no lock"
        return [
            Comparison(
                operation: "`Keyring.add` (\(itemCount) items)", measured: added,
                baselines: [.init(
                    description: "read + decode + duplicate check + append + encode + `Data.write(to:options: .atomic)`; \(baselineKind)",
                    samples: addBaseline)]),
            Comparison(
                operation: "`Keyring.item(matching:)` (\(itemCount) items)", measured: found,
                baselines: [.init(
                    description: "`Data(contentsOf:)` + decode + linear search; \(baselineKind)",
                    samples: findBaseline)]),
        ]
    }
}

/// A benchmark that could not measure what it set out to: the run stops with this reason.
struct BenchmarkFailure: Error, CustomStringConvertible {
    /// What went wrong, for the person running the benchmark.
    let description: String

    /// A failure with `description` as its reason.
    init(_ description: String) { self.description = description }
}
