import Foundation

/// The package's other executables, found beside this one (`swift build` puts every product
/// of a configuration in one directory).
struct Executables {
    /// The directory holding them.
    let directory: URL

    /// This executable's directory; fails if a helper is missing (built with `swift run`
    /// alone, say, which builds only this product).
    static func beside() throws -> Executables {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let executables = Executables(directory: directory)
        for name in ["ProcessMeter", "GroupVaultChild", "NotificationEcho", "SyncObserver", "HelloSwift", "HelloFoundation", "SQLCipherChild", "NotificationPeers"] {
            guard FileManager.default.isExecutableFile(atPath: executables.path(name)) else {
                throw BenchmarkFailure("\(name) is not built in \(directory.path); build every product first: `cd Benchmarks && swift build -c release` (or `make bench`)")
            }
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
