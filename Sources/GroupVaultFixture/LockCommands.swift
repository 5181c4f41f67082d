import FixtureSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lock commands for the tests of bounded lock waits.
///
/// - `hold-lock <path>`: opens (creating) `path`, takes `flock(LOCK_EX)` on it with the raw
///   system call (not GroupVault's lock, so the test does not depend on the code it checks),
///   prints `locked`, and holds it until killed: a stuck or hostile holder.
let lockCommands: [String: FixtureCommand] = [
    "hold-lock": { arguments in
        guard arguments.count == 1 else {
            printError("usage: GroupVaultFixture hold-lock <path>")
            return 64
        }
        let descriptor = open(arguments[0], O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else {
            printError("hold-lock: \(String(cString: strerror(errno)))")
            return 1
        }
        printLine("locked")
        while true { pause() }
    },
]
