import Foundation

/// The system calls and device flushes of one durable write, counted rather than estimated:
/// `Keyring.add` and `Vault.write(.full)`, beside SQLCipher's durable upserts they are held to.
///
/// Each writer runs in a process of its own under `strace -f -c`, once making `writes` writes
/// and once `2 × writes`, each from a fresh home or database; the difference of the two counts,
/// over `writes`, is one write's share. The process's start, its first write's set-up (a new
/// keyring, a new table) and its exit are in both runs and cancel out; work that comes every so
/// many writes (a WAL checkpoint) is averaged over them, as a long run of writes pays it.
struct SyscallCountFigure {
    let executables: Executables
    /// Where the homes and databases are made.
    let root: URL
    /// Writes in the shorter run.
    let writes: Int

    /// One writer: the program and arguments for a run of `count` writes into the fresh `place`.
    private struct Writer {
        let label: String
        let kind: String
        let arguments: (_ place: URL, _ count: Int) -> [String]
    }

    /// One write's counts: system call name to calls per write.
    private struct PerWrite {
        let calls: [String: Double]
        let total: Double
    }

    /// The section, or a skipped entry when `strace` is not installed.
    func measure() throws -> Outcome {
        guard let strace = Self.strace() else {
            return Outcome(skipped: ["System calls per durable write: not measured, `strace` is not installed (`scripts/install-dependencies --bench` installs it)."])
        }
        let child = executables.path("GroupVaultChild")
        let cipher = executables.path("SQLCipherChild")
        let hexKey = SQLCipherPeer.randomHexKey()
        let writers = [
            Writer(label: "`Keyring.add`, 1 KiB secret, a new item each", kind: "GroupVault") { [child, "keyring-adds", $0.path, "\($1)"] },
            Writer(label: "SQLCipher WAL insert of a new 1 KiB row, synchronous FULL", kind: "**peer**") { [cipher, "puts", $0.path, hexKey, "\($1)", "new"] },
            Writer(label: "`Vault.write` (`.full`), 1 KiB, one record rewritten", kind: "GroupVault") { [child, "vault-writes", $0.path, "\($1)"] },
            Writer(label: "SQLCipher WAL replace of one 1 KiB row, synchronous FULL", kind: "**peer**") { [cipher, "puts", $0.path, hexKey, "\($1)", "same"] },
        ]
        // Flushing calls other than fsync and fdatasync, so the note never claims there were none
        // when there were.
        let otherFlushes = ["sync", "syncfs", "sync_file_range", "msync"]
        var otherFlushesCalled: [String] = []
        var table = Table(header: ["Operation", "Kind", "Writes counted", "fsync", "fdatasync", "System calls", "Most frequent, per write"])
        for (index, writer) in writers.enumerated() {
            progress("system calls: counting \(writer.label)...")
            let short = try countCalls(writer, writes, strace: strace, place: root.appendingPathComponent("syscalls-\(index)-short"))
            let long = try countCalls(writer, 2 * writes, strace: strace, place: root.appendingPathComponent("syscalls-\(index)-long"))
            let perWrite = difference(long, short, over: writes)
            for name in otherFlushes where (perWrite.calls[name] ?? 0) > 0 {
                otherFlushesCalled.append("\(name) (\(writer.label))")
            }
            let frequent = perWrite.calls.filter { $0.value >= 0.5 }
                .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .prefix(6).map { "\($0.key) \(Self.number($0.value))" }.joined(separator: ", ")
            table.rows.append([
                writer.label, writer.kind, count(writes),
                Self.number(perWrite.calls["fsync"] ?? 0), Self.number(perWrite.calls["fdatasync"] ?? 0),
                Self.number(perWrite.total), frequent,
            ])
        }
        return Outcome(sections: [Section(
            title: "System calls per durable write (counted)",
            notes: [
                "Each writer runs in a process of its own under `strace -f -c` (every thread), once making \(count(writes)) writes and "
                    + "once \(count(2 * writes)), each from a fresh home or database; a row is the difference of the two counts over "
                    + "\(count(writes)) writes. Start-up, the first write's set-up and exit cancel out; work that comes every so many "
                    + "writes, such as a WAL checkpoint, is averaged over them. The GroupVault writers are `GroupVaultChild "
                    + "keyring-adds` and `vault-writes`, the peer `SQLCipherChild puts` (the same database settings as the timed peer). "
                    + "fsync and fdatasync are the device flushes; "
                    + (otherFlushesCalled.isEmpty
                        ? "no writer called another flushing system call (\(otherFlushes.joined(separator: ", ")))."
                        : "other flushing calls made: \(otherFlushesCalled.joined(separator: "; ")).")
            ],
            table: table)])
    }

    /// The per-call counts of one run of `writes` writes under strace.
    private func countCalls(_ writer: Writer, _ writes: Int, strace: String, place: URL) throws -> (calls: [String: Int], total: Int) {
        try? FileManager.default.removeItem(at: place)
        defer { try? FileManager.default.removeItem(at: place) }
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        let summary = place.appendingPathComponent("strace.txt").path
        _ = try run([strace, "-f", "-c", "-U", "name,calls", "-o", summary] + writer.arguments(place.appendingPathComponent("store"), writes))
        return try Self.parse(String(contentsOfFile: summary, encoding: .utf8))
    }

    private func difference(_ long: (calls: [String: Int], total: Int), _ short: (calls: [String: Int], total: Int), over writes: Int) -> PerWrite {
        var calls: [String: Double] = [:]
        for name in Set(long.calls.keys).union(short.calls.keys) {
            calls[name] = Double((long.calls[name] ?? 0) - (short.calls[name] ?? 0)) / Double(writes)
        }
        return PerWrite(calls: calls, total: Double(long.total - short.total) / Double(writes))
    }

    /// `strace -c -U name,calls` output: a header, a rule, `name calls` lines, a rule, `total N`.
    static func parse(_ text: String) throws -> (calls: [String: Int], total: Int) {
        var calls: [String: Int] = [:]
        var total: Int?
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, let value = Int(fields[1]) else { continue }
            if fields[0] == "total" { total = value } else { calls[String(fields[0])] = value }
        }
        guard let total else { throw BenchmarkFailure("unexpected strace summary:\n\(text)") }
        return (calls, total)
    }

    /// `strace` on the search path, if installed.
    static func strace() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/strace" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A count per write as the table prints it: whole numbers plain, others to one decimal.
    static func number(_ value: Double) -> String {
        abs(value - value.rounded()) < 0.05 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
