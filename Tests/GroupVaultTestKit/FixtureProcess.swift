import Foundation

/// A running copy of one of the package's executables (by default `GroupVaultFixture`): real
/// child processes for multi-process, fault-injection and command-line tests.
public final class FixtureProcess: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var collectedOutput = Data()
    private var collectedErrors = Data()
    private let lock = NSLock()

    /// The fixture binary, built beside the test bundle by `swift build`/`swift test`.
    public static var executableURL: URL { url(ofExecutable: "GroupVaultFixture") }

    /// A product executable of this package, built beside the test bundle (test targets list
    /// the executables they run as dependencies, so `swift test` builds them).
    public static func url(ofExecutable name: String) -> URL {
        let bundle = Bundle(for: FixtureProcess.self).bundleURL
        var candidates = [bundle.deletingLastPathComponent().appendingPathComponent(name)]
        if let argument = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: argument).deletingLastPathComponent().appendingPathComponent(name))
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Starts `<executable> <arguments>` with `environment` added to this process's.
    public init(_ arguments: [String], environment: [String: String] = [:], executable: String = "GroupVaultFixture") throws {
        process.executableURL = Self.url(ofExecutable: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = output
        process.standardError = errors
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.collectedOutput.append(data) }
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.collectedErrors.append(data) }
        }
        try process.run()
    }

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (e.g. `SIGKILL`) to the child.
    public func kill(_ signal: Int32) {
        _ = Foundation.kill(process.processIdentifier, signal)
    }

    /// Waits for the child to exit and returns its status (128 + n when killed by signal n).
    @discardableResult
    public func wait() -> Int32 {
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        let restOut = output.fileHandleForReading.readDataToEndOfFile()
        let restErr = errors.fileHandleForReading.readDataToEndOfFile()
        lock.withLock {
            collectedOutput.append(restOut)
            collectedErrors.append(restErr)
        }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Waits until the child's standard output so far satisfies `condition`, or the child has
    /// exited, and returns whether it does. `limit` only keeps a child that hangs silently from
    /// hanging the test (a liveness bound, not a performance claim); nothing asserted depends on
    /// how long the wait took.
    public func waitForOutput(limit: Duration = .seconds(30), until condition: (String) -> Bool) async -> Bool {
        let end = ContinuousClock.now + limit
        while !condition(standardOutput), process.isRunning, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition(standardOutput)
    }

    /// Everything the child wrote to standard output so far.
    public var standardOutput: String { lock.withLock { String(decoding: collectedOutput, as: UTF8.self) } }
    /// Everything the child wrote to standard error so far.
    public var standardError: String { lock.withLock { String(decoding: collectedErrors, as: UTF8.self) } }

    /// Runs the fixture to completion and returns (status, stdout, stderr).
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], executable: String = "GroupVaultFixture"
    ) throws -> (status: Int32, output: String, errors: String) {
        let child = try FixtureProcess(arguments, environment: environment, executable: executable)
        let status = child.wait()
        return (status, child.standardOutput, child.standardError)
    }
}
