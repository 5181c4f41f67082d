import Foundation

/// Where, on what and against which code the figures were measured.
struct MachineDescription {
    /// `uname -srvm`.
    let uname: String
    /// Cores the process could run on.
    let coreCount: Int
    /// The CPU model, from /proc/cpuinfo.
    let cpu: String
    /// `swift --version`, first line.
    let compiler: String
    /// `release` or `debug`: a debug build's figures say little about a user's build.
    let configuration: String
    /// The GroupVault commit measured, the library's last change, and whether the tree had changes.
    let commit: String
    /// /proc/loadavg's first three fields when the run started: the machine may be shared.
    let loadAtStart: String

    /// Describes this machine and build; `packageRoot` is the GroupVault checkout measured.
    static func current(packageRoot: URL) -> MachineDescription {
        #if DEBUG
        let configuration = "**debug** (figures not representative; use `-c release`)"
        #else
        let configuration = "release"
        #endif
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let git = ["git", "-C", packageRoot.path]
        // The checkout's commit, and the last one that changed the library: a benchmarks-only
        // commit on top of a library version measures that version.
        let head = output(of: git + ["log", "-1", "--format=%h"]) ?? "unknown"
        let library = output(of: git + ["log", "-1", "--format=%h %s (%cd)", "--date=short", "--", "Sources", "Package.swift"]) ?? "unknown"
        var commit = "checkout \(head); library last changed in \(library)"
        if let status = output(of: git + ["status", "--porcelain", "--untracked-files=no", "--", "Sources", "Package.swift"]), !status.isEmpty {
            commit += ", with uncommitted changes to the library"
        }
        return MachineDescription(
            uname: output(of: ["uname", "-srvm"]) ?? "unknown",
            coreCount: ProcessInfo.processInfo.activeProcessorCount,
            cpu: cpu,
            compiler: output(of: ["swift", "--version"])?.split(separator: "\n").first.map(String.init) ?? "unknown",
            configuration: configuration,
            commit: commit,
            loadAtStart: currentLoad())
    }

    /// The 1, 5 and 15 minute load averages.
    static func currentLoad() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown"
    }

    /// The trimmed standard output of a command found on `PATH`, or `nil` if it cannot run.
    private static func output(of arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
