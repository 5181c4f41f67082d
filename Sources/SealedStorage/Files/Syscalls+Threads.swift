#if os(Linux)
import CFileLayer
import Glibc
import SystemPackage

extension Syscall {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes, or the thread keeps
    /// the process's name; what `top -H`, `perf` and `/proc/<pid>/task/*/comm` show). For a
    /// thread that blocks in a system call for as long as the process lives, which must not
    /// hold one of Swift's cooperative threads.
    package static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) {
        try checkFaults(.startThread, step: nil)
        final class Start {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
        }
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            _ = start.name.withCString { filelayer_name_thread($0) }
            start.body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            throw Errno(rawValue: status)
        }
        pthread_detach(thread)
    }
}
#endif
