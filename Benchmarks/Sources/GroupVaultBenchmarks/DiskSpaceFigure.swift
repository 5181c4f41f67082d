import Foundation

/// The disk space a group of records takes, beside the SQLCipher peer holding the same records:
/// what a user who keeps many records pays in blocks and inodes, which no timed figure shows.
///
/// Counted from `lstat` of every file and directory: allocated bytes are `st_blocks × 512` (what
/// the file system set aside, a whole block for a file of a few hundred bytes), apparent bytes
/// `st_size`. A write-ahead log is shown apart: both stores reuse theirs rather than shrink it, so
/// its size is what the last large transaction or checkpoint left, not what the records need.
struct DiskSpaceFigure {
    /// The GroupVault home holding the group (records, their locks, the keyring database with
    /// the trust ledger).
    let home: URL
    /// The SQLCipher peer's database file, holding the same number of 1 KiB rows.
    let cipherDatabase: URL
    /// Records in the group, rows in the peer's table.
    let records: Int

    /// What one part of a store takes.
    private struct Usage {
        var files = 0
        var apparentBytes: Int64 = 0
        var allocatedBytes: Int64 = 0

        mutating func add(_ status: stat) {
            files += 1
            apparentBytes += Int64(status.st_size)
            allocatedBytes += Int64(status.st_blocks) * 512
        }

        static func + (lhs: Usage, rhs: Usage) -> Usage {
            Usage(files: lhs.files + rhs.files, apparentBytes: lhs.apparentBytes + rhs.apparentBytes, allocatedBytes: lhs.allocatedBytes + rhs.allocatedBytes)
        }
    }

    /// The parts of the GroupVault home, by where they are.
    private enum HomePart: CaseIterable {
        case recordFiles, lockFiles, keyringDatabase, keyringLog, directories, other
    }

    func measure() throws -> Outcome {
        var home: [HomePart: Usage] = [:]
        for (path, status) in try Self.entries(under: self.home) {
            home[Self.part(of: path, status), default: Usage()].add(status)
        }
        var cipher = Usage()
        var cipherLog = Usage()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            var status = stat()
            guard lstat(cipherDatabase.path + suffix, &status) == 0 else { continue }
            if suffix.isEmpty { cipher.add(status) } else { cipherLog.add(status) }
        }
        guard cipher.files == 1 else { throw BenchmarkFailure("the SQLCipher peer's database \(cipherDatabase.path) is missing") }
        guard home[.recordFiles]?.files == records else {
            throw BenchmarkFailure("the group's records directory holds \(home[.recordFiles]?.files ?? 0) files, not \(records)")
        }

        let withoutLog = HomePart.allCases.filter { $0 != .keyringLog }.reduce(Usage()) { $0 + (home[$1] ?? Usage()) }
        let withLog = withoutLog + (home[.keyringLog] ?? Usage())
        var table = Table(header: ["Part", "Kind", "Files", "Apparent bytes", "Allocated bytes", "Allocated per record", "GroupVault ÷ peer"])
        func row(_ label: String, _ kind: String, _ usage: Usage, peer: Usage? = nil) {
            table.rows.append([
                label, kind, count(usage.files), count(Int(usage.apparentBytes)), count(Int(usage.allocatedBytes)),
                count(Int(usage.allocatedBytes) / records),
                peer.map { times(Double(usage.allocatedBytes) / Double($0.allocatedBytes)) } ?? "",
            ])
        }
        row("record files (`GroupVault/records/*.gvr`)", "GroupVault", home[.recordFiles] ?? Usage())
        row("lock files (`GroupVault/locks/*.lock`, empty)", "GroupVault", home[.lockFiles] ?? Usage())
        row("keyring database (`keyring.db`: trust ledger, keys)", "GroupVault", home[.keyringDatabase] ?? Usage())
        row("directories", "GroupVault", home[.directories] ?? Usage())
        row("other files of the home (keysets, lock files of the keyring)", "GroupVault", home[.other] ?? Usage())
        row("**GroupVault home, write-ahead log left out**", "GroupVault", withoutLog, peer: cipher)
        row("SQLCipher database file", "**peer**", cipher)
        row("keyring database's write-ahead log and shared memory (`-wal`, `-shm`)", "GroupVault", home[.keyringLog] ?? Usage())
        row("SQLCipher write-ahead log and shared memory", "**peer**", cipherLog)
        row("**GroupVault home, write-ahead log included**", "GroupVault", withLog, peer: cipher + cipherLog)
        row("SQLCipher, write-ahead log included", "**peer**", cipher + cipherLog)

        return Outcome(sections: [Section(
            title: "Disk space, group of \(count(records)) records",
            notes: [
                "The group's \(count(records)) records of 1 KiB as they rest on disk, beside the SQLCipher peer's database holding as many "
                    + "1 KiB rows (filled in one transaction), counted with `lstat` after the group was filled. Allocated bytes are "
                    + "`st_blocks × 512`: a record file of about 1.2 KB takes a whole file system block, and each record has an empty lock "
                    + "file of its own (an inode, no block; docs/FORMAT.md). The home holds nothing but this group. A write-ahead log is "
                    + "shown apart: both stores keep theirs at the size the largest recent transaction or checkpoint left it "
                    + "(the keyring checkpoints at 256 pages, SQLCipher at SQLite's 1,000), so it measures their history more than the records.",
            ],
            table: table)])
    }

    /// Which part of the home `path` (relative to it) is.
    private static func part(of path: String, _ status: stat) -> HomePart {
        if status.st_mode & S_IFMT == S_IFDIR { return .directories }
        let components = path.split(separator: "/")
        let name = components.last.map(String.init) ?? path
        if components.count >= 2, components.dropLast().contains("GroupVault") {
            switch components[components.count - 2] {
            case "records": return .recordFiles
            case "locks": return .lockFiles
            default: break
            }
        }
        if name == "keyring.db" { return .keyringDatabase }
        if name == "keyring.db-wal" || name == "keyring.db-shm" { return .keyringLog }
        return .other
    }

    /// Every file and directory under `root` (not following links), with its `lstat`.
    private static func entries(under root: URL) throws -> [(String, stat)] {
        guard let paths = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] else {
            throw BenchmarkFailure("cannot list \(root.path)")
        }
        return try paths.map { path in
            var status = stat()
            guard lstat(root.path + "/" + path, &status) == 0 else {
                throw BenchmarkFailure("cannot stat \(root.path)/\(path): errno \(errno)")
            }
            return (path, status)
        }
    }
}
