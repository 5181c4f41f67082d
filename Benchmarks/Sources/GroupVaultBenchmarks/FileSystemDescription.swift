import Foundation

/// The file system the run's files live on, as the report's header states it: its type and
/// device, whether an ext4 one keeps a journal, and the mount options that change what a write
/// or a flush costs.
///
/// Why the report says it: on the VM the reports are made on, the root is ext4 without a journal,
/// mounted with `discard`, and there a file created and renamed over another costs about four
/// times what it costs on a fresh ext4 (ANALYSIS, "What a new file costs on this VM"). Every
/// durable write figure, the floor's included, carries that; a reader comparing them with their
/// own machine needs to know it.
enum FileSystemDescription {
    /// Options of the mount or of the file system that move the durable-write figures.
    private static let notableOptions: Set<String> = ["discard", "nodiscard", "nobarrier", "barrier=0", "sync", "dirsync", "journal_async_commit"]

    /// A line for the report, or `nil` when /proc does not say (not Linux, or no entry found).
    static func of(_ directory: URL) -> String? {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        let path = directory.resolvingSymlinksInPath().path
        // mountinfo(5): ID, parent, major:minor, root, mount point, mount options, optional
        // fields, "-", type, source, super options. The mount is the longest point above `path`.
        var best: (point: String, type: String, source: String, options: [String])?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 10, let separator = fields.firstIndex(of: "-"), separator + 3 < fields.count else { continue }
            let point = fields[4]
            guard path == point || path.hasPrefix(point == "/" ? "/" : point + "/") else { continue }
            guard point.count >= (best?.point.count ?? -1) else { continue }
            let options = (fields[5] + "," + fields[separator + 3]).split(separator: ",").map(String.init)
            best = (point, fields[separator + 1], fields[separator + 2], options)
        }
        guard let mount = best else { return nil }
        var parts = ["\(mount.type) on `\(mount.source)`"]
        if mount.type == "ext4" {
            // jbd2 lists each journal it runs as /proc/fs/jbd2/<device>-<inode>.
            let device = URL(fileURLWithPath: mount.source).lastPathComponent
            let journals = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/fs/jbd2")) ?? []
            parts.append(journals.contains { $0.hasPrefix(device + "-") } ? "with a journal" : "**without a journal**")
        }
        let notable = Set(mount.options).intersection(notableOptions).sorted()
        parts.append(notable.isEmpty ? "none of \(notableOptions.sorted().map { "`\($0)`" }.joined(separator: ", ")) among its mount options" : "mounted with " + notable.map { "`\($0)`" }.joined(separator: ", "))
        return parts.joined(separator: ", ")
    }
}
