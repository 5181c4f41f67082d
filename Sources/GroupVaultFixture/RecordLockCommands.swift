import FixtureSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// POSIX record lock commands, for the tests that a process keeps its own record locks (SQLite's)
/// when the library opens and refuses another name of the locked file.
///
/// - `record-lock-holder <path>`: asks the kernel (`fcntl(F_GETLK)`) whether any other process
///   holds a record lock on `path` that would conflict with an exclusive lock of the whole file,
///   and prints `held <pid>` (the holder) or `free`. Record locks belong to a process, so only
///   another process can see them: the test process asking itself would always hear `free`.
///   Uses the raw system calls, not GroupVault's, so the test does not depend on the code it checks.
/// - `link-as-member --target T --at P --uid U --gid G`: becomes user U with G as its only
///   group, removes whatever is at P (a member may remove entries of a group-writable
///   directory), makes P a hard link of T, and prints `linked`: another member of the group
///   planting a second name of a file it may read and write (`fs.protected_hardlinks` allows it).
let recordLockCommands: [String: FixtureCommand] = [
    "record-lock-holder": { arguments in
        guard arguments.count == 1 else {
            printError("usage: GroupVaultFixture record-lock-holder <path>")
            return 64
        }
        let descriptor = open(arguments[0], O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            printError("record-lock-holder: open: \(String(cString: strerror(errno)))")
            return 1
        }
        defer { close(descriptor) }
        var query = flock()
        query.l_type = Int16(F_WRLCK)
        query.l_whence = Int16(SEEK_SET)
        query.l_start = 0
        query.l_len = 0  // to the end of the file and beyond: any record lock conflicts
        guard fcntl(descriptor, F_GETLK, &query) == 0 else {
            printError("record-lock-holder: fcntl(F_GETLK): \(String(cString: strerror(errno)))")
            return 1
        }
        printLine(query.l_type == Int16(F_UNLCK) ? "free" : "held \(query.l_pid)")
        return 0
    },
    "link-as-member": { arguments in
        runFixture(arguments) { options in
            let target = try options.string("target")
            let planted = try options.string("at")
            var gid = gid_t(try options.integer("gid"))
            let uid = uid_t(try options.integer("uid"))
            guard setgroups(1, &gid) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
                printError("link-as-member: cannot become uid \(uid) gid \(gid): \(String(cString: strerror(errno))) (the fixture must start as root)")
                return 1
            }
            guard unlink(planted) == 0 || errno == ENOENT else {
                printError("link-as-member: unlink: \(String(cString: strerror(errno)))")
                return 1
            }
            guard link(target, planted) == 0 else {
                printError("link-as-member: link: \(String(cString: strerror(errno)))")
                return 1
            }
            printLine("linked")
            return 0
        }
    },
]
