import BenchModel
import Foundation

/// A new process that reads one record and exits, as a widget does, beside the smallest
/// Swift programs with and without Foundation and the SQLCipher peer's cold process (open the
/// database with its key, select the same 1 KiB, exit); interleaved, each run a fresh process.
func coldReadFigure(_ executables: Executables, vault: VaultFigures, options: Options) throws -> Outcome {
    let readerLabel = "`GroupVaultChild read`: open the keyring, `Vault.read` one 1 KiB record, exit"
    let floorLabel = "`HelloSwift`: prints a line; standard library only"
    let arguments = [executables.path("GroupVaultChild"), "read", vault.home.path, vault.readTarget]
    guard let cipher = vault.cipher else { preconditionFailure("the vault figures run before the cold read") }
    let cipherLabel = "`SQLCipherChild cold`: keyed open of the SQLCipher peer's database, select the same 1 KiB row, exit"
    let cipherArguments = [executables.path("SQLCipherChild"), "cold", cipher.path.path, cipher.hexKey, VaultFigures.cipherService, vault.readTarget]
    let schedule = Schedule(
        warmupRounds: min(options.warmup, 3), rounds: options.coldRounds,
        minimumRounds: options.minimumRounds, budget: .seconds(options.budget))
    let results = try interleave([
        Contender(label: readerLabel, role: .groupVault) { try meter(executables, arguments) },
        Contender(label: floorLabel, role: .floor) { try meter(executables, [executables.path("HelloSwift")]) },
        Contender(label: "`HelloFoundation`: prints a line after `import Foundation`", role: .reference(lessWork: nil)) {
            try meter(executables, [executables.path("HelloFoundation")])
        },
        Contender(label: cipherLabel, role: .peer(lessWork: nil)) { try meter(executables, cipherArguments) },
    ], schedule)

    var table = Table(header: ["Process", "Kind", "n", "Median ms", "p99 ms", "Median ÷ floor", "Peak RSS median MiB", "p99 MiB", "Median ÷ floor", "GroupVault ÷ peer, time", "GroupVault ÷ peer, RSS"])
    let floor = result(floorLabel, in: results)
    let reader = result(readerLabel, in: results)
    let peer = result(cipherLabel, in: results)
    func mebibytes(_ kibibytes: Double) -> String { String(format: "%.1f", kibibytes / 1024) }
    func milliseconds(_ micro: Double) -> String { String(format: "%.2f", micro / 1000) }
    for entry in results {
        let isFloor = entry.contender.label == floorLabel
        let peaks = entry.peaks ?? Samples([0])
        table.rows.append([
            entry.contender.label, entry.contender.role.kind, "\(entry.times.count)",
            milliseconds(entry.times.median), milliseconds(entry.times.p99),
            isFloor ? "" : times(entry.times.median / floor.times.median),
            mebibytes(peaks.median), mebibytes(peaks.p99),
            isFloor ? "" : times(peaks.median / (floor.peaks?.median ?? 1)),
        ] + (entry.contender.label == cipherLabel
            ? [times(reader.times.median / peer.times.median), times((reader.peaks?.median ?? 0) / peaks.median)]
            : ["", ""]))
    }
    let timeRatio = reader.times.median / floor.times.median
    let peakRatio = (reader.peaks?.median ?? 0) / (floor.peaks?.median ?? 1)
    return Outcome(
        sections: [Section(
            title: "Cold read: a new process reading one record",
            notes: [
                "Each run is a fresh process started by `ProcessMeter` (fork, exec, `wait4`): wall time from fork to reaped exit, "
                    + "and the peak RSS `wait4` reports. The reader opens the keyring home and reads the middle record of a group of "
                    + "\(count(vault.size)) records, decoding it; its standard output goes to /dev/null like the others'. "
                    + "The SQLCipher peer's process, in C, opens a database of as many 1 KiB rows with its raw key, selects the same row and exits.",
            ],
            table: table)],
        checks: [
            .ratio("cold read, time", ratio: timeRatio, limit: 1.5,
                   measured: "median \(milliseconds(reader.times.median)) ms = \(times(timeRatio)) HelloSwift (\(milliseconds(floor.times.median)) ms)",
                   target: "≤ 1.5× Swift hello-world without Foundation"),
            .ratio("cold read, peak RSS", ratio: peakRatio, limit: 1.5,
                   measured: "median \(mebibytes(reader.peaks?.median ?? 0)) MiB = \(times(peakRatio)) HelloSwift (\(mebibytes(floor.peaks?.median ?? 0)) MiB)",
                   target: "≤ 1.5× Swift hello-world without Foundation"),
            .ratio("cold read against SQLCipher's cold process, time", ratio: reader.times.median / peer.times.median, limit: 1.2,
                   measured: "median \(milliseconds(reader.times.median)) ms = \(times(reader.times.median / peer.times.median)) SQLCipher (\(milliseconds(peer.times.median)) ms)",
                   target: "≤ 1.2× SQLCipher cold process"),
            .ratio("cold read against SQLCipher's cold process, peak RSS", ratio: (reader.peaks?.median ?? 0) / (peer.peaks?.median ?? 1), limit: 1.2,
                   measured: "median \(mebibytes(reader.peaks?.median ?? 0)) MiB = \(times((reader.peaks?.median ?? 0) / (peer.peaks?.median ?? 1))) SQLCipher (\(mebibytes(peer.peaks?.median ?? 0)) MiB)",
                   target: "≤ 1.2× SQLCipher cold process"),
        ])
}
