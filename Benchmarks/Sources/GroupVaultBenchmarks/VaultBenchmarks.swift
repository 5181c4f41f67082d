import Foundation
import Keyring
import Vault

/// The small record every Vault benchmark seals: about the size of an app's auth state.
struct BenchRecord: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    /// Whether someone is signed in.
    var isAuthenticated: Bool
    /// Who, for display.
    var displayName: String
    /// An opaque session token, so the record is not trivially small.
    var sessionToken: String
    /// When the session began.
    var issuedAt: Date
}

/// `Vault.write` and `Vault.read` of one small record, each beside plain Foundation file I/O of
/// the same JSON bytes.
struct VaultBenchmarks {
    /// Where the vault and the baseline files live.
    let keyring: Keyring
    /// The application group the vault seals into.
    let group: GroupIdentifier
    /// A directory of the same file system for the baseline files.
    let baselineDirectory: URL
    /// Untimed iterations before each measurement.
    let warmup: Int
    /// Timed iterations per measurement.
    let iterations: Int

    /// The record written and read.
    static let record = BenchRecord(
        isAuthenticated: true, displayName: "Ada Lovelace",
        sessionToken: String(repeating: "a1b2c3d4", count: 8), issuedAt: Date(timeIntervalSince1970: 1_800_000_000))

    /// Measures every Vault comparison.
    func run() throws -> [Comparison] {
        let clock = ContinuousClock()
        let json = try JSONEncoder().encode(Self.record)
        let atomicURL = baselineDirectory.appendingPathComponent("record-atomic.json")
        let plainURL = baselineDirectory.appendingPathComponent("record-plain.json")

        // The baselines encode inside the timed section too, because Vault.write does.
        let atomicWriteBaseline = try sample(warmup: warmup, iterations: iterations) {
            try clock.measure {
                try JSONEncoder().encode(Self.record).write(to: atomicURL, options: .atomic)
            }
        }
        // POSIX calls rather than Data.write(to:): Foundation's Data.write fsyncs even without
        // .atomic (seen with strace on Swift 6.3.1), and this baseline is meant to have no fsync.
        let plainWriteBaseline = try sample(warmup: warmup, iterations: iterations) {
            try clock.measure {
                try writeWithoutSync(JSONEncoder().encode(Self.record), to: plainURL)
            }
        }

        var comparisons: [Comparison] = []
        for durability in [WriteDurability.full, .atomic] {
            let vault = try Vault(keyring: keyring, group: group, durability: durability)
            let name = "bench-\(durability.rawValue)"
            let written = try sample(warmup: warmup, iterations: iterations) {
                try clock.measure { _ = try vault.write(Self.record, as: name) }
            }
            comparisons.append(Comparison(
                operation: "`Vault.write` (`.\(durability.rawValue)`)", measured: written,
                baselines: [
                    .init(description: "`JSONEncoder` + `Data.write(to:options: .atomic)`: temporary file, fsync, rename",
                          samples: atomicWriteBaseline),
                    .init(description: "`JSONEncoder` + POSIX `open(O_TRUNC)`/`write`/`close` in place: no fsync, no rename",
                          samples: plainWriteBaseline),
                ]))
        }

        let vault = try Vault(keyring: keyring, group: group, durability: .full)
        _ = try vault.write(Self.record, as: "bench-read")
        let read = try sample(warmup: warmup, iterations: iterations) {
            try clock.measure { _ = try vault.read(BenchRecord.self, name: "bench-read") }
        }
        try json.write(to: atomicURL, options: .atomic)
        let readBaseline = try sample(warmup: warmup, iterations: iterations) {
            try clock.measure { _ = try JSONDecoder().decode(BenchRecord.self, from: Data(contentsOf: atomicURL)) }
        }
        comparisons.append(Comparison(
            operation: "`Vault.read`", measured: read,
            baselines: [.init(description: "`Data(contentsOf:)` + `JSONDecoder` of the same JSON", samples: readBaseline)]))
        return comparisons
    }
}

/// Replaces the contents of `url` in place with `open(O_TRUNC)`, `write` and `close`: no
/// temporary file, no rename, no fsync; the cheapest way to put bytes in a file.
func writeWithoutSync(_ data: Data, to url: URL) throws {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw BenchmarkFailure("cannot open \(url.path): errno \(errno)") }
    defer { close(descriptor) }
    let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == data.count else { throw BenchmarkFailure("short write to \(url.path): errno \(errno)") }
}
