import BenchModel
import Foundation

// Measures GroupVault's operations, each interleaved with its C floor, against the targets of
// the keyring-storage issue, and writes BENCHMARKS.md. See Benchmarks/README.md.

/// The GroupVault checkout measured: this package's parent directory.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Measures everything in a fresh temporary directory, removed afterwards whatever happens.
func measure(_ options: Options, executables: Executables) throws -> Outcome {
    let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("groupvault-bench-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }

    var outcome = Outcome()
    if options.figures.contains(.storage) {
        outcome.append(try measureStorage(root: root, options, executables: executables))
    }
    if options.figures.contains(.messaging) {
        progress("messaging: notifications and channel round trips...")
        // A root of its own, short enough for the channel's socket path to fit sun_path.
        let messagingRoot = FileManager.default.temporaryDirectory
            .appendingPathComponent("gvb-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: messagingRoot, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: messagingRoot) }
        outcome.append(try MessagingFigures(root: messagingRoot, executables: executables, options: options).measure())
        outcome.append(try messageEncodingFigure(options: options))
    }
    if options.figures.contains(.defaults) {
        outcome.append(try DefaultsFigures(root: root, executables: executables, options: options).measure(sizes: options.defaultsSizes))
    }
    if options.figures.contains(.sync) {
        progress("sync: starting a PostgreSQL server...")
        // A root of its own, short enough for the server's socket path to fit sun_path.
        let syncRoot = FileManager.default.temporaryDirectory
            .appendingPathComponent("gvs-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: syncRoot, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: syncRoot) }
        let figures = try SyncFigures(root: syncRoot, executables: executables, options: options)
        // Stopped whatever happens; a crash or SIGKILL is covered by the server's own watcher.
        defer { figures.close() }
        outcome.append(try figures.measure())
    }
    return outcome
}

/// The storage figures: Vault and Keyring at each group size, the cold read and lookup at each
/// size measured (the lookup in every item shape), the growth figures, verify and reseal.
func measureStorage(root: URL, _ options: Options, executables: Executables) throws -> Outcome {
    let vault = try VaultFigures(root: root, executables: executables, options: options)
    let keyrings = try ItemShape.allCases.map { try KeyringFigures(root: root, shape: $0, executables: executables, options: options) }
    var outcome = Outcome()
    var measuredVaultSize = -1
    var measuredKeyringSizes = keyrings.map { _ in -1 }
    for target in options.sizes {
        // The stage's flush-bound figures, measured after its other figures in several runs.
        var flushBound: [FlushBoundFigure] = []
        progress("vault: filling the group to \(count(target)) records...")
        let records = try vault.grow(to: target)
        if records == measuredVaultSize {
            outcome.skipped.append("Vault figures for \(count(target)) records: not measured, the group stayed at \(count(records)) records (population budget spent).")
        } else {
            progress("vault: measuring at \(count(records)) records...")
            let measured = try vault.measure(target: target)
            outcome.append(measured.outcome)
            flushBound += measured.flushBound
            measuredVaultSize = records
            // Here, while the vault figures' SQLCipher peer holds this size's records.
            progress("cold read: measuring new processes at \(count(records)) records...")
            outcome.append(try coldReadFigure(executables, vault: vault, options: options))
        }

        for (index, keyring) in keyrings.enumerated() {
            progress("keyring (\(keyring.shape.rawValue)): filling the group to \(count(target)) items...")
            let items = try keyring.grow(to: target)
            if items == measuredKeyringSizes[index] {
                outcome.skipped.append("Keyring figures for \(count(target)) items, \(keyring.shape.rawValue): not measured, the group stayed at \(count(items)) items (population budget spent).")
            } else {
                progress("keyring (\(keyring.shape.rawValue)): measuring at \(count(items)) items...")
                let measured = try keyring.measure(target: target, sizeForLookupTarget: options.sizes.last ?? target)
                outcome.append(measured.outcome)
                flushBound += measured.flushBound
                measuredKeyringSizes[index] = items
                // Here, while the shape's SQLCipher peer holds this size's items and no other
                // kernel keyring of this size exists (the kernel's key quota holds one).
                progress("cold lookup (\(keyring.shape.rawValue)): measuring new processes at \(count(items)) items...")
                outcome.append(try coldLookupFigure(executables, keyring: keyring, options: options))
            }
        }
        outcome.append(try measureFlushBound(flushBound, runs: options.flushRuns, options.flushSchedule))
    }
    // At the largest size reached, against the small groups kept since the start.
    progress("growth: warm reads and lookups against the small groups...")
    outcome.append(try vault.growthFigure(required: options.sizes.last ?? 0))
    for keyring in keyrings { outcome.append(try keyring.growthFigure(required: options.sizes.last ?? 0)) }
    outcome.append(try SyscallCountFigure(executables: executables, root: root, writes: options.quick ? 20 : 100).measure())

    progress("vault: filling the group to \(count(options.records)) records for verify and reseal...")
    let records = try vault.grow(to: options.records)
    progress("throughput: verify and reseal over \(count(records)) records...")
    var throughput = try ThroughputFigures(vault: vault, executables: executables, options: options).measure()
    if let shortfall = vault.shortfall(target: options.records) {
        for index in throughput.sections.indices { throughput.sections[index].notes.insert(shortfall, at: 0) }
    }
    outcome.append(throughput)
    return outcome
}


do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let executables = try Executables.beside()
    let analysis = try options.analysis.map { path in
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw BenchmarkFailure("cannot read the --analysis file \(path): \(error)")
        }
    }
    let machine = MachineDescription.current(packageRoot: packageRoot)
    let date = Date()
    let start = ContinuousClock.now
    let outcome = try measure(options, executables: executables)
    let markdown = Report(
        machine: machine, options: options, date: date, seconds: (ContinuousClock.now - start).microseconds / 1e6,
        loadAtEnd: MachineDescription.currentLoad(), note: options.note, analysis: analysis, outcome: outcome).markdown
    if let output = options.output {
        try Data(markdown.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        progress("wrote \(output)")
    } else {
        print(markdown, terminator: "")
    }
} catch {
    progress("GroupVaultBenchmarks: \(error)")
    exit(1)
}
