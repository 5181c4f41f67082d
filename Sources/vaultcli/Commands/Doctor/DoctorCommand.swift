import ArgumentParser
import Foundation
import Keyring
import SealedStorage
import SystemPackage
import Vault

/// `vaultcli doctor`: checks a home for what breaks GroupVault or weakens it, names the
/// command that fixes each finding, and with `--fix` makes the fixes itself.
///
/// The home is walked by descriptor (``InspectedDirectory``): directories opened once with
/// `O_NOFOLLOW`, entries examined relative to them, so a member of the group who swaps a
/// directory for a link mid-walk cannot make doctor report on, or repair, anything else.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check permissions, ownership, links, stray files, keysets, records and limits; exit 1 on findings.",
        discussion: """
            Each finding names the command that fixes it; without --fix, doctor changes nothing. \
            --fix makes the fixes itself, through GroupVault's file layer (no shell): modes are set \
            on the examined file only, removals (links, stray files, records the ledger lost) are \
            asked for on the terminal or need --yes. It prints what it did and what it could not do.
            """)

    @OptionGroup var process: ProcessOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Make the fixes (modes, stray files, links, lost records) instead of only naming them.")
    var fix = false
    @Flag(help: "With --fix: also make the fixes that remove something, without asking.")
    var yes = false

    /// What a printed fix says when no command line can carry the name (ShellCommand).
    static let noCommand = "# no command printed: the name holds a control or invisible character, which a shell line cannot carry safely; run: vaultcli doctor --fix"

    /// The result of a finding `--fix` repaired.
    static let fixed = "fixed"

    /// The `--json` shape of one finding (docs/CLI.md).
    struct Finding: Encodable {
        /// The check: `mode`, `owner`, `symlink`, `stray-file`, `lock-file`, `unreadable-name`,
        /// `unreadable`, `lock-state`, `keyset`, `retired-key`, `unknown-key`, `missing-record`,
        /// `inotify`.
        var check: String
        /// The path, record or setting concerned.
        var subject: String
        var problem: String
        /// A command that fixes it, or (for a name no command line can carry safely, or a fix
        /// that is not a command) a line starting with `#` saying what to do.
        var fix: String
        /// With `--fix`: `fixed`, or why not.
        var result: String?
        /// What `--fix` does for it; `nil` when it cannot (a key backup, root, a sysctl).
        var repair: DoctorRepair?

        private enum CodingKeys: String, CodingKey {
            case check, subject, problem, fix, result
        }

        init(check: String, subject: String, problem: String, fix: ShellCommand, repair: DoctorRepair? = nil) {
            self.init(check: check, subject: subject, problem: problem, fixText: fix.line ?? DoctorCommand.noCommand, repair: repair)
        }

        init(check: String, subject: String, problem: String, fixText: String, repair: DoctorRepair? = nil) {
            self.check = check
            self.subject = subject
            self.problem = problem
            self.fix = fixText
            self.repair = repair
        }
    }

    func validate() throws {
        guard fix || !yes else { throw ValidationError("--yes only applies to --fix") }
    }

    func run() throws {
        let keyring = try process.keyring()
        let progress = ProgressDisplay("checking", json: output.json)
        defer { progress.finish() }
        var inspection = HomeInspection(sharing: keyring.home.sharing.fileSharing)
        inspection.inspectHome(at: keyring.home.root.path, progress: progress)
        var findings = inspection.findings
        let lockState = Self.lockState(of: keyring.home)
        findings += lockState.findings
        // Before the first unlock no keyset is readable, and a keyset finding would name a key
        // import: only the lock-state finding is made.
        if let state = lockState.state, state != .beforeFirstUnlock {
            findings += try Self.keysetFindings(keyring)
        }
        findings += Self.inotifyFindings()
        progress.finish()
        if fix {
            for index in findings.indices { findings[index].result = repair(findings[index]) }
        }

        try output.emit(["findings": findings]) {
            if findings.isEmpty {
                print("no findings")
                return
            }
            var table = fix ? Table("CHECK", "SUBJECT", "PROBLEM", "RESULT") : Table("CHECK", "SUBJECT", "PROBLEM", "FIX")
            for finding in findings { table.add(finding.check, finding.subject, finding.problem, fix ? finding.result ?? "" : finding.fix) }
            table.print()
        }
        let remaining = fix ? findings.filter { $0.result != Self.fixed } : findings
        if !remaining.isEmpty { throw ExitCode(ExitStatus.findings.rawValue) }
    }

    /// Makes the repair of `finding`, asking first when it removes something: the result.
    private func repair(_ finding: Finding) -> String {
        guard let repair = finding.repair else { return "not fixed: needs a person: \(finding.fix)" }
        if repair.isDestructive && !yes {
            guard Terminal.standardInputIsTerminal, !output.json else {
                return "not fixed: it would \(repair.question); run with --fix --yes to do that"
            }
            Terminal.writeError("\(repair.question)? [y/N] ")
            guard (readLine(strippingNewline: true) ?? "").lowercased().hasPrefix("y") else { return "not fixed: declined" }
        }
        do {
            try repair.perform()
            return Self.fixed
        } catch {
            return "not fixed: \(error.reason)"
        }
    }

    /// The home's lock state, and a finding when keysets and records cannot be checked in it:
    /// before the first unlock (after a reboot or logout, in passphrase mode) nothing sealed
    /// is readable, and that is no damage: `vaultcli unlock` is the whole remedy. A key import
    /// from a backup, the remedy for a lost key, is never offered for it. `state` is `nil`
    /// when the state cannot be read (then neither can the keysets).
    private static func lockState(of home: KeyringHome) -> (state: DeviceLockState?, findings: [Finding]) {
        let subject = home.root.path
        do {
            let state = try home.lockState()
            guard state == .beforeFirstUnlock else { return (state, []) }
            return (state, [Finding(
                check: "lock-state", subject: subject,
                problem: "the home is before its first unlock (since boot or login): keysets and records cannot be checked until it is unlocked",
                fix: ShellCommand("vaultcli", "unlock"))])
        } catch {
            return (nil, [Finding(check: "lock-state", subject: subject, problem: RemedyCommand.sentence(error.reason, remedy: error.nearestRemedy),
                                  fixText: "# the lock state cannot be read, so neither can keysets: see the problem")])
        }
    }

    /// Keysets and records of every group the identity can reach: keysets are kept readable
    /// after the first unlock, so one that cannot be read now is damaged or lost.
    private static func keysetFindings(_ keyring: Keyring) throws -> [Finding] {
        var findings: [Finding] = []
        for group in keyring.identity.accessGroups {
            let keys: [KeyDescriptor]
            do {
                keys = try keyring.keys(in: group)
            } catch {
                findings.append(Finding(check: "keyset", subject: group.rawValue, problem: RemedyCommand.sentence(error.reason, remedy: error.nearestRemedy),
                                        fixText: "vaultcli keys import --reveal --group \(group) --id N (from a backup made with keys export)"))
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
                        fixText: "vaultcli keys import --reveal --group \(group) --id \(header.keyID) (from a backup), or \(deleteCommand(group, listing.name).line ?? noCommand)"))
                }
            }
            for name in (try? vault.recordsMissingFromDisk()) ?? [] {
                findings.append(Finding(
                    check: "missing-record", subject: "\(group)/\(name)",
                    problem: "the trust ledger knows this record but its file is gone",
                    fix: deleteCommand(group, name),
                    repair: .deleteRecord(vault, name: name)))
            }
        }
        return findings
    }

    /// `vaultcli records delete` of `name`; a record name may start with `-`, which then
    /// follows `--` so that it is not taken for an option.
    private static func deleteCommand(_ group: GroupIdentifier, _ name: String) -> ShellCommand {
        name.hasPrefix("-")
            ? ShellCommand("vaultcli", "records", "delete", "--group", group.rawValue, "--", name)
            : ShellCommand("vaultcli", "records", "delete", "--group", group.rawValue, name)
    }

    /// inotify limits: `records watch` and `Vault.changes` need an instance per watcher and a
    /// watch per directory.
    private static func inotifyFindings() -> [Finding] {
        let limits: [(name: String, minimum: Int)] = [("max_user_instances", 128), ("max_user_watches", 8192)]
        return limits.compactMap { limit in
            guard let bytes = readSysctl("/proc/sys/fs/inotify/\(limit.name)"),
                  let value = Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
                  value < limit.minimum else { return nil }
            return Finding(check: "inotify", subject: "fs.inotify.\(limit.name)", problem: "\(value), below \(limit.minimum): watchers may fail to start",
                           fix: ShellCommand("sudo", "sysctl", "-w", "fs.inotify.\(limit.name)=\(limit.minimum)"))
        }
    }

    /// The text of a `/proc/sys` file, in one `read`: such a file reports size 0 and answers a
    /// read at a later offset with end of file, so a reader that reads in pieces (SafeFile)
    /// would see only its first byte. `nil` when it cannot be read.
    private static func readSysctl(_ path: String) -> [UInt8]? {
        guard let descriptor = try? Syscall.open(FilePath(path), .readOnly, options: [.noFollow, .closeOnExec]) else { return nil }
        defer { Syscall.close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        guard let count = try? bytes.withUnsafeMutableBytes({ buffer throws(Errno) in try Syscall.read(descriptor, into: buffer) }) else { return nil }
        return Array(bytes.prefix(count))
    }
}
