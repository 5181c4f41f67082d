import BenchModel
import Foundation
import Keyring
import Vault

/// Warm `Vault.read` and `Vault.write(.full)` of a 1 KiB record, and a keyed open, at each group
/// size, each interleaved with its C floor, references and the SQLCipher peer holding the same
/// records.
final class VaultFigures {
    /// The home the group lives in; child processes open it too.
    let home: URL
    /// The vault measured, durability `.full`.
    let vault: Vault
    /// The same vault keeping no read values (`cachesReadValues: false`): every read in full,
    /// the warm read's reference.
    private let uncachedVault: Vault
    /// The vault filling the group: `.atomic`, to fill faster (same records, fewer fsyncs).
    private let fillingVault: Vault
    /// A second group at the smallest size, kept for the whole run, read by a vault that keeps
    /// read values and by one that does not: the warm read's growth is measured against it in
    /// alternating blocks (``growthFigure(required:)``).
    private let smallVault: Vault
    private let smallUncachedVault: Vault
    private let smallSize: Int
    /// The C floors, over files in their own directory of the same file system.
    let crypto: CryptoFloor
    /// The floors' and peers' directory.
    let scratch: URL
    private var growth: GroupGrowth
    private let schedule: Schedule
    private let executables: Executables
    /// The SQLCipher peer holding as many 1 KiB records as the group, rebuilt at each size; the
    /// cold process figure opens its database.
    private(set) var cipher: SQLCipherPeer?

    /// Records in the group now.
    var size: Int { growth.size }

    init(root: URL, executables: Executables, options: Options) throws {
        self.executables = executables
        home = root.appendingPathComponent("vault-home", isDirectory: true)
        scratch = root.appendingPathComponent("vault-floors", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let keyring = BenchHome.keyring(root: home)
        vault = try Vault(keyring: keyring, group: BenchHome.group, durability: .full)
        uncachedVault = try Vault(keyring: keyring, group: BenchHome.group, durability: .full, cachesReadValues: false)
        fillingVault = try Vault(keyring: keyring, group: BenchHome.group, durability: .atomic)
        let smallKeyring = BenchHome.keyring(root: root.appendingPathComponent("vault-home-small", isDirectory: true))
        smallVault = try Vault(keyring: smallKeyring, group: BenchHome.group, durability: .full)
        smallUncachedVault = try Vault(keyring: smallKeyring, group: BenchHome.group, durability: .full, cachesReadValues: false)
        smallSize = options.sizes.first ?? 10
        let smallFillingVault = try Vault(keyring: smallKeyring, group: BenchHome.group, durability: .atomic)
        for index in 0..<smallSize { _ = try smallFillingVault.write(BenchRecord.make(index: index), to: BenchHome.recordName(index)) }
        crypto = try CryptoFloor(directory: scratch, messageSize: BenchRecord.payloadSize)
        growth = GroupGrowth(budgetSeconds: options.populationBudget)
        schedule = options.schedule
    }

    /// Fills the group up to `target` records (or the population deadline); returns the size.
    func grow(to target: Int) throws -> Int {
        try growth.grow(to: target) { index in
            _ = try fillingVault.write(BenchRecord.make(index: index), to: BenchHome.recordName(index))
        }
    }

    /// The note of a stage that fell short of `target`.
    func shortfall(target: Int) -> String? { growth.shortfall(target: target, reached: size, unit: "records") }

    deinit { cipher?.close() }

    /// The service every record has in the SQLCipher peer's table; the account is its name.
    static let cipherService = "vault"

    /// The name of the record the read figures read: the middle one.
    var readTarget: String { BenchHome.recordName(size / 2) }

    /// The warm read and keyed open figures at the group's current size, and the durable write
    /// figure, flush-bound, for ``measureFlushBound(_:runs:_:)`` to run with the others.
    func measure(target: Int) throws -> (outcome: Outcome, flushBound: [FlushBoundFigure]) {
        let size = self.size
        let sizeLabel = "\(count(size)) records"
        var outcome = Outcome()
        let readName = readTarget
        // Read once so the figure is warm: keys derived, caches filled, as in a running app.
        _ = try vault.read(BenchRecord.self, from: readName)
        _ = try uncachedVault.read(BenchRecord.self, from: readName)
        try crypto.writeSealedFile("read.sealed")
        self.cipher?.close()
        let cipher = try SQLCipherPeer(
            executables, path: scratch.appendingPathComponent("sqlcipher-\(size).db"), rows: size, bytes: BenchRecord.payloadSize
        ) { (Self.cipherService, BenchHome.recordName($0)) }
        self.cipher = cipher
        let cipherRead = "SQLCipher point select of a 1 KiB row, \(count(size)) rows (child process)"
        // Built for the read figure and destroyed after it: the kernel's key quota for root
        // (25,000,000 bytes) holds one 10,000-key keyring, and the keyring figures build theirs.
        let kernel = try KernelKeyringPeer(name: "groupvault-bench-vault-\(size)", keys: size, bytes: BenchRecord.payloadSize) {
            (Self.cipherService, BenchHome.recordName($0))
        }
        let kernelRead = "kernel keyring `keyctl_search` + `keyctl_read` of a 1 KiB key, \(count(size)) keys"

        let readFloor = "C read + XChaCha20-Poly1305 open of a 1 KiB file"
        // On one CPU, SQLCipher's child beside this thread, so that no CPU idles between
        // contenders (Benchmarks/README.md, "Placement").
        let read = try onOneCPU(with: [cipher.processIdentifier]) { try interleave([
            Contender(label: "`Vault.read`, 1 KiB, warm, decode included", role: .groupVault) {
                try .timing { _ = try self.vault.read(BenchRecord.self, from: readName) }
            },
            Contender(label: readFloor, role: .floor) {
                try .timing { try self.crypto.readOpen("read.sealed") }
            },
            Contender(label: "`Vault.read`, 1 KiB, every read in full (`cachesReadValues: false`)", role: .reference(lessWork: nil)) {
                try .timing { _ = try self.uncachedVault.read(BenchRecord.self, from: readName) }
            },
            Contender(label: "C XChaCha20-Poly1305 open, 1 KiB in memory", role: .reference(lessWork: "no file read")) {
                try .timing { try self.crypto.openInMemory() }
            },
            Contender(label: "C XChaCha20-Poly1305 seal, 1 KiB in memory", role: .reference(lessWork: nil)) {
                try .timing { try self.crypto.sealInMemory() }
            },
            Contender(label: cipherRead, role: .peer(lessWork: "no decoding")) {
                try cipher.get(Self.cipherService, readName)
            },
            Contender(label: kernelRead, role: .peer(lessWork: "kernel memory, nothing on disk; no decoding")) {
                try .timing { try kernel.read(Self.cipherService, readName) }
            },
        ], schedule) }
        withExtendedLifetime(kernel) {}
        let readRatio = result("`Vault.read`, 1 KiB, warm, decode included", in: read).median / result(readFloor, in: read).median
        outcome.sections.append(Section(
            title: "Warm `Vault.read`, group of \(sizeLabel)",
            notes: [shortfall(target: target)].compactMap { $0 } + [
                "Reads the middle record (`\(readName)`) of a group of \(sizeLabel), already read by this `Vault`, and unchanged "
                    + "since: the read returns the value it judged then, after the checks that show nothing changed (the keyring's, "
                    + "the records directory's watch, the database's stamp, the file's status). The reference below makes every read "
                    + "in full (`cachesReadValues: false`): the file read, opened, admitted by its ledger row and decoded. "
                    + "The floor reads a 1 KiB sealed file (open, fstat, read, close) and opens it, with the key in hand. "
                    + "The SQLCipher peer selects the same 1 KiB in a table of as many rows, timed inside its child process, held "
                    + "on one CPU with this process (Benchmarks/README.md, \"Placement\"); the "
                    + "kernel keyring peer finds the same key in a keyring of as many 1 KiB keys and reads it, in this process.",
            ],
            table: timeTable(read)))
        outcome.checks.append(.ratio(
            "warm `Vault.read`, \(sizeLabel)", ratio: readRatio, limit: 5,
            measured: ratioText(read, "`Vault.read`, 1 KiB, warm, decode included", readFloor, floorName: "C read+open"),
            target: "≤ 5× C read+open"))
        outcome.checks.append(.ratio(
            "warm `Vault.read` against SQLCipher, \(sizeLabel)", of: "`Vault.read`, 1 KiB, warm, decode included",
            over: cipherRead, named: "SQLCipher point select", in: read, limit: 2.5, target: "≤ 2.5× SQLCipher point select"))

        let database = try SQLiteFloor(
            path: scratch.appendingPathComponent("write-\(size).sqlite"), synchronousFull: true,
            rows: size, valueSize: BenchRecord.payloadSize + 40)
        let writeFloor = "C seal + durable replace (temporary file, fsync, rename, directory fsync)"
        let written = BenchRecord.make(index: 0)
        let writtenName = BenchHome.recordName(0)
        let foundationBlob = Data(crypto.sealed)
        let foundationURL = scratch.appendingPathComponent("foundation.sealed")
        let cipherWrite = "SQLCipher WAL replace of a 1 KiB row, synchronous FULL, \(count(size)) rows (child process)"
        let writeContenders = [
            Contender(label: "`Vault.write` (`.full`), 1 KiB", role: .groupVault) {
                try .timing { _ = try self.vault.write(written, to: writtenName) }
            },
            Contender(label: writeFloor, role: .floor) {
                try .timing { try self.crypto.sealDurableReplace("write.sealed") }
            },
            Contender(label: "SQLite WAL upsert, synchronous FULL, 1 KiB row, \(count(size)) rows", role: .reference(lessWork: nil)) {
                try .timing { try database.upsert(size / 2) }
            },
            Contender(label: "Foundation `Data.write(to:options: .atomic)`, 1 KiB", role: .reference(lessWork: "no directory fsync, no seal")) {
                try .timing { try foundationBlob.write(to: foundationURL, options: .atomic) }
            },
            Contender(label: cipherWrite, role: .peer(lessWork: nil)) {
                try cipher.put(Self.cipherService, writtenName, bytes: BenchRecord.payloadSize)
            },
        ]
        let sizeNotes = [shortfall(target: target)].compactMap { $0 }
        let writeFigure = FlushBoundFigure(name: "`Vault.write(.full)`, \(sizeLabel)", contenders: writeContenders) { write in
            var outcome = Outcome()
            outcome.sections.append(Section(
                title: "`Vault.write(.full)`, group of \(sizeLabel)",
                notes: sizeNotes + [
                    "Overwrites record `\(writtenName)` of a group of \(sizeLabel) with a 1 KiB record. The floor seals 1 KiB "
                        + "and replaces a file durably: write a temporary file, fsync it, rename it over the old one, fsync the directory. "
                        + "Foundation's atomic write skips the directory fsync (so a crash can still lose the rename) and is never a denominator. "
                        + "The SQLCipher peer replaces the same 1 KiB row in its own transaction (one WAL commit, fsynced).",
                ],
                table: timeTable(write)))
            outcome.checks.append(.ratio(
                "`Vault.write(.full)`, \(sizeLabel)", of: "`Vault.write` (`.full`), 1 KiB",
                over: writeFloor, named: "C durable replace", in: write, limit: 1.5, target: "≤ 1.5× C durable replace"))
            outcome.checks.append(.ratio(
                "`Vault.write(.full)` against SQLCipher, \(sizeLabel)", of: "`Vault.write` (`.full`), 1 KiB",
                over: cipherWrite, named: "SQLCipher WAL FULL replace", in: write, limit: 2, target: "≤ 2× SQLCipher WAL FULL upsert"))
            return outcome
        }

        // A keyed open: what a process pays to start using the store with its key in hand.
        let openLabel = "a new `Keyring` and `Vault`, then its first `Vault.read` of 1 KiB"
        let cipherOpen = "SQLCipher keyed open (`PRAGMA key`, raw key; first page read) + first point select (child process)"
        let home = self.home
        let open = try interleave([
            Contender(label: openLabel, role: .groupVault) {
                try .timing {
                    let vault = try Vault(keyring: BenchHome.keyring(root: home), group: BenchHome.group, durability: .full)
                    _ = try vault.read(BenchRecord.self, from: readName)
                }
            },
            Contender(label: cipherOpen, role: .peer(lessWork: "no decoding")) {
                try cipher.reopenAndGet(Self.cipherService, readName)
            },
        ], schedule)
        outcome.sections.append(Section(
            title: "Keyed open and first read, group of \(sizeLabel)",
            notes: [shortfall(target: target)].compactMap { $0 } + [
                "GroupVault opens a new `Keyring` over the home and a `Vault` on it and reads the middle record; SQLCipher closes its "
                    + "database, opens it again with its raw 256-bit key (no passphrase derivation: GroupVault's keys are random too), sets "
                    + "WAL and synchronous FULL, prepares its statements and reads the schema, then selects the same 1 KiB. No floor.",
            ],
            table: timeTable(open)))
        // Counted before the write figure, whose rows and records would change what is counted.
        outcome.append(try DiskSpaceFigure(home: home, cipherDatabase: cipher.path, records: size).measure())
        return (outcome, [writeFigure])
    }
}

extension VaultFigures {
    /// The warm read's growth figure: the read of the middle record in the group as filled (the
    /// largest size reached) and in the small group, in alternating blocks, both as the vault
    /// returns the value it judged and as it reads in full, each held to "≤ 1.3× growth";
    /// nothing when the group never grew past the small group's size.
    func growthFigure(required: Int) throws -> Outcome {
        guard size > smallSize else { return Outcome() }
        let (largeName, smallName) = (readTarget, BenchHome.recordName(smallSize / 2))
        let (section, growths) = try measureGrowthInBlocks(
            [
                GrowthOperation(name: "warm `Vault.read`", variant: "value kept (the default)", limits: [1.3],
                                large: { _ = try self.vault.read(BenchRecord.self, from: largeName) },
                                small: { _ = try self.smallVault.read(BenchRecord.self, from: smallName) }),
                GrowthOperation(name: "warm `Vault.read`", variant: "every read in full (`cachesReadValues: false`)", limits: [1.3],
                                large: { _ = try self.uncachedVault.read(BenchRecord.self, from: largeName) },
                                small: { _ = try self.smallUncachedVault.read(BenchRecord.self, from: smallName) }),
            ],
            title: "Warm `Vault.read` growth, \(count(smallSize)) → \(count(size)) records",
            what: "The warm read of the middle 1 KiB record, decoded, twice: as the vault returns the value it judged at an earlier "
                + "read, after the checks that show nothing changed, and with `cachesReadValues: false`, every read in full (the "
                + "file read, opened, admitted by its ledger row and decoded): only this one would show a read whose file or ledger "
                + "lookup scans the group.",
            size: size, baseSize: smallSize, unit: "records",
            notes: [shortfall(target: required)].compactMap { $0 }, schedule: schedule)
        return Outcome(sections: [section], checks: growths.flatMap { $0.checks(required: required) })
    }
}

/// "median 210 µs = 53.1× C read+open (3.95 µs)": a ratio with both medians (of a flush-bound
/// figure, the medians of its run medians).
func ratioText(_ results: [ContenderResult], _ measured: String, _ floor: String, floorName: String) -> String {
    let measuredMedian = result(measured, in: results).median
    let floorMedian = result(floor, in: results).median
    return "median \(microseconds(measuredMedian)) µs = \(times(measuredMedian / floorMedian)) \(floorName) (\(microseconds(floorMedian)) µs)"
}
