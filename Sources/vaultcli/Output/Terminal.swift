import Foundation
import SealedStorage
import SystemPackage

/// Where output goes and how untrusted text is made safe to print.
enum Terminal {
    /// `text` with control characters escaped (`\u{1b}` instead of an escape code), so a
    /// record or file name chosen by whoever can write the container cannot forge output lines
    /// or drive the terminal. Every name read from disk is printed through this.
    static func escaped(_ text: String) -> String {
        UntrustedText.printable(text, limit: 1024)
    }

    /// The width tables are fitted to: `COLUMNS` when set to a number (as shells set it, and
    /// as a user or test may), else the window's width when standard output is a terminal,
    /// else `nil`: output for a pipe or a file is not wrapped.
    static var outputWidth: Int? {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        return Syscall.terminalColumns(FileDescriptor(rawValue: STDOUT_FILENO))
    }

    /// Whether standard error is a terminal: progress is shown only then.
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard input is a terminal (reading a secret from it would wait for typing).
    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// One line on standard error, prefixed `vaultcli: `, escaped whatever it quotes: usage
    /// errors repeat arguments, and scripts pass names read from disk as arguments. (Text
    /// escaped once is left as it is: the escaper's output holds no character it escapes.)
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("vaultcli: \(UntrustedText.printable(message, limit: 8192))\n".utf8))
    }

    /// An error as one line of JSON on standard error (with `--json`), terminal-safe.
    static func printErrorJSON(_ report: ErrorReport) {
        var escaped = report
        escaped.message = UntrustedText.printable(report.message, limit: 8192)
        let line = (try? JSONOutput.encodeLine(escaped)) ?? #"{"code":"failed","message":"the error could not be encoded","status":6}"#
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Raw text on standard error (progress updates, which rewrite their own line).
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Reads one line from the terminal on standard input with echo off, restoring the
    /// terminal's settings afterwards, even when the line is empty.
    static func readLineWithoutEcho(prompt: String) -> String {
        // Echo goes off before the prompt appears, so nothing typed in answer to it is shown.
        withEchoOff(STDIN_FILENO, then: { writeError("\n") }) {
            writeError(prompt)
            return readLine(strippingNewline: true) ?? ""
        }
    }

    /// Runs `body` with echo off on the terminal `descriptor`, then restores the terminal's
    /// settings and calls `then` (which ends the prompt's line, since the typed newline was
    /// not echoed). When `descriptor` is not a terminal, `body` runs as it is.
    static func withEchoOff<Result>(_ descriptor: Int32, then: () -> Void, _ body: () -> Result) -> Result {
        var original = termios()
        let canRestore = tcgetattr(descriptor, &original) == 0
        if canRestore {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(descriptor, TCSANOW, &silent)
        }
        defer {
            if canRestore { _ = tcsetattr(descriptor, TCSANOW, &original) }
            then()
        }
        return body()
    }
}
