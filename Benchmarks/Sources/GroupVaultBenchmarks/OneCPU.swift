import Floors
import Foundation

/// Runs `body` with this thread and the peer processes `children` held on the CPU this thread
/// is on, then gives each back the CPUs it had.
///
/// For the in-memory hot loops with a peer in a child process (SQLCipher's select): with the
/// child free to answer on the other CPU, this thread's CPU idles while it waits, and a virtual
/// CPU woken from idle runs the next contenders cold, every round. A user's SQLCipher runs in
/// the caller's thread and idles nothing; on one CPU, neither side does either
/// (Benchmarks/README.md, "Placement").
func onOneCPU<T>(with children: [pid_t], _ body: () throws -> T) throws -> T {
    guard let saved = children.withUnsafeBufferPointer({ floor_place_on_one_cpu($0.baseAddress, Int32($0.count)) }) else {
        throw BenchmarkFailure("cannot hold the benchmark and its peer on one CPU: errno \(errno)")
    }
    let result = Result { try body() }
    guard floor_restore_placement(saved) == 0 else {
        throw BenchmarkFailure("cannot give the benchmark and its peer back their CPUs: errno \(errno)")
    }
    return try result.get()
}
