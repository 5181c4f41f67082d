import FixtureSupport
import Foundation

/// What a member of the group who can write a shared directory can do to a name in it at any
/// moment, for tests of the files GroupMessaging makes there:
///
/// - `plant --at P --target T [--kind symlink|hardlink|fifo|directory] [--uid U --gid G]`: makes a
///   symbolic link to T (or a hard link to T, a FIFO, an empty directory) under a temporary name
///   beside P and renames it over P, replacing whatever was there. With `--move-aside`, first
///   renames what is at P to `P.moved` (a directory cannot be replaced by a link). Prints `planted`.
///   (`--move-aside yes`: fixture options all take a value.)
///
/// With `--uid`, the process first becomes that user with `--gid` as its only group.
let plantCommands: [String: FixtureCommand] = [
    "plant": { arguments in
        runFixture(arguments) { options in
            try becomeUser(options)
            let at = try options.string("at")
            let target = try options.string("target", default: "")
            let temporary = (at as NSString).deletingLastPathComponent + "/.planted-\(getpid())"
            let made: Int32
            switch try options.string("kind", default: "symlink") {
            case "symlink": made = symlink(target, temporary)
            case "hardlink": made = link(target, temporary)
            case "fifo": made = mkfifo(temporary, 0o666)
            case "directory": made = mkdir(temporary, 0o777)
            case let kind: throw PlantFailure(description: "unknown --kind \(kind)")
            }
            if options.optionalString("move-aside") != nil, rename(at, at + ".moved") != 0 {
                throw PlantFailure(description: "cannot move \(at) aside: errno \(errno)")
            }
            guard made == 0 else { throw PlantFailure(description: "cannot make \(temporary): errno \(errno)") }
            guard rename(temporary, at) == 0 else { throw PlantFailure(description: "cannot rename \(temporary) over \(at): errno \(errno)") }
            printLine("planted")
            return 0
        }
    },
]

private struct PlantFailure: Error, CustomStringConvertible {
    var description: String
}
