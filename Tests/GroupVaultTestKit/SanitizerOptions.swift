import Foundation

/// The sanitizers' options of the test process, for a child started with an environment of
/// its own (a fresh shell, a bare `PATH`), so that it runs as this process does: under
/// scripts/sanitize LeakSanitizer is off, whose false reports on the pointers Swift stores with
/// tag bits would turn a child's exit status into 1 (an item a process still holds at exit, in
/// a search answer it keeps, is one). Nothing else of the test's environment is passed on.
public enum SanitizerOptions {
    /// `ASAN_OPTIONS` and `TSAN_OPTIONS`, when set.
    public static var environment: [String: String] {
        ProcessInfo.processInfo.environment.filter { ["ASAN_OPTIONS", "TSAN_OPTIONS"].contains($0.key) }
    }
}
