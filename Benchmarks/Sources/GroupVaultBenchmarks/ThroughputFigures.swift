import BenchModel
import Foundation
import Keyring
import Vault

/// `records verify` and `records reseal` over the whole group, in records per second.
struct ThroughputFigures {
    let vault: VaultFigures
    let executables: Executables
    let options: Options

    /// The floor's file for record `index`: one sealed file per record, as the group has.
    static func floorName(_ index: Int) -> String { "f" + String(index + 100_000).dropFirst() + ".sealed" }

    func measure() throws -> Outcome {
        let size = vault.size
        for index in 0..<size { try vault.crypto.writeSealedFile(Self.floorName(index)) }
        // The SQLCipher peer holding as many 1 KiB records, in a database of its own: its key
        // is replaced by the reseal's passes.
        let cipher = try SQLCipherPeer(
            executables, path: vault.scratch.appendingPathComponent("sqlcipher-throughput-\(size).db"), rows: size, bytes: BenchRecord.payloadSize
        ) { (VaultFigures.cipherService, BenchHome.recordName($0)) }
        defer { cipher.close() }
        var outcome = Outcome()
        outcome.append(try verify(size: size, cipher: cipher))
        outcome.append(try reseal(size: size, cipher: cipher))
        return outcome
    }

    static let verifyPeerLabel = "SQLCipher keyed open + read of every row: each page decrypted and its HMAC checked (child process)"
    static let verifyPeerKind = "**peer**; does less: pages authenticated, no record's freshness judged"
    static let resealPeerLabel = "SQLCipher `PRAGMA rekey`: every page encrypted again under a new key (child process)"
    static let resealPeerKind = "**peer**; one transaction for the whole database, durability batched"

    /// What `vaultcli records verify` runs: `Vault.verifyAll()`, a whole pass over the group
    /// (its listing, one snapshot of the trust ledger, then every record opened and judged),
    /// alternating with whole passes of the floor (GroupVault, floor, GroupVault, floor, ...),
    /// ``Options/verifyPasses`` of each, or fewer once ``Options/throughputBudget`` is spent
    /// (never fewer than one). A pass is not stopped part way: `verifyAll` has no cancellation,
    /// and over 10,000 records a pass takes about a second.
    private func verify(size: Int, cipher: SQLCipherPeer) throws -> Outcome {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(options.throughputBudget)
        var passes: [Double] = []
        var floorPasses: [Double] = []
        var peerPasses: [Double] = []
        // Per record: the time between two of verifyAll's progress calls (the first from the
        // pass's start, so it carries the listing and the ledger snapshot), and each floor read.
        var records: [Double] = []
        var floors: [Double] = []
        for pass in 1...options.verifyPasses where pass == 1 || clock.now < deadline {
            progress("verify: pass \(pass) of \(options.verifyPasses), GroupVault, floor, then SQLCipher...")
            var marks: [ContinuousClock.Instant] = []
            marks.reserveCapacity(size + 1)
            marks.append(clock.now)
            let report = try vault.vault.verifyAll { _ in marks.append(clock.now) }
            let end = clock.now
            guard report.records.count == size, report.passed == size else {
                throw BenchmarkFailure("verifyAll passed \(report.passed) of \(report.records.count) records, expected \(size): \(report.findings.prefix(3))")
            }
            passes.append((end - marks[0]).microseconds / 1e6)
            records += zip(marks.dropFirst(), marks).map { ($0 - $1).microseconds }

            let floorStart = clock.now
            for index in 0..<size {
                floors.append(try Measurement.timing { try vault.crypto.readOpen(Self.floorName(index)) }.microseconds)
            }
            floorPasses.append((clock.now - floorStart).microseconds / 1e6)

            peerPasses.append(try cipher.reopenAndScan(rows: size) / 1e6)
        }

        // Records per second of each pass, in the order they ran.
        let passRates = passes.map { Double(size) / $0 }
        let floorPassRates = floorPasses.map { Double(size) / $0 }
        let peerPassRates = peerPasses.map { Double(size) / $0 }
        let rates = Samples(passRates)
        let floorRates = Samples(floorPassRates)
        let peerRates = Samples(peerPassRates)
        func each(_ rates: [Double]) -> String { rates.map { count(Int($0)) }.joined(separator: " / ") }
        var table = Table(header: ["Operation", "Kind", "Passes", "Per record median µs", "p99 µs", "Median records/s", "Each pass: records/s", "Time per record ÷ floor", "GroupVault ÷ peer"])
        let recordSamples = Samples(records)
        let floorSamples = Samples(floors)
        table.rows.append(["`Vault.verifyAll()` (what `records verify` runs)", "GroupVault", "\(passes.count)",
                           microseconds(recordSamples.median), microseconds(recordSamples.p99), count(Int(rates.median)),
                           each(passRates), times(floorRates.median / rates.median), ""])
        table.rows.append(["C read + XChaCha20-Poly1305 open of each record's 1 KiB file", "**floor**", "\(floorPasses.count)",
                           microseconds(floorSamples.median), microseconds(floorSamples.p99), count(Int(floorRates.median)),
                           each(floorPassRates), "", ""])
        table.rows.append([Self.verifyPeerLabel, Self.verifyPeerKind, "\(peerPasses.count)", "", "", count(Int(peerRates.median)),
                           each(peerPassRates), times(floorRates.median / peerRates.median), times(peerRates.median / rates.median)])
        var notes = [
            "A group of \(count(size)) records. GroupVault's passes and the floor's alternate (GroupVault, floor, GroupVault, floor, ...), "
                + "\(passes.count) of each. A GroupVault pass is one `Vault.verifyAll()` call, as `vaultcli records verify` makes: it lists the "
                + "records directory, takes one snapshot of the trust ledger, and opens and judges every record (key, tag, ledger, freshness) "
                + "without knowing its type; every record must come out authentic. Its per-record times are the gaps between its progress "
                + "calls (the first one, from the call's start, carries the listing and the snapshot). The floor reads and opens each "
                + "record's 1 KiB file in C and checks nothing else. The SQLCipher peer's pass, after each floor pass, closes its "
                + "database of as many 1 KiB rows, opens it again with its key (which empties SQLCipher's page cache) and reads every "
                + "row, timed in its child; it has no per-record times, and it judges no record's freshness (SQLCipher has no "
                + "rollback check), so it does less than `verifyAll`.",
        ]
        if passes.count < options.verifyPasses {
            notes.insert("**Fewer passes:** the \(Int(options.throughputBudget)) s budget was spent after \(passes.count) of "
                + "\(options.verifyPasses) passes a side.", at: 0)
        }
        let measured = "\(count(Int(rates.median))) records/s (median of \(passes.count) pass\(passes.count == 1 ? "" : "es"), "
            + "interleaved with \(floorPasses.count) of the floor's) at \(count(size)) records"
        return Outcome(
            sections: [Section(title: "`records verify`, group of \(count(size)) records", notes: notes, table: table)],
            checks: [verifyCheck(size: size, measured: measured, rate: rates.median)])
    }

    private func verifyCheck(size: Int, measured: String, rate: Double) -> TargetCheck {
        if size < 10_000, rate >= 20_000 {
            return TargetCheck(figure: "`records verify`, \(count(size)) records", measured: measured, target: "≥ 20,000 records/s at 10,000",
                               verdict: .notMeasured(reason: "met at \(count(size)) records; 10,000 not reached"))
        }
        return .throughput("`records verify`, \(count(size)) records", rate: rate, minimum: 20_000, measured: measured, target: "≥ 20,000 records/s at 10,000")
    }

    /// `Vault.resealAll()` (what `records reseal` does) after a key rotation, in a child
    /// process so a deadline can stop it, and the floor resealing as many files: passes
    /// alternate, GroupVault's then the floor's (A B A B ...), ``Options/resealPasses`` of each,
    /// each stopped by ``Options/resealPassBudget`` if it has not finished by then. Each pass is
    /// one sample of records per second, over the records it covered.
    private func reseal(size: Int, cipher: SQLCipherPeer) throws -> Outcome {
        let clock = ContinuousClock()
        var passes: [(done: Int, seconds: Double)] = []
        var floorPasses: [(done: Int, seconds: Double)] = []
        var peerPasses: [(done: Int, seconds: Double)] = []
        let passBudget = Duration.seconds(options.resealPassBudget)
        for pass in 1...options.resealPasses {
            progress("reseal: pass \(pass) of \(options.resealPasses), GroupVault, floor, then SQLCipher...")
            let primary = try vault.vault.keyring.rotateKey(in: BenchHome.group).id
            let passStart = clock.now
            _ = try run([executables.path("GroupVaultChild"), "reseal-all", vault.home.path], deadline: passStart + passBudget)
            let seconds = (clock.now - passStart).microseconds / 1e6
            // Counted from the records themselves, so a pass the deadline stopped counts what it
            // did; the next pass, after the next rotation, reseals every record again.
            let done = try vault.vault.list().filter { (try? $0.header.get().keyID) == primary }.count
            guard done > 0 else { throw BenchmarkFailure("resealAll resealed nothing in \(Int(seconds)) s") }
            passes.append((done, seconds))

            // The floor reseals as many files, under the same budget.
            let floorDeadline = clock.now + passBudget
            var floorDone = 0
            let floorSeconds = try clock.measure {
                while floorDone < done, floorDone % 16 != 0 || clock.now < floorDeadline {
                    try vault.crypto.reseal(Self.floorName(floorDone))
                    floorDone += 1
                }
            }.microseconds / 1e6
            floorPasses.append((floorDone, floorSeconds))
            vault.crypto.rotate()
            // Files the floor did not reach are still under the old key: rewritten, untimed and
            // without fsync, under the current one, so the next pass finds every file as this
            // one did (the group's own records need nothing: resealAll reseals any older key).
            for index in floorDone..<size { try vault.crypto.writeSealedFile(Self.floorName(index)) }

            peerPasses.append((size, try cipher.rekey() / 1e6))
        }

        func rate(_ pass: (done: Int, seconds: Double)) -> Double { Double(pass.done) / pass.seconds }
        let rates = Samples(passes.map(rate))
        let floorRates = Samples(floorPasses.map(rate))
        let peerRates = Samples(peerPasses.map(rate))
        func each(_ passes: [(done: Int, seconds: Double)]) -> String {
            passes.map { "\(count(Int(rate($0)))) (\(count($0.done)))" }.joined(separator: " / ")
        }
        var table = Table(header: ["Operation", "Kind", "Passes", "Median records/s", "Each pass: records/s (records covered)", "Time per record ÷ floor", "GroupVault ÷ peer"])
        table.rows.append(["`Vault.resealAll()` after `rotateKey`, in a child process", "GroupVault", "\(passes.count)",
                           count(Int(rates.median)), each(passes), times(floorRates.median / rates.median), ""])
        table.rows.append(["C read + open + seal under the new key + durable replace, per record", "**floor**", "\(floorPasses.count)",
                           count(Int(floorRates.median)), each(floorPasses), "", ""])
        table.rows.append([Self.resealPeerLabel, Self.resealPeerKind, "\(peerPasses.count)",
                           count(Int(peerRates.median)), each(peerPasses), times(floorRates.median / peerRates.median), times(peerRates.median / rates.median)])
        var notes = [
            "A group of \(count(size)) records, every one under the previous primary key after `rotateKey`. GroupVault's passes and the "
                + "floor's alternate (GroupVault, floor, GroupVault, floor, ...), \(passes.count) of each. Each GroupVault pass runs "
                + "`GroupVaultChild reseal-all` (a new process calling `Vault.resealAll()`; its start-up, a few milliseconds, is included) "
                + "and counts the records now under the new key; the floor's pass that follows reseals as many files. A pass not done "
                + "after \(Int(options.resealPassBudget)) s is stopped (`resealAll` killed, the floor's loop ended) and its rate is over "
                + "the records it covered, shown beside it. The floor makes each record durable on its own "
                + "(two fsyncs per record); storage that batches durability across records can beat it. The SQLCipher peer's pass, "
                + "after each floor pass, rekeys its database of as many 1 KiB rows (`PRAGMA rekey`, timed in its child): it is such "
                + "storage, every page rewritten in one transaction, one commit for the whole database.",
        ]
        if let stopped = passes.first(where: { $0.done < size }) {
            notes.insert("**Partial passes:** `resealAll` covered \(count(stopped.done)) of \(count(size)) records in its "
                + "\(Int(options.resealPassBudget)) s pass; at the median rate the whole group would take "
                + String(format: "%.0f s.", Double(size) / rates.median), at: 0)
        }
        let measured = "\(count(Int(rates.median))) records/s (median of \(passes.count) pass\(passes.count == 1 ? "" : "es"), "
            + "interleaved with \(floorPasses.count) of the floor's) at \(count(size)) records"
        let check: TargetCheck
        if size < 10_000, rates.median >= 2_000 {
            check = TargetCheck(figure: "`records reseal`, \(count(size)) records", measured: measured, target: "≥ 2,000 records/s at 10,000",
                                verdict: .notMeasured(reason: "met at \(count(size)) records; 10,000 not reached"))
        } else {
            check = .throughput("`records reseal`, \(count(size)) records", rate: rates.median, minimum: 2_000, measured: measured, target: "≥ 2,000 records/s at 10,000")
        }
        return Outcome(sections: [Section(title: "`records reseal`, group of \(count(size)) records", notes: notes, table: table)], checks: [check])
    }
}
