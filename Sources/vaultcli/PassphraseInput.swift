import ArgumentParser
import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// Where a passphrase comes from: a terminal prompt without echo, or `--passphrase-fd N` for
/// scripts. Never an argument: arguments are visible to every user in `/proc/<pid>/cmdline`.
struct PassphraseInput: ParsableArguments {
    @Option(name: .customLong("passphrase-fd"),
            help: "Read the passphrase from this open file descriptor (one line each; for `passphrase change`, the current one then the new one) instead of the terminal.")
    var descriptor: Int32?

    /// The Argon2id cost of new wraps, and the level `unlock` upgrades to. The test seam
    /// (docs/CLI.md): `minimum` is libsodium's minimum, for test suites where the cost is not
    /// the point; hidden, never a default, and undone by the next `unlock` without it.
    @Option(name: .customLong("argon2-cost"), help: .hidden)
    var cost: Cost = .moderate

    enum Cost: String, ExpressibleByArgument {
        case moderate, minimum
        var parameters: PassphraseWrappedKey.Parameters { self == .moderate ? .moderate : .minimum }
    }

    /// One passphrase per prompt, in order: lines of `--passphrase-fd`, else typed at the
    /// terminal without echo.
    func read(prompts: [String]) throws -> [SecureBytes] {
        var lines: [[UInt8]] = []
        defer { for line in lines.indices { for index in lines[line].indices { lines[line][index] = 0 } } }
        if let descriptor {
            lines = try Self.readLines(prompts.count, from: descriptor)
            guard lines.count == prompts.count, !lines.contains(where: \.isEmpty) else {
                throw CLIError.usage("--passphrase-fd \(descriptor): expected \(prompts.count) non-empty line(s), one per passphrase")
            }
        } else {
            guard let terminal = Self.openTerminal() else {
                throw CLIError.usage("no terminal to ask for the passphrase: pass it on a file descriptor with --passphrase-fd N")
            }
            defer { Syscall.close(terminal) }
            lines = prompts.map { Self.readLineWithoutEcho(from: terminal, prompt: $0) }
            guard !lines.contains(where: \.isEmpty) else { throw CLIError.usage("the passphrase is empty: nothing was changed") }
        }
        return lines.map { SecureBytes(copying: $0) }
    }

    /// Reads up to `count` lines, one byte at a time, so nothing after them is consumed and a
    /// writer that keeps the descriptor open is not waited for beyond the last needed line.
    /// The last line may end at end of file instead of a newline. Lines are at most 4 KiB.
    private static func readLines(_ count: Int, from descriptor: Int32) throws -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        current.reserveCapacity(4096)  // one allocation: no stray copies of the passphrase
        defer { for index in current.indices { current[index] = 0 } }
        var byte: UInt8 = 0
        defer { byte = 0 }
        let source = FileDescriptor(rawValue: descriptor)
        while lines.count < count {
            let result: Int
            do {
                result = try withUnsafeMutableBytes(of: &byte) { buffer throws(Errno) in try Syscall.read(source, into: buffer) }
            } catch {
                throw CLIError.usage("--passphrase-fd \(descriptor): cannot read it (\(error))")
            }
            if result == 0 {
                if !current.isEmpty { lines.append(current) }
                break
            }
            if byte == UInt8(ascii: "\n") {
                lines.append(current)
                for index in current.indices { current[index] = 0 }
                current.removeAll(keepingCapacity: true)
                continue
            }
            guard current.count < 4096 else { throw CLIError.usage("--passphrase-fd \(descriptor): a line is longer than 4096 bytes") }
            current.append(byte)
        }
        return lines
    }

    /// The controlling terminal, through the file layer (`O_CLOEXEC`, EINTR retried).
    private static func openTerminal() -> FileDescriptor? {
        try? Syscall.open(FilePath("/dev/tty"), .readWrite, options: [.closeOnExec])
    }

    /// One line from the terminal with echo off, settings restored afterwards. A failed
    /// prompt write or read ends the line: an empty passphrase is then refused by the caller.
    private static func readLineWithoutEcho(from terminal: FileDescriptor, prompt: String) -> [UInt8] {
        // Echo goes off before the prompt appears, so nothing typed in answer to it is shown.
        Terminal.withEchoOff(terminal.rawValue, then: { try? Syscall.writeAll(terminal, Array("\n".utf8)) }) {
            guard (try? Syscall.writeAll(terminal, Array(prompt.utf8))) != nil else { return [] }
            var line: [UInt8] = []
            line.reserveCapacity(4096)  // one allocation: no stray copies of the passphrase
            var byte: UInt8 = 0
            defer { byte = 0 }
            while line.count < 4096 {
                let count = (try? withUnsafeMutableBytes(of: &byte) { buffer throws(Errno) in try Syscall.read(terminal, into: buffer) }) ?? 0
                guard count == 1, byte != UInt8(ascii: "\n") else { break }
                line.append(byte)
            }
            return line
        }
    }
}
