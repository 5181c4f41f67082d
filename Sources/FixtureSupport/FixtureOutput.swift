#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `line` and a newline to standard output at once, unbuffered: the tests read a fixture's
/// lines while it runs, and a parent that kills it has every line printed before the kill.
package func printLine(_ line: String) {
    writeAll(STDOUT_FILENO, line + "\n")
}

/// Writes `line` and a newline to standard error at once.
package func printError(_ line: String) {
    writeAll(STDERR_FILENO, line + "\n")
}

private func writeAll(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return // Nothing useful to do: the reader is gone.
        }
        bytes = bytes.dropFirst(written)
    }
}
