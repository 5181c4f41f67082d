import Foundation
import Keyring

// Measures GroupVault's main operations beside plain-file baselines and writes BENCHMARKS.md.
// Usage: GroupVaultBenchmarks [--output <path>] [--iterations <n>] [--warmup <n>]
// Without --output the report goes to standard output.

/// The command line, parsed by hand: three options do not justify a dependency.
struct Options {
    /// Where to write the report; standard output when `nil`.
    var output: String?
    /// Timed iterations per measurement; enough for a stable p90, short enough for ~1 minute.
    var iterations = 200
    /// Untimed iterations before each measurement.
    var warmup = 20

    /// Parses `arguments` (without the program name), or explains what is wrong.
    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst() else { throw BenchmarkFailure("\(flag) needs a value") }
            switch flag {
            case "--output": output = value
            case "--iterations":
                guard let count = Int(value), count > 0 else { throw BenchmarkFailure("--iterations needs a positive integer") }
                iterations = count
            case "--warmup":
                guard let count = Int(value), count >= 0 else { throw BenchmarkFailure("--warmup needs a non-negative integer") }
                warmup = count
            default:
                throw BenchmarkFailure("unknown option \(flag); usage: GroupVaultBenchmarks [--output <path>] [--iterations <n>] [--warmup <n>]")
            }
        }
    }
}

/// Measures everything in a fresh temporary directory, removed afterwards whatever happens.
func runBenchmarks(_ options: Options) throws -> String {
    let date = Date()
    let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("groupvault-bench-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }

    guard let group = GroupIdentifier(rawValue: "group.com.example.bench") else {
        throw BenchmarkFailure("the benchmark's group identifier is invalid")
    }
    let identity = Identity(teamID: "ABCDE12345", bundleID: "com.example.bench", applicationGroups: [group])

    // Each benchmark gets its own home, so one's files (a 200-item keyring) cannot slow another.
    func home(_ name: String) throws -> (Keyring, URL) {
        let directory = root.appendingPathComponent(name, isDirectory: true)
        let baselines = directory.appendingPathComponent("baseline", isDirectory: true)
        try FileManager.default.createDirectory(at: baselines, withIntermediateDirectories: true)
        return (Keyring(identity: identity, home: KeyringHome(root: directory.appendingPathComponent("home"))), baselines)
    }

    var comparisons: [Comparison] = []
    let (vaultKeyring, vaultBaselines) = try home("vault")
    FileHandle.standardError.write(Data("measuring Vault...\n".utf8))
    comparisons += try VaultBenchmarks(
        keyring: vaultKeyring, group: group, baselineDirectory: vaultBaselines,
        warmup: options.warmup, iterations: options.iterations).run()
    for itemCount in [10, 200] {
        FileHandle.standardError.write(Data("measuring Keyring with \(itemCount) items...\n".utf8))
        let (keyring, baselines) = try home("keyring-\(itemCount)")
        comparisons += try KeyringBenchmarks(
            keyring: keyring, group: group, itemCount: itemCount, baselineDirectory: baselines,
            warmup: options.warmup, iterations: options.iterations).run()
    }
    return Report(
        machine: .current(temporaryDirectory: FileManager.default.temporaryDirectory), date: date,
        warmup: options.warmup, iterations: options.iterations, comparisons: comparisons).markdown
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let markdown = try runBenchmarks(options)
    if let output = options.output {
        try Data(markdown.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        FileHandle.standardError.write(Data("wrote \(output)\n".utf8))
    } else {
        print(markdown, terminator: "")
    }
} catch {
    FileHandle.standardError.write(Data("GroupVaultBenchmarks: \(error)\n".utf8))
    exit(1)
}
