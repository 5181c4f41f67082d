// The driver of the FuzzTargets callbacks.
//
// Built by scripts/fuzz with -DFUZZING, ASan and SanitizerCoverage, and linked against
// libFuzzer's runtime *without* its main: this main hands the command line to
// LLVMFuzzerRunDriver, so one executable serves every target. (`-sanitize=fuzzer` cannot be
// used to link: the compiler driver links libFuzzer with --whole-archive, whose FuzzerMain.o
// then collides with this main.) Any other build replays files through the same callbacks,
// which is how a crash is reproduced under a debugger and how the corpus is checked.

import Foundation
import FuzzTargets

let usage = """
    usage: GroupVaultFuzz <target> [libFuzzer flags] [corpus directories or inputs]  (built by scripts/fuzz)
           GroupVaultFuzz <target> <file or directory>...    (other builds: replay the inputs)
           GroupVaultFuzz --write-seeds <directory>          (write every target's seeds to <directory>/<target>/)
           GroupVaultFuzz --list
    targets: \(FuzzTarget.all.map(\.name).joined(separator: ", "))
    """

/// The target of this process. libFuzzer starts copies of the process for -fork, -merge and
/// -minimize_crash with the flags it was given but without our leading target name, so the
/// name travels in the environment, which children inherit.
enum Selected {
    static let variable = "GROUPVAULT_FUZZ_TARGET"

    static let target: FuzzTarget = {
        guard let name = ProcessInfo.processInfo.environment[variable], let target = FuzzTarget.named(name) else {
            fatalError("\(variable) names no target; \(usage)")
        }
        return target
    }()

    /// Runs one input; a finding becomes a crash, which makes libFuzzer save the input.
    static func run(_ input: [UInt8]) {
        do {
            try target.run(input)
        } catch {
            fatalError("\(target.name) finding: \(error)")
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("GroupVaultFuzz: \(message)\n".utf8))
    exit(2)
}

var arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "--list":
    for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
    exit(0)
case "--write-seeds":
    guard arguments.count == 3 else { fail(usage) }
    let root = URL(fileURLWithPath: arguments[2], isDirectory: true)
    do {
        for target in FuzzTarget.all {
            let directory = root.appendingPathComponent(target.name, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let seeds = try target.seeds()
            for (name, bytes) in seeds {
                try Data(bytes).write(to: directory.appendingPathComponent(name))
            }
            print("\(target.name): wrote \(seeds.count) seeds to \(directory.path)")
        }
    } catch {
        fail("cannot write seeds: \(error)")
    }
    FuzzWorkspace.remove()
    exit(0)
case let name? where FuzzTarget.named(name) != nil:
    setenv(Selected.variable, name, 1)
    arguments.remove(at: 1)
case _ where ProcessInfo.processInfo.environment[Selected.variable] != nil:
    break  // a child started by libFuzzer
default:
    fail(usage)
}
// The scratch keyring homes go when the run ends normally; libFuzzer ends a timed run with exit().
atexit { FuzzWorkspace.remove() }

#if FUZZING
/// libFuzzer's entry point for programs with their own main (compiler-rt FuzzerDriver.cpp):
/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t))`.
/// Declared with @_silgen_name because there is no header to import; its three pointer
/// arguments and int result are passed the same way by the Swift and C conventions.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

// libFuzzer keeps argv for the whole run and may rewrite it, so the strings are never freed.
var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
var argc = Int32(arguments.count)
let status = cArguments.withUnsafeMutableBufferPointer { buffer in
    var argv = buffer.baseAddress
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        Selected.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
exit(status)
#else
/// Every regular file at or below `path`, sorted, so a replay is repeatable. In a directory,
/// `crash-*` files (reproducers of crashes not fixed yet) are left out, so that one open crash
/// does not hide what the rest of the corpus says; name such a file to reproduce it.
func inputs(at path: String) -> [URL] {
    let url = URL(fileURLWithPath: path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { fail("\(path) does not exist") }
    guard isDirectory.boolValue else { return [url] }
    let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])?
        .compactMap { $0 as? URL }
        .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true } ?? []
    for open in files where open.lastPathComponent.hasPrefix("crash-") {
        print("\(open.path): skipped, an open crash (replay it by naming the file)")
    }
    return files.filter { !$0.lastPathComponent.hasPrefix("crash-") }.sorted { $0.path < $1.path }
}

let paths = arguments.dropFirst()
guard !paths.isEmpty else { fail("no inputs given; this build replays files (scripts/fuzz builds the fuzzer)\n\(usage)") }
var counts: [FuzzOutcome: Int] = [:]
var findings = 0
for file in paths.flatMap(inputs(at:)) {
    guard let data = FileManager.default.contents(atPath: file.path) else { fail("cannot read \(file.path)") }
    do {
        counts[try Selected.target.run(Array(data)), default: 0] += 1
    } catch {
        findings += 1
        print("\(file.path): \(error)")
    }
}
print("\(Selected.target.name): replayed \(counts.values.reduce(findings, +)) inputs: \(counts[.accepted, default: 0]) accepted, \(counts[.refused, default: 0]) refused, \(findings) findings")
exit(findings == 0 ? 0 : 1)
#endif
