import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscall {
    /// `renameat2(2)` with `RENAME_NOREPLACE` within one directory descriptor: `source` takes
    /// the name `destination` only if no entry has it; `EEXIST` otherwise. Atomic, so two
    /// processes publishing a new file at once cannot both win, and none ever replaces the
    /// other's.
    package static func renameNoReplace(_ source: String, to destination: String, in directory: FileDescriptor) throws(Errno) {
        try renameNoReplace(source, in: directory, to: destination, in: directory)
    }

    /// ``renameNoReplace(_:to:in:)`` from the entry `source` of `sourceDirectory` to the entry
    /// `destination` of `destinationDirectory` (the same file system): how a directory made
    /// where nobody else can reach it is published in a shared one.
    /// - Throws: `EEXIST` when `destination` exists (a file or a directory, empty or not);
    ///   `EINVAL` where the file system has no `RENAME_NOREPLACE`, `ENOSYS` where there is no
    ///   `renameat2`: the caller decides what it may do instead.
    package static func renameNoReplace(
        _ source: String, in sourceDirectory: FileDescriptor, to destination: String, in destinationDirectory: FileDescriptor
    ) throws(Errno) {
        // The call's fault only: the write steps (`FaultPoint`) name a Vault write's steps, and a
        // child armed to die at one must not die creating a database instead.
        try FaultInjection.check(call: .rename, step: nil, name: source + " -> " + destination, descriptor: destinationDirectory.rawValue)
        #if os(Linux)
        guard let call = RenameNoReplace.call else { throw .noFunction }
        try retrying {
            source.withCString { from in
                destination.withCString { to in call(sourceDirectory.rawValue, from, destinationDirectory.rawValue, to, RenameNoReplace.flag) }
            }
        }
        #else
        throw .noFunction
        #endif
    }

    /// `renameat(2)` from the entry `source` of `sourceDirectory` to the entry `destination` of
    /// `destinationDirectory`. It replaces a file at `destination`, and an *empty directory*
    /// there when `source` is a directory: use it only where
    /// ``renameNoReplace(_:in:to:in:)`` is not available, after looking that `destination` is
    /// free, and say what the window between the two allows.
    package static func rename(
        _ source: String, in sourceDirectory: FileDescriptor, to destination: String, in destinationDirectory: FileDescriptor
    ) throws(Errno) {
        try FaultInjection.check(call: .rename, step: nil, name: source + " -> " + destination, descriptor: destinationDirectory.rawValue)
        try retrying {
            source.withCString { from in
                destination.withCString { to in renameat(sourceDirectory.rawValue, from, destinationDirectory.rawValue, to) }
            }
        }
    }
}

#if os(Linux)
/// `renameat2(2)`, looked up once: Glibc declares it only under `_GNU_SOURCE`, which Swift's
/// Glibc module does not import.
private enum RenameNoReplace {
    typealias Call = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    /// `RENAME_NOREPLACE` from <linux/fs.h>.
    static let flag: UInt32 = 1

    static let call: Call? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: Call.self) }
}
#endif
