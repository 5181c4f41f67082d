import ArgumentParser
import Foundation
import Keyring
import SealedStorage

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

    /// One passphrase per prompt, in order: the lines of `--passphrase-fd` (read once, to its
    /// end), else typed at the terminal without echo.
    func read(prompts: [String]) throws -> [SecureBytes] {
        var lines: [[UInt8]] = []
        if let descriptor {
            lines = try Self.readLines(from: descriptor)
            guard lines.count >= prompts.count, !(lines.prefix(prompts.count).contains { $0.isEmpty }) else {
                throw CLIError.usage("--passphrase-fd \(descriptor): expected \(prompts.count) non-empty line(s), one per passphrase")
            }
        } else {
            guard let terminal = Self.openTerminal() else {
                throw CLIError.usage("no terminal to ask for the passphrase: pass it on a file descriptor with --passphrase-fd N")
            }
            defer { close(terminal) }
            lines = prompts.map { Self.readLineWithoutEcho(from: terminal, prompt: $0) }
        }
        defer { for line in lines.indices { for index in lines[line].indices { lines[line][index] = 0 } } }
        guard !(lines.prefix(prompts.count).contains { $0.isEmpty }) else { throw CLIError.usage("the passphrase is empty") }
        return lines.prefix(prompts.count).map { SecureBytes(copying: $0) }
    }

    private static func readLines(from descriptor: Int32) throws -> [[UInt8]] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        defer { for index in buffer.indices { buffer[index] = 0 } }
        while all.count <= 16_384 {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.usage("--passphrase-fd \(descriptor): cannot read it (errno \(errno))")
            }
            if count == 0 { break }
            all += buffer[0..<count]
        }
        defer { for index in all.indices { all[index] = 0 } }
        return all.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) }
    }

    private static func openTerminal() -> Int32? {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }

    /// One line from the terminal with echo off, settings restored afterwards.
    private static func readLineWithoutEcho(from terminal: Int32, prompt: String) -> [UInt8] {
        _ = Array(prompt.utf8).withUnsafeBytes { write(terminal, $0.baseAddress, $0.count) }
        var original = termios()
        let canRestore = tcgetattr(terminal, &original) == 0
        if canRestore {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(terminal, TCSANOW, &silent)
        }
        defer {
            if canRestore { _ = tcsetattr(terminal, TCSANOW, &original) }
            _ = write(terminal, "\n", 1)
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Foundation.read(terminal, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        byte = 0
        return line
    }
}
