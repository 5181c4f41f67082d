import ArgumentParser
import Foundation
import Keyring
import Vault

/// `vaultcli doctor`: checks a home for what breaks GroupVault or weakens it, and names the
/// command that fixes each finding.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check permissions, ownership, links, stray files, keysets, records and limits; exit 1 on findings.",
        discussion: "Each finding names the command that fixes it. Reads only: doctor changes nothing.")

    @OptionGroup var process: ProcessOptions
    @OptionGroup var output: OutputOptions

    /// The `--json` shape of one finding (docs/CLI.md).
    struct Finding: Encodable {
        /// The check: `mode`, `owner`, `symlink`, `stray-file`, `lock-file`, `keyset`,
        /// `retired-key`, `unknown-key`, `missing-record`, `inotify`.
        var check: String
        /// The path, record or setting concerned.
        var subject: String
        var problem: String
        /// A command that fixes it.
        var fix: String
    }

    func run() throws {
        let keyring = try process.keyring()
        var findings: [Finding] = []
        let progress = ProgressDisplay("checking", json: output.json)
        let sharing = keyring.home.sharing
        let directoryMode: UInt32 = sharing == .ownerOnly ? 0o700 : 0o2770
        let fileMode: UInt32 = sharing == .ownerOnly ? 0o600 : 0o660
        let root = keyring.home.root.path

        // Files: the GroupVault-owned parts of the home (not the apps' own Library folders).
        let owned = [root, "\(root)/Keychains", "\(root)/Group Containers"]
        var directories = owned
        for parent in owned.dropFirst() {
            // Subdirectories (and links in their place, which the check reports); files are
            // checked as their directory's entries below.
            for child in Self.children(of: parent) {
                guard let status = Self.linkStatus("\(parent)/\(child)"), status.st_mode & S_IFMT != S_IFREG else { continue }
                directories.append("\(parent)/\(child)")
            }
        }
        for container in Self.children(of: "\(root)/Group Containers") {
            let vault = "\(root)/Group Containers/\(container)/GroupVault"
            directories += [vault, "\(vault)/records", "\(vault)/locks"]
        }
        for (index, directory) in directories.enumerated() {
            progress.update(done: index, total: directories.count)
            guard let status = Self.linkStatus(directory) else { continue }
            findings += Self.check(directory, status, expectedMode: directoryMode, isShared: sharing == .unixGroup)
            guard status.st_mode & S_IFMT == S_IFDIR else { continue }
            for name in Self.children(of: directory) {
                let path = "\(directory)/\(name)"
                guard let entry = Self.linkStatus(path), entry.st_mode & S_IFMT != S_IFDIR else { continue }
                if name.hasPrefix("."), name.contains(".tmp-") {
                    findings.append(Finding(check: "stray-file", subject: path, problem: "a temporary file left by a writer that died", fix: "rm -- '\(path)'"))
                    continue
                }
                if directory.hasSuffix("/GroupVault/locks"), entry.st_mode & S_IFMT != S_IFREG {
                    findings.append(Finding(check: "lock-file", subject: path, problem: "a lock file that is not a regular file blocks writers", fix: "rm -- '\(path)'"))
                    continue
                }
                findings += Self.check(path, entry, expectedMode: fileMode, isShared: sharing == .unixGroup)
            }
        }

        // Keysets and records of every group the identity can reach.
        for group in keyring.identity.accessGroups {
            let keys: [KeyDescriptor]
            do {
                keys = try keyring.keys(in: group)
            } catch {
                findings.append(Finding(check: "keyset", subject: group.rawValue, problem: CLIHints.translate(error.reason),
                                        fix: "vaultcli keys import --reveal --group \(group) --id N (from a backup made with keys export)"))
                continue
            }
            guard keyring.identity.applicationGroups.contains(group) else { continue }
            let vault = try Vault(keyring: keyring, group: group)
            guard let listings = try? vault.list() else { continue }
            for listing in listings {
                guard case .success(let header) = listing.header else { continue }
                let key = keys.first { $0.id == header.keyID }
                if key == nil || key?.status == .retired {
                    findings.append(Finding(
                        check: key == nil ? "unknown-key" : "retired-key", subject: "\(group)/\(listing.name)",
                        problem: "sealed with key #\(header.keyID), which the keyset \(key == nil ? "never had" : "has retired"): nobody can read it",
                        fix: "vaultcli keys import --reveal --group \(group) --id \(header.keyID) (from a backup), or vaultcli records delete --group \(group) \(listing.name)"))
                }
            }
            for name in (try? vault.recordsMissingFromDisk()) ?? [] {
                findings.append(Finding(
                    check: "missing-record", subject: "\(group)/\(name)",
                    problem: "the trust ledger knows this record but its file is gone",
                    fix: "vaultcli records delete --group \(group) \(name)"))
            }
        }
        findings += Self.inotifyFindings()
        progress.finish()

        try output.emit(["findings": findings]) {
            if findings.isEmpty {
                print("no findings")
                return
            }
            var table = Table("CHECK", "SUBJECT", "PROBLEM", "FIX")
            for finding in findings { table.add(finding.check, finding.subject, finding.problem, finding.fix) }
            table.print()
        }
        if !findings.isEmpty { throw ExitCode(ExitStatus.findings.rawValue) }
    }

    private static func check(_ path: String, _ status: stat, expectedMode: UInt32, isShared: Bool) -> [Finding] {
        if status.st_mode & S_IFMT == S_IFLNK {
            return [Finding(check: "symlink", subject: path, problem: "a symbolic link where GroupVault keeps its own files (it refuses to follow it)", fix: "rm -- '\(path)'")]
        }
        var findings: [Finding] = []
        // Under Unix-group sharing another member may own what it created; the group is what counts.
        let sharedWithMember = isShared && Self.isMember(ofGroup: status.st_gid)
        if status.st_uid != getuid() && !sharedWithMember {
            findings.append(Finding(check: "owner", subject: path, problem: "owned by uid \(status.st_uid), not by you (uid \(getuid()))", fix: "chown \(getuid()) '\(path)'"))
        }
        let mode = UInt32(status.st_mode) & 0o7777
        if mode != expectedMode {
            findings.append(Finding(
                check: "mode", subject: path, problem: "mode \(String(mode, radix: 8)), expected \(String(expectedMode, radix: 8))",
                fix: "chmod \(String(expectedMode, radix: 8)) '\(path)'"))
        }
        return findings
    }

    /// inotify limits: `records watch` and `Vault.changes` need an instance per watcher and a
    /// watch per directory.
    private static func inotifyFindings() -> [Finding] {
        let limits: [(name: String, minimum: Int)] = [("max_user_instances", 128), ("max_user_watches", 8192)]
        return limits.compactMap { limit in
            let path = "/proc/sys/fs/inotify/\(limit.name)"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                  let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value < limit.minimum else { return nil }
            return Finding(check: "inotify", subject: "fs.inotify.\(limit.name)", problem: "\(value), below \(limit.minimum): watchers may fail to start",
                           fix: "sudo sysctl -w fs.inotify.\(limit.name)=\(limit.minimum)")
        }
    }

    private static func isMember(ofGroup group: gid_t) -> Bool {
        if getegid() == group { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        return getgroups(count, &groups) >= 0 && groups.contains(group)
    }

    private static func linkStatus(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    private static func children(of directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }
}
