import BenchModel
import Foundation

/// One GroupVault process of a cold figure and the peers' processes doing the same.
struct ColdProcesses {
    /// "read" or "lookup": names the figure's section and checks.
    let operation: String
    /// The group the process reads from, in the section's title and the checks' names:
    /// "1,000 records", "1,000 items, many accounts under one service".
    let group: String
    /// The GroupVault process's label and command line.
    let groupVault: (label: String, arguments: [String])
    /// The SQLCipher peer's: keyed open, the same select, exit. The targets' denominator.
    let peer: (label: String, arguments: [String])
    /// The kernel keyring peer's: search the keyring the benchmark shares, read the key, exit.
    let kernelPeer: (label: String, arguments: [String])
    /// What the section says is measured, after the common method note.
    let note: String
    /// The limit of the GroupVault process over `HelloSwift`, in time and in peak RSS, if the
    /// figure has that target.
    let floorLimit: Double?
}

/// What the cold figures say of their kernel keyring peer.
private let kernelPeerNote = "The kernel keyring peer's process, in C (`KernelKeyringChild`), searches a keyring of as many keys "
    + "that this process linked into its session keyring (which the child inherits, and so possesses) for the same key, reads "
    + "its 1 KiB and exits: what a tool keeping its secret in the kernel keyring does; kernel memory, nothing on disk."

/// A new process that reads one record, as a widget does, with the Vault figures' group and
/// SQLCipher peer at the size last measured; the target over `HelloSwift` is the keyring-storage
/// issue's.
func coldReadFigure(_ executables: Executables, vault: VaultFigures, options: Options) throws -> Outcome {
    guard let cipher = vault.cipher else { preconditionFailure("the vault figures run before the cold read") }
    let kernel = try KernelKeyringPeer(
        name: "groupvault-bench-cold-read-\(vault.size)-\(getpid())", keys: vault.size, bytes: BenchRecord.payloadSize, sharedWithChildren: true
    ) { (VaultFigures.cipherService, BenchHome.recordName($0)) }
    // Kept until the figure is measured: its deinit unlinks the keyring the children search.
    return try withExtendedLifetime(kernel) { try coldProcessFigure(executables, ColdProcesses(
        operation: "read",
        group: "\(count(vault.size)) records",
        groupVault: ("`GroupVaultChild read`: open the keyring, `Vault.read` one 1 KiB record, exit",
                     [executables.path("GroupVaultChild"), "read", vault.home.path, vault.readTarget]),
        peer: ("`SQLCipherChild cold`: keyed open of the SQLCipher peer's database, select the same 1 KiB row, exit",
               [executables.path("SQLCipherChild"), "cold", cipher.path.path, cipher.hexKey, VaultFigures.cipherService, vault.readTarget]),
        kernelPeer: ("`KernelKeyringChild`: `keyctl_search` + `keyctl_read` of the same 1 KiB in a keyring of as many keys, exit",
                     [executables.path("KernelKeyringChild"), "\(kernel.keyring)", KernelKeyringPeer.description(VaultFigures.cipherService, vault.readTarget)]),
        note: "The reader opens the keyring home and reads the middle record of a group of \(count(vault.size)) records, decoding it. "
            + "The SQLCipher peer's process, in C, opens a database of as many 1 KiB rows with its raw key, selects the same row and exits. "
            + kernelPeerNote,
        floorLimit: 1.5), options: options) }
}

/// A new process that looks one item up, as a command-line tool reading a token does, with the
/// Keyring figures' group and SQLCipher peer (of their ``KeyringFigures/shape``) at the size last
/// measured.
func coldLookupFigure(_ executables: Executables, keyring: KeyringFigures, options: Options) throws -> Outcome {
    guard let cipher = keyring.cipher else { preconditionFailure("the keyring figures run before the cold lookup") }
    let (service, account) = keyring.key(keyring.size / 2)
    let kernel = try KernelKeyringPeer(
        name: "groupvault-bench-cold-lookup-\(keyring.shape.slug)-\(keyring.size)-\(getpid())", keys: keyring.size, bytes: KeyringFigures.secretSize, sharedWithChildren: true
    ) { keyring.key($0) }
    // Kept until the figure is measured: its deinit unlinks the keyring the children search.
    return try withExtendedLifetime(kernel) { try coldProcessFigure(executables, ColdProcesses(
        operation: "lookup",
        group: "\(count(keyring.size)) items, \(keyring.shape.rawValue)",
        groupVault: ("`GroupVaultChild lookup`: `Keyring.item(matching:)` of one item with a 1 KiB secret, exit",
                     [executables.path("GroupVaultChild"), "lookup", keyring.home.path, service, account]),
        peer: ("`SQLCipherChild cold`: keyed open of the SQLCipher peer's database, select the same 1 KiB secret, exit",
               [executables.path("SQLCipherChild"), "cold", cipher.path.path, cipher.hexKey, service, account]),
        kernelPeer: ("`KernelKeyringChild`: `keyctl_search` + `keyctl_read` of the same 1 KiB secret in a keyring of the same items, exit",
                     [executables.path("KernelKeyringChild"), "\(kernel.keyring)", KernelKeyringPeer.description(service, account)]),
        note: "The process opens the keyring home and finds the middle item of a group of \(count(keyring.size)) items "
            + "(\(keyring.shape.rawValue)) by service and account. The SQLCipher peer's process, in C, opens a database of the same "
            + "items with its raw key, selects the same secret and exits. The GroupVault process is the cold read's executable "
            + "(`GroupVaultChild`), which also links Vault; a lookup runs none of its code. " + kernelPeerNote,
        floorLimit: nil), options: options) }
}

/// Each run a fresh process, interleaved: the GroupVault process, the smallest Swift programs
/// with and without Foundation, and the SQLCipher peer's process.
private func coldProcessFigure(_ executables: Executables, _ processes: ColdProcesses, options: Options) throws -> Outcome {
    let readerLabel = processes.groupVault.label
    let floorLabel = "`HelloSwift`: prints a line; standard library only"
    let cipherLabel = processes.peer.label
    let kernelLabel = processes.kernelPeer.label
    let schedule = Schedule(
        warmupRounds: min(options.warmup, 3), rounds: options.coldRounds,
        minimumRounds: options.minimumRounds, budget: .seconds(options.budget))
    let results = try interleave([
        Contender(label: readerLabel, role: .groupVault) { try meter(executables, processes.groupVault.arguments) },
        Contender(label: floorLabel, role: .floor) { try meter(executables, [executables.path("HelloSwift")]) },
        Contender(label: "`HelloFoundation`: prints a line after `import Foundation`", role: .reference(lessWork: nil)) {
            try meter(executables, [executables.path("HelloFoundation")])
        },
        Contender(label: cipherLabel, role: .peer(lessWork: nil)) { try meter(executables, processes.peer.arguments) },
        Contender(label: kernelLabel, role: .peer(lessWork: "kernel memory, nothing on disk")) {
            try meter(executables, processes.kernelPeer.arguments)
        },
    ], schedule)

    var table = Table(header: ["Process", "Kind", "n", "Median ms", "p99 ms", "Median ÷ floor", "Peak RSS median MiB", "p99 MiB", "Median ÷ floor", "GroupVault ÷ peer, time", "GroupVault ÷ peer, RSS"])
    let floor = result(floorLabel, in: results)
    let reader = result(readerLabel, in: results)
    func mebibytes(_ kibibytes: Double) -> String { String(format: "%.1f", kibibytes / 1024) }
    func milliseconds(_ micro: Double) -> String { String(format: "%.2f", micro / 1000) }
    for entry in results {
        let isFloor = entry.contender.label == floorLabel
        let peaks = entry.peaks ?? Samples([0])
        table.rows.append([
            entry.contender.label, entry.contender.role.kind, "\(entry.times.count)",
            milliseconds(entry.median), milliseconds(entry.times.p99),
            isFloor ? "" : times(entry.median / floor.median),
            mebibytes(peaks.median), mebibytes(peaks.p99),
            isFloor ? "" : times(peaks.median / (floor.peaks?.median ?? 1)),
        ] + ([cipherLabel, kernelLabel].contains(entry.contender.label)
            ? [times(reader.median / entry.median), times((reader.peaks?.median ?? 0) / peaks.median)]
            : ["", ""]))
    }
    let operation = processes.operation
    let group = processes.group
    var checks: [TargetCheck] = []
    if let limit = processes.floorLimit {
        let timeRatio = reader.median / floor.median
        let peakRatio = (reader.peaks?.median ?? 0) / (floor.peaks?.median ?? 1)
        let target = "≤ \(String(format: "%g", limit))× Swift hello-world without Foundation"
        checks += [
            .ratio("cold \(operation), \(group), time", ratio: timeRatio, limit: limit,
                   measured: "median \(milliseconds(reader.median)) ms = \(times(timeRatio)) HelloSwift (\(milliseconds(floor.median)) ms)",
                   target: target),
            .ratio("cold \(operation), \(group), peak RSS", ratio: peakRatio, limit: limit,
                   measured: "median \(mebibytes(reader.peaks?.median ?? 0)) MiB = \(times(peakRatio)) HelloSwift (\(mebibytes(floor.peaks?.median ?? 0)) MiB)",
                   target: target),
        ]
    }
    let peer = result(cipherLabel, in: results)
    checks += [
        .ratio("cold \(operation) against SQLCipher's cold process, \(group), time", ratio: reader.median / peer.median, limit: 1.2,
               measured: "median \(milliseconds(reader.median)) ms = \(times(reader.median / peer.median)) SQLCipher (\(milliseconds(peer.median)) ms)",
               target: "≤ 1.2× SQLCipher cold process"),
        .ratio("cold \(operation) against SQLCipher's cold process, \(group), peak RSS", ratio: (reader.peaks?.median ?? 0) / (peer.peaks?.median ?? 1), limit: 1.2,
               measured: "median \(mebibytes(reader.peaks?.median ?? 0)) MiB = \(times((reader.peaks?.median ?? 0) / (peer.peaks?.median ?? 1))) SQLCipher (\(mebibytes(peer.peaks?.median ?? 0)) MiB)",
               target: "≤ 1.2× SQLCipher cold process"),
    ]
    return Outcome(
        sections: [Section(
            title: "Cold \(operation): a new process \(operation == "read" ? "reading one record" : "looking one item up"), group of \(group)",
            notes: [
                "Each run is a fresh process started by `ProcessMeter` (fork, exec, `wait4`): wall time from fork to reaped exit, "
                    + "and the peak RSS `wait4` reports; every process's standard output goes to /dev/null. " + processes.note,
            ],
            table: table)],
        checks: checks)
}
