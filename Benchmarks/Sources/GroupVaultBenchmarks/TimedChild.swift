import Foundation

/// A C peer process (`SQLCipherChild serve`, a `MessagingPeers` pinger, caller or echo) that prints
/// "ready" once set up, then answers each command line with the nanoseconds the command took,
/// timed inside the child so the pipe to this process stays out of the figure.
final class TimedChild {
    private let process = Process()
    private let input = Pipe()
    private let lines: ChildLines
    private let name: String
    /// Whether the child was started, so ``stop()`` has something to wait for.
    private var started = false

    /// Starts `arguments[0]` and waits for its "ready".
    init(_ arguments: [String]) throws {
        name = URL(fileURLWithPath: arguments[0]).lastPathComponent + " " + (arguments.dropFirst().first ?? "")
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        lines = ChildLines(output)
        try process.run()
        started = true
        let first = try lines.next(timeout: .seconds(30))
        guard first == "ready" else { throw BenchmarkFailure("\(name) did not start: \(first)") }
    }

    deinit { stop() }

    /// The child's process ID, for placing it on a CPU (``onOneCPU(with:_:)``).
    var processIdentifier: pid_t { process.processIdentifier }

    /// Sends `command` and returns the duration the child reports, in microseconds.
    func run(_ command: String) throws -> Double {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        let answer = try lines.next()
        guard let nanoseconds = Double(answer) else { throw BenchmarkFailure("\(name) answered \"\(command)\" with: \(answer)") }
        return nanoseconds / 1000
    }

    /// `run(command)` as a contender's measurement.
    func measure(_ command: String) throws -> Measurement {
        Measurement(microseconds: try run(command))
    }

    /// Ends the child: end of input for those that read it, SIGTERM for an echo that does not.
    func stop() {
        guard started else { return }
        started = false
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
