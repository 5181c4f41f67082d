import FixtureSupport
import Foundation
import GroupMessaging

/// Commands that open a group's POSIX semaphore or shared memory, optionally as another user:
///
/// - `semaphore-open --group G --name N [--uid U --gid G2]`: opens (creating if needed) the
///   semaphore N, takes it once if it can, prints `opened took=<true|false>`.
/// - `shared-memory-open --group G --name N [--uid U --gid G2]`: opens the shared-memory object N,
///   prints `opened`.
///
/// With `--uid`, the process first becomes that user with `--gid` as its only group (it must
/// start as root): a second member of a `unixGroup` home.
let sharedObjectCommands: [String: FixtureCommand] = [
    "semaphore-open": { arguments in
        runFixture(arguments) { options in
            try becomeUser(options)
            let keyring = try options.keyring()
            let semaphore = try GroupSemaphore(GroupIPCName(.semaphore, try options.string("name"), in: try options.group(), keyring: keyring), keyring: keyring)
            printLine("opened took=\(try semaphore.tryWait())")
            return 0
        }
    },
    "shared-memory-open": { arguments in
        runFixture(arguments) { options in
            try becomeUser(options)
            let keyring = try options.keyring()
            let descriptor = try GroupSharedMemory.open(GroupIPCName(.sharedMemory, try options.string("name"), in: try options.group(), keyring: keyring), keyring: keyring)
            try descriptor.close()
            printLine("opened")
            return 0
        }
    },
]

/// Drops to `--uid` with `--gid` as the only group, when `--uid` is given.
func becomeUser(_ options: FixtureOptions) throws {
    let uid = try options.integer("uid", default: -1)
    guard uid >= 0 else { return }
    var gid = gid_t(try options.integer("gid", default: 0))
    guard setgroups(1, &gid) == 0, setgid(gid) == 0, setuid(uid_t(uid)) == 0 else {
        throw UserSwitchFailure(description: "cannot become uid \(uid) gid \(gid): errno \(errno) (the fixture must start as root)")
    }
}

private struct UserSwitchFailure: Error, CustomStringConvertible {
    var description: String
}
