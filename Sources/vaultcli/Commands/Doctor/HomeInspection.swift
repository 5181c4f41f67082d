import SealedStorage
import SystemPackage

/// The file checks of `doctor`: the GroupVault-owned parts of a home (not the apps' own
/// Library folders), walked by descriptor, each finding with the command that fixes it and
/// the ``DoctorRepair`` that `--fix` makes.
struct HomeInspection {
    let sharing: FileSharing
    private(set) var findings: [DoctorCommand.Finding] = []

    init(sharing: FileSharing) {
        self.sharing = sharing
    }

    /// Walks the home at `root`: the root, `Keychains` and `Group Containers`, their
    /// subdirectories, and in each group container `GroupVault` with `records` and `locks`;
    /// every directory and every file in them.
    mutating func inspectHome(at root: String, progress: ProgressDisplay) {
        guard let home = openRoot(root) else { return }
        var directories: [(directory: InspectedDirectory, parent: InspectedDirectory?, name: String)] = [(home, nil, "")]
        for name in ["Keychains", "Group Containers"] {
            guard let owned = openChild(name, of: home) else { continue }
            directories.append((owned, home, name))
            // Subdirectories (and links in their place, reported when their parent's entries
            // are checked below); the files are checked as their directory's entries.
            for child in names(of: owned) {
                guard let subdirectory = openChild(child, of: owned) else { continue }
                directories.append((subdirectory, owned, child))
                guard name == "Group Containers", let vault = openChild("GroupVault", of: subdirectory) else { continue }
                directories.append((vault, subdirectory, "GroupVault"))
                for inner in ["records", "locks"] {
                    if let directory = openChild(inner, of: vault) { directories.append((directory, vault, inner)) }
                }
            }
        }
        for (index, entry) in directories.enumerated() {
            progress.update(done: index, total: directories.count)
            inspect(entry.directory, isLocks: entry.name == "locks" && entry.parent.map { $0.path.hasSuffix("/GroupVault") } == true)
        }
    }

    /// Opens the home's root without following a link, or records why it cannot be checked.
    private mutating func openRoot(_ root: String) -> InspectedDirectory? {
        do {
            return try InspectedDirectory.open(root)
        } catch .tooManySymbolicLinkLevels {
            findings.append(.init(check: "symlink", subject: root, problem: "the home is a symbolic link (GroupVault refuses to follow it)",
                                  fixText: "# replace the link by the directory it points to, or point GROUPVAULT_HOME at that directory"))
        } catch .noSuchFileOrDirectory {
            // No home yet: nothing to check.
        } catch {
            findings.append(.init(check: "unreadable", subject: root, problem: "cannot be opened: \(error)", fixText: "# check the path and its permissions"))
        }
        return nil
    }

    /// The subdirectory `name` of `parent`, or `nil` when it is absent or not a directory
    /// (a link in its place is reported as one of `parent`'s entries).
    private mutating func openChild(_ name: String, of parent: InspectedDirectory) -> InspectedDirectory? {
        guard let status = try? parent.status(of: name), status.type == .directory else { return nil }
        do {
            return try parent.open(name)
        } catch {
            findings.append(.init(check: "unreadable", subject: parent.child(name), problem: "cannot be opened: \(error)",
                                  fixText: "# check its permissions"))
            return nil
        }
    }

    private mutating func names(of directory: InspectedDirectory) -> [String] {
        do {
            return try directory.names()
        } catch {
            findings.append(.init(check: "unreadable", subject: directory.path, problem: "cannot be listed: \(error)",
                                  fixText: "# check its permissions"))
            return []
        }
    }

    /// Checks `directory` itself, then every entry in it that is not a directory.
    private mutating func inspect(_ directory: InspectedDirectory, isLocks: Bool) {
        guard let status = try? directory.status() else { return }
        checkOwnerAndMode(status, path: directory.path, expectedMode: sharing.directoryMode,
                          repair: .changeDirectoryMode(directory, examined: status, mode: sharing.directoryMode))
        for name in names(of: directory) {
            let path = directory.child(name)
            let entry: Stat
            do {
                guard let found = try directory.status(of: name) else {
                    // Listed, yet not there by its name: the name on disk is not UTF-8, and the
                    // listing shows it with U+FFFD, which names another file. GroupVault never
                    // makes such a name, and nothing can address it by this one.
                    findings.append(.init(check: "unreadable-name", subject: path,
                                          problem: "a name that is not valid UTF-8 (shown with U+FFFD): GroupVault never creates one",
                                          fixText: "# no command printed: the name cannot be written here; inspect the directory with ls -b and remove it by hand"))
                    continue
                }
                entry = found
            } catch {
                findings.append(.init(check: "unreadable", subject: path, problem: "cannot be examined: \(error)", fixText: "# check its permissions"))
                continue
            }
            guard entry.type != .directory else { continue }
            if entry.type == .symbolicLink {
                findings.append(.init(check: "symlink", subject: path, problem: "a symbolic link where GroupVault keeps its own files (it refuses to follow it)",
                                      fix: ShellCommand("rm", "--", path), repair: .remove(parent: directory, name: name, examined: entry)))
                continue
            }
            if name.hasPrefix("."), name.contains(".tmp-") {
                findings.append(.init(check: "stray-file", subject: path, problem: "a temporary file left by a writer that died",
                                      fix: ShellCommand("rm", "--", path), repair: .remove(parent: directory, name: name, examined: entry)))
                continue
            }
            if isLocks, entry.type != .regular {
                findings.append(.init(check: "lock-file", subject: path, problem: "a lock file that is not a regular file blocks writers",
                                      fix: ShellCommand("rm", "--", path), repair: .remove(parent: directory, name: name, examined: entry)))
                continue
            }
            checkOwnerAndMode(entry, path: path, expectedMode: sharing.fileMode,
                              repair: .changeFileMode(parent: directory, name: name, examined: entry, mode: sharing.fileMode))
        }
    }

    /// The owner and mode findings for one examined file or directory.
    private mutating func checkOwnerAndMode(_ status: Stat, path: String, expectedMode: UInt16, repair: DoctorRepair) {
        let owner = UInt32(status.userID.rawValue)
        let me = Syscall.effectiveUserID
        // Under Unix-group sharing another member may own what it created; the group is what counts.
        let sharedWithMember = sharing.isGroupShared && Syscall.isMember(ofGroup: UInt32(status.groupID.rawValue))
        if owner != me && !sharedWithMember {
            // No repair: only root can give a file away, and vaultcli does not run as root to
            // do it. `-h`: a link swapped in before the command runs is changed, not followed.
            findings.append(.init(check: "owner", subject: path, problem: "owned by uid \(owner), not by you (uid \(me))",
                                  fix: ShellCommand("chown", "-h", String(me), path)))
        }
        let mode = UInt16(status.permissions.rawValue) & 0o7777
        if mode != expectedMode {
            findings.append(.init(check: "mode", subject: path, problem: "mode \(String(mode, radix: 8)), expected \(String(expectedMode, radix: 8))",
                                  fix: ShellCommand("chmod", String(expectedMode, radix: 8), path), repair: repair))
        }
    }
}
