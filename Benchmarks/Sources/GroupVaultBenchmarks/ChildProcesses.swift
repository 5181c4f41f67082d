import Foundation

/// The programs the benchmark starts, found beside this one: the package's other products
/// (`swift build` puts every product of a configuration in one directory) and the C programs
/// `build-c-programs` compiles into that directory.
struct Executables {
    /// The directory holding them.
    let directory: URL

    /// The package's Swift products the benchmark starts.
    static let swiftProducts = ["GroupVaultChild", "NotificationEcho", "SyncObserver", "HelloSwift", "HelloFoundation"]
    /// The C programs (Benchmarks/C), compiled by the C compiler rather than SwiftPM so that
    /// they load no Swift runtime, as a C user's programs would not.
    static let cPrograms = ["ProcessMeter", "SQLCipherChild", "KernelKeyringChild", "MessagingPeers"]

    /// This executable's directory; fails if a program is missing (built with `swift run`
    /// alone, say, which builds only this product, or without `build-c-programs`).
    static func beside() throws -> Executables {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let executables = Executables(directory: directory)
        for name in swiftProducts where !FileManager.default.isExecutableFile(atPath: executables.path(name)) {
            throw BenchmarkFailure("\(name) is not built in \(directory.path); build every product first: `cd Benchmarks && swift build -c release` (or `make bench`)")
        }
        for name in cPrograms where !FileManager.default.isExecutableFile(atPath: executables.path(name)) {
            throw BenchmarkFailure("\(name) is not built in \(directory.path); compile the C programs into it: `cd Benchmarks && ./build-c-programs \(directory.path)` (or `make bench`)")
        }
        return executables
    }

    /// The path of executable `name`.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// Runs `arguments[0]` with the rest as arguments; returns its standard output. With a
/// `deadline`, kills it (SIGKILL) once the deadline passes and returns `nil` instead.
func run(_ arguments: [String], deadline: ContinuousClock.Instant? = nil) throws -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var killed = false
    if let deadline {
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                kill(process.processIdentifier, SIGKILL)
                killed = true
                break
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if killed { return nil }
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
        throw BenchmarkFailure("\(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
}

/// Runs `arguments` once under ProcessMeter: wall time and peak RSS of the new process.
func meter(_ executables: Executables, _ arguments: [String]) throws -> Measurement {
    guard let line = try run([executables.path("ProcessMeter")] + arguments) else {
        throw BenchmarkFailure("ProcessMeter did not finish")
    }
    let fields = line.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard fields.count == 3 else { throw BenchmarkFailure("unexpected ProcessMeter output: \(line)") }
    guard fields[2] == 0 else {
        throw BenchmarkFailure("\(arguments.joined(separator: " ")) failed (wait status \(Int(fields[2])))")
    }
    return Measurement(microseconds: fields[0] / 1000, peakKiB: fields[1])
}
