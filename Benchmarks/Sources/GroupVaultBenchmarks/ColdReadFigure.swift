import BenchModel
import Foundation

/// A new process that reads one record and exits, as a widget does, beside the smallest
/// Swift programs with and without Foundation; interleaved, each run a fresh process.
func coldReadFigure(_ executables: Executables, vault: VaultFigures, options: Options) throws -> Outcome {
    let readerLabel = "`GroupVaultChild read`: open the keyring, `Vault.read` one 1 KiB record, exit"
    let floorLabel = "`HelloSwift`: prints a line; standard library only"
    let arguments = [executables.path("GroupVaultChild"), "read", vault.home.path, vault.readTarget]
    let schedule = Schedule(
        warmupRounds: min(options.warmup, 3), rounds: options.coldRounds,
        minimumRounds: options.minimumRounds, budget: .seconds(options.budget))
    let results = try interleave([
        Contender(label: readerLabel, role: .groupVault) { try meter(executables, arguments) },
        Contender(label: floorLabel, role: .floor) { try meter(executables, [executables.path("HelloSwift")]) },
        Contender(label: "`HelloFoundation`: prints a line after `import Foundation`", role: .reference(lessWork: nil)) {
            try meter(executables, [executables.path("HelloFoundation")])
        },
    ], schedule)

    var table = Table(header: ["Process", "Kind", "n", "Median ms", "p99 ms", "Median ÷ floor", "Peak RSS median MiB", "p99 MiB", "Median ÷ floor"])
    let floor = result(floorLabel, in: results)
    func mebibytes(_ kibibytes: Double) -> String { String(format: "%.1f", kibibytes / 1024) }
    func milliseconds(_ micro: Double) -> String { String(format: "%.2f", micro / 1000) }
    for entry in results {
        let isFloor = entry.contender.label == floorLabel
        let peaks = entry.peaks ?? Samples([0])
        table.rows.append([
            entry.contender.label, isFloor ? "**floor**" : entry.contender.label == readerLabel ? "GroupVault" : "reference", "\(entry.times.count)",
            milliseconds(entry.times.median), milliseconds(entry.times.p99),
            isFloor ? "" : times(entry.times.median / floor.times.median),
            mebibytes(peaks.median), mebibytes(peaks.p99),
            isFloor ? "" : times(peaks.median / (floor.peaks?.median ?? 1)),
        ])
    }
    let reader = result(readerLabel, in: results)
    let timeRatio = reader.times.median / floor.times.median
    let peakRatio = (reader.peaks?.median ?? 0) / (floor.peaks?.median ?? 1)
    return Outcome(
        sections: [Section(
            title: "Cold read: a new process reading one record",
            notes: [
                "Each run is a fresh process started by `ProcessMeter` (fork, exec, `wait4`): wall time from fork to reaped exit, "
                    + "and the peak RSS `wait4` reports. The reader opens the keyring home and reads the middle record of a group of "
                    + "\(count(vault.size)) records, decoding it; its standard output goes to /dev/null like the others'.",
            ],
            table: table)],
        checks: [
            .ratio("cold read, time", ratio: timeRatio, limit: 1.5,
                   measured: "median \(milliseconds(reader.times.median)) ms = \(times(timeRatio)) HelloSwift (\(milliseconds(floor.times.median)) ms)",
                   target: "≤ 1.5× Swift hello-world without Foundation"),
            .ratio("cold read, peak RSS", ratio: peakRatio, limit: 1.5,
                   measured: "median \(mebibytes(reader.peaks?.median ?? 0)) MiB = \(times(peakRatio)) HelloSwift (\(mebibytes(floor.peaks?.median ?? 0)) MiB)",
                   target: "≤ 1.5× Swift hello-world without Foundation"),
        ])
}
