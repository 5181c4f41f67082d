import Foundation

/// A child process's standard output read line by line, each read bounded by a timeout, so a
/// child that stops answering fails the run instead of hanging it. Read by one round at a time
/// (the harness runs contenders one after another), which the compiler cannot see.
final class ChildLines: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Reads from `pipe`'s reading end.
    init(_ pipe: Pipe) { descriptor = pipe.fileHandleForReading.fileDescriptor }

    /// The next line, without its newline.
    func next(timeout: Duration = .seconds(60)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw BenchmarkFailure("a child process printed nothing for \(timeout)") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, left.microseconds / 1000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw BenchmarkFailure("a child process closed its output (it exited; see its standard error above)") }
            buffer += chunk[..<count]
        }
    }

    /// Reads lines until `line`, skipping any other (a stale report of an earlier change).
    func wait(for line: String, timeout: Duration = .seconds(60)) throws {
        while try next(timeout: timeout) != line {}
    }
}
