import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program with a new pseudo-terminal as its controlling terminal and its standard
/// input, output and error, and talks to it as a person at that terminal would: wait for a
/// prompt, type a line. What the terminal displayed, echo included, is the transcript.
struct PseudoTerminalSession {
    /// One exchange: wait until the terminal shows `prompt`, then type `line` and Return.
    struct Exchange {
        var prompt: String
        var line: String
    }

    /// What the program's terminal showed, and how it exited.
    struct Outcome {
        var status: Int32
        var transcript: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    // Linux's values of macros Swift's Glibc module does not import (the same on x86_64 and
    // arm64): TIOCSPTLCK, TIOCGPTN (<asm-generic/ioctls.h>) and POSIX_SPAWN_SETSID (<spawn.h>).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430
    private static let spawnNewSession: Int16 = 0x80

    /// How long to wait for a prompt or for the end before giving up: a guard against a hang,
    /// never a measure of speed.
    private static let patience: Int32 = 120_000

    static func run(_ executable: URL, _ arguments: [String], environment: [String: String], exchanges: [Exchange]) throws -> Outcome {
        // posix_openpt, unlockpt and ptsname are not in Swift's Glibc module; on Linux they are
        // this open and these two ioctls (grantpt has nothing to do on devpts).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))") }
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.setLock, &unlock) == 0, ioctl(master, Self.getNumber, &number) == 0 else {
            throw Failure(description: "cannot set up the pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let terminalPath = "/dev/pts/\(number)"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child starts a new session (below), so opening the terminal makes it the
        // session's controlling terminal: /dev/tty is then this pseudo-terminal.
        posix_spawn_file_actions_addopen(&actions, 0, terminalPath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Self.spawnNewSession)

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable.path): \(String(cString: strerror(spawned)))") }

        var shown: [UInt8] = []
        var searchedFrom = 0
        var failure: Failure?
        for exchange in exchanges {
            guard let end = readUntil(master, shows: exchange.prompt, in: &shown, from: searchedFrom) else {
                failure = Failure(description: "the terminal never showed \"\(exchange.prompt)\"; it showed:\n\(String(decoding: shown, as: UTF8.self))")
                break
            }
            searchedFrom = end
            let typed = Array((exchange.line + "\n").utf8)
            _ = typed.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }
        if failure != nil { kill(pid, SIGKILL) }
        // Everything else it shows, until it closes the terminal by exiting.
        _ = readUntil(master, shows: nil, in: &shown, from: searchedFrom)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if let failure { throw failure }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exitStatus, transcript: String(decoding: shown, as: UTF8.self))
    }

    /// Reads what the terminal shows into `shown` until `text` appears after `start` (returns
    /// the index just past it) or, for `nil`, until the program closes the terminal.
    private static func readUntil(_ master: Int32, shows text: String?, in shown: inout [UInt8], from start: Int) -> Int? {
        let wanted = text.map { Array($0.utf8) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let wanted, let range = find(wanted, in: shown, from: start) { return range }
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, patience) > 0 else { return nil }
            let count = read(master, &buffer, buffer.count)
            // EIO: every descriptor of the terminal's other side is closed (the program exited).
            guard count > 0 else { return wanted == nil ? shown.count : nil }
            shown += buffer[0..<count]
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count - start >= needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index + needle.count
        }
        return nil
    }
}
