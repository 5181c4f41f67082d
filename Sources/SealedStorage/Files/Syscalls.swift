import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every system call GroupVault's storage makes, in one place: each is retried on EINTR,
/// reports a typed `Errno`, and first asks ``FaultInjection`` whether to fail (as swift-system's
/// mocking seam does inside its own wrappers), so tests can fail any read, open, listing or
/// watch, not only the write steps. Kept in one file so the platform imports and the raw C
/// calls stay out of the logic that uses them.
///
/// A wrapper that performs a write step (``FaultPoint``) takes it as `step:` and checks it
/// before the call's own fault: the step names stay what tests and `GROUPVAULT_FAULT` arm.
package enum Syscall {
    /// The effective user id of this process.
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// Whether this process has `group` as its effective or a supplementary group.
    package static func isMember(ofGroup group: UInt32) -> Bool {
        if UInt32(getegid()) == group { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return filled > 0 && groups.prefix(Int(filled)).contains(gid_t(group))
    }

    /// Runs `call` (a libc call returning 0 or -1 with errno) until it is not interrupted;
    /// every file of the layer retries through this one loop.
    static func retrying(_ call: () -> Int32) throws(Errno) {
        while true {
            if call() == 0 { return }
            let code = errno
            if code == EINTR { continue }
            throw Errno(rawValue: code)
        }
    }

    /// Asks the seam whether to fail `call` (and its write step), and records it in the trace of
    /// the task's ``FileLayerDriver``; `name` and `descriptor` are built only for a trace.
    static func checkFaults(
        _ call: SystemCall, step: FaultPoint?,
        name: @autoclosure () -> String? = nil, descriptor: @autoclosure () -> Int32? = nil
    ) throws(Errno) {
        try FaultInjection.check(call: call, step: step, name: name(), descriptor: descriptor())
    }

    /// Runs a swift-system call (declared `throws`, though it only throws `Errno`) with a typed error.
    package static func typed<Result>(_ body: () throws -> Result) throws(Errno) -> Result {
        do {
            return try body()
        } catch let error as Errno {
            throw error
        } catch {
            throw .ioError
        }
    }

    // MARK: Descriptors

    /// `open(2)`.
    package static func open(
        _ path: FilePath, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions,
        permissions: FilePermissions? = nil, step: FaultPoint? = nil
    ) throws(Errno) -> FileDescriptor {
        try checkFaults(.open, step: step, name: path.string)
        return try typed { try FileDescriptor.open(path, mode, options: options, permissions: permissions, retryOnInterrupt: true) }
    }

    /// `close(2)`; its error is of no use to a caller that is done with the descriptor.
    package static func close(_ descriptor: FileDescriptor) {
        try? descriptor.close()
    }

    /// `fstat(2)` of an open descriptor.
    package static func status(_ descriptor: FileDescriptor) throws(Errno) -> Stat {
        try checkFaults(.status, step: nil, descriptor: descriptor.rawValue)
        return try typed { try descriptor.stat(retryOnInterrupt: true) }
    }

    /// `read(2)` into `buffer`: the number of bytes read, 0 at the end of the file.
    package static func read(_ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try checkFaults(.read, step: nil, descriptor: descriptor.rawValue)
        return try typed { try descriptor.read(into: buffer, retryOnInterrupt: true) }
    }

    /// Reads from `descriptor` until `buffer` is full or the file ends; the number of bytes read.
    package static func readAll(_ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var total = 0
        while total < buffer.count {
            let count = try read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...]))
            if count == 0 { break }
            total += count
        }
        return total
    }

    /// `write(2)` until every byte of `bytes` is written.
    package static func writeAll(_ descriptor: FileDescriptor, _ bytes: [UInt8], step: FaultPoint? = nil) throws(Errno) {
        try checkFaults(.write, step: step, descriptor: descriptor.rawValue)
        _ = try typed { try descriptor.writeAll(bytes) }
    }

    /// `fsync(2)`: the file's data and metadata reach stable storage.
    package static func sync(_ descriptor: FileDescriptor, step: FaultPoint? = nil) throws(Errno) {
        try checkFaults(.sync, step: step, descriptor: descriptor.rawValue)
        try retrying { fsync(descriptor.rawValue) }
    }

    /// `fdatasync(2)`: the file's data, and the metadata needed to read it back (its size),
    /// reach stable storage; cheaper than ``sync(_:step:)`` for a file that is only appended to.
    /// Darwin has no `fdatasync`: `fsync` there.
    package static func syncData(_ descriptor: FileDescriptor, step: FaultPoint? = nil) throws(Errno) {
        try checkFaults(.sync, step: step, descriptor: descriptor.rawValue)
        #if os(Linux)
        try retrying { fdatasync(descriptor.rawValue) }
        #else
        try retrying { fsync(descriptor.rawValue) }
        #endif
    }

    /// `syncfs(2)`: everything written to the filesystem that holds `descriptor` reaches stable
    /// storage, as if each of its dirty files had been `fsync`ed.
    ///
    /// Only trusted where it reports failures: Linux 5.8 and later return the writeback errors
    /// the filesystem met since `descriptor` was opened (earlier kernels return 0 regardless),
    /// so on an older kernel, or where there is no `syncfs` at all (Darwin), this throws
    /// `ENOSYS` without syncing anything and the caller must `fsync` its files one by one.
    /// An error may come from any file of the filesystem, not only the caller's: the caller
    /// cannot tell, and must then treat its own files as not proven durable.
    package static func syncFileSystem(_ descriptor: FileDescriptor) throws(Errno) {
        try checkFaults(.syncFileSystem, step: nil, descriptor: descriptor.rawValue)
        #if os(Linux)
        guard let call = SyncFileSystem.call else { throw .noFunction }
        try retrying { call(descriptor.rawValue) }
        #else
        throw .noFunction
        #endif
    }

    /// `flock(fd, LOCK_EX | LOCK_NB)` or `LOCK_SH | LOCK_NB`: `true` when this open file
    /// description now holds the lock, `false` when another holder has it (EWOULDBLOCK).
    package static func tryLock(_ descriptor: FileDescriptor, exclusive: Bool) throws(Errno) -> Bool {
        try checkFaults(.lock, step: nil, descriptor: descriptor.rawValue)
        do {
            try retrying { flock(descriptor.rawValue, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) }
            return true
        } catch .wouldBlock {
            return false
        }
    }

    /// `flock(fd, LOCK_UN)`: releases what ``tryLock(_:exclusive:)`` took on this open file
    /// description. Closing the description's last descriptor does the same.
    package static func unlock(_ descriptor: FileDescriptor) {
        _ = flock(descriptor.rawValue, LOCK_UN)
    }

    /// `fchmod(2)`: sets the mode regardless of the process umask.
    package static func changeMode(_ descriptor: FileDescriptor, to mode: UInt16) throws(Errno) {
        try checkFaults(.changeMode, step: nil, descriptor: descriptor.rawValue)
        try retrying { fchmod(descriptor.rawValue, mode_t(mode)) }
    }

    // MARK: Relative to a directory descriptor

    /// `openat(2)`: opens `name`, a single path component, inside the directory `directory`,
    /// whatever has since happened to the path the directory was opened by.
    package static func open(
        _ name: String, in directory: FileDescriptor, _ mode: FileDescriptor.AccessMode,
        options: FileDescriptor.OpenOptions, permissions: FilePermissions? = nil, step: FaultPoint? = nil
    ) throws(Errno) -> FileDescriptor {
        try checkFaults(.open, step: step, name: name, descriptor: directory.rawValue)
        let flags = mode.rawValue | options.rawValue
        let permissionBits = permissions?.rawValue ?? 0
        while true {
            let descriptor = name.withCString { openat(directory.rawValue, $0, flags, permissionBits) }
            if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
            if errno == EINTR { continue }
            throw Errno(rawValue: errno)
        }
    }

    /// `mkdirat(2)`: makes the directory `name`, a single path component, inside `directory`
    /// with `mode` (less the umask, and never setgid: give it its exact mode with
    /// ``changeMode(_:to:)`` on the directory opened by ``openDirectory(_:in:lookupOnly:)``).
    /// EEXIST is reported, not hidden.
    package static func makeDirectory(_ name: String, in directory: FileDescriptor, mode: UInt16) throws(Errno) {
        try checkFaults(.makeDirectory, step: nil, name: name, descriptor: directory.rawValue)
        try retrying { name.withCString { mkdirat(directory.rawValue, $0, mode_t(mode)) } }
    }

    /// Opens the directory at `path` with `O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`: a symbolic
    /// link in the last component is refused (ELOOP, or ENOTDIR on some systems), so what is
    /// opened is the directory itself, held from then on whatever happens to its path.
    ///
    /// `lookupOnly` opens it for lookups only (`O_PATH` on Linux): enough for `openat`,
    /// `mkdirat`, `fstatat`, `unlinkat`, `renameat` and `fstat`, and needs only search
    /// permission, as resolving a path through it does; not for listing, `fsync` or `fchmod`.
    package static func openDirectory(_ path: FilePath, lookupOnly: Bool = false) throws(Errno) -> FileDescriptor {
        try open(path, .readOnly, options: directoryOptions(lookupOnly: lookupOnly))
    }

    /// ``openDirectory(_:lookupOnly:)`` of the entry `name` in `directory` (`openat`).
    package static func openDirectory(_ name: String, in directory: FileDescriptor, lookupOnly: Bool = false) throws(Errno) -> FileDescriptor {
        try open(name, in: directory, .readOnly, options: directoryOptions(lookupOnly: lookupOnly))
    }

    private static func directoryOptions(lookupOnly: Bool) -> FileDescriptor.OpenOptions {
        var options: FileDescriptor.OpenOptions = [.directory, .noFollow, .closeOnExec]
        #if os(Linux)
        if lookupOnly { options.insert(pathOnly) }
        #endif
        return options
    }

    #if os(Linux)
    /// O_PATH, which Swift's Glibc module does not export (it is behind _GNU_SOURCE); this is
    /// its value on every Linux architecture Swift supports (x86_64, arm64, riscv64).
    private static let pathOnly = FileDescriptor.OpenOptions(rawValue: 0o10000000)

    /// The entry `name` in `directory` opened as a handle on the entry itself
    /// (`O_PATH | O_NOFOLLOW`): nothing is read or written, a FIFO does not block, a symbolic
    /// link is the link; enough for `fstat` and for ``inotifyAddWatch(_:opened:mask:)``.
    package static func openEntryForWatching(_ name: String, in directory: FileDescriptor) throws(Errno) -> FileDescriptor {
        try open(name, in: directory, .readOnly, options: [pathOnly, .noFollow, .closeOnExec])
    }
    #endif

    /// `fchown(2)` of an open descriptor; `nil` leaves that id as it is. Call it only after
    /// ``status(_:)`` of the same descriptor showed the expected type, owner and a single link.
    package static func changeOwner(_ descriptor: FileDescriptor, user: UInt32?, group: UInt32?) throws(Errno) {
        try checkFaults(.changeOwner, step: nil, descriptor: descriptor.rawValue)
        try retrying { fchown(descriptor.rawValue, user.map { uid_t($0) } ?? uid_t.max, group.map { gid_t($0) } ?? gid_t.max) }
    }

    /// `renameat(2)` within one directory descriptor.
    package static func rename(_ source: String, to destination: String, in directory: FileDescriptor, step: FaultPoint? = nil) throws(Errno) {
        try checkFaults(.rename, step: step, name: source + " -> " + destination, descriptor: directory.rawValue)
        try retrying {
            source.withCString { from in destination.withCString { to in renameat(directory.rawValue, from, directory.rawValue, to) } }
        }
    }

    /// `unlinkat(2)` of a file within a directory descriptor.
    package static func unlink(_ name: String, in directory: FileDescriptor) throws(Errno) {
        try checkFaults(.unlink, step: nil, name: name, descriptor: directory.rawValue)
        try retrying { name.withCString { unlinkat(directory.rawValue, $0, 0) } }
    }

    /// `fstatat(2)` of `name` in `directory` without following a symbolic link, or `nil`
    /// when there is no such entry.
    package static func statusIfPresent(_ name: String, in directory: FileDescriptor) throws(Errno) -> Stat? {
        try checkFaults(.status, step: nil, name: name, descriptor: directory.rawValue)
        // The name's own C string, not a `FilePath`: building one (its separators normalised)
        // took more instructions than the call, and a warm keyring call makes several.
        var status = stat()
        do {
            try retrying { name.withCString { fstatat(directory.rawValue, $0, &status, AT_SYMLINK_NOFOLLOW) } }
        } catch .noSuchFileOrDirectory {
            return nil
        }
        return Stat(rawValue: status)
    }

    /// The entry names of the open directory `directory` (without "." and ".."), unsorted.
    ///
    /// Reads through a new open file description of the same directory (`openat(fd, ".")`),
    /// not a `dup`: a duplicate would share its read offset with every other listing of
    /// `directory`, so two threads listing at once would each see part of the entries.
    package static func listDirectory(_ directory: FileDescriptor) throws(Errno) -> [String] {
        try checkFaults(.listDirectory, step: nil, descriptor: directory.rawValue)
        var own: Int32
        repeat {
            own = openat(directory.rawValue, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        } while own < 0 && errno == EINTR
        guard own >= 0 else { throw Errno(rawValue: errno) }
        return try names(readingAndClosing: own)
    }

    /// The entry names of the directory open as `own`, a descriptor this listing owns and closes.
    private static func names(readingAndClosing own: Int32) throws(Errno) -> [String] {
        guard let stream = fdopendir(own) else {
            let code = errno
            _ = Glibc_or_Darwin_close(own)
            throw Errno(rawValue: code)
        }
        defer { closedir(stream) }  // closes `own`
        return try names { readdir(stream) }
    }

    /// The names `next` (a `readdir` of one open stream; DIR's type differs between
    /// platforms) gives until its end, without "." and "..".
    private static func names(_ next: () -> UnsafeMutablePointer<dirent>?) throws(Errno) -> [String] {
        var names: [String] = []
        while true {
            // readdir returns nil both at the end and on error; only errno tells them apart.
            errno = 0
            guard let entry = next() else {
                if errno != 0 { throw Errno(rawValue: errno) }
                return names
            }
            // Read the name in place, up to its NUL. `entry.pointee.d_name` would copy the whole
            // 256-byte field, but a directory entry is only as long as its name (d_reclen): for
            // the last entry of readdir's buffer that copy reads past it, across a page boundary
            // into unmapped memory (a SIGSEGV seen listing a directory of 10,000 records).
            let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
    }

    // MARK: Paths

    /// `rename(2)`: atomically replaces `destination` with `source` (same file system).
    package static func rename(_ source: FilePath, to destination: FilePath, step: FaultPoint? = nil) throws(Errno) {
        try checkFaults(.rename, step: step, name: source.string + " -> " + destination.string)
        try retrying {
            source.withPlatformString { from in
                destination.withPlatformString { to in Glibc_or_Darwin_rename(from, to) }
            }
        }
    }

    /// `mkdir(2)` with an exact mode; EEXIST is reported, not hidden.
    package static func makeDirectory(_ path: FilePath, mode: UInt16) throws(Errno) {
        try checkFaults(.makeDirectory, step: nil, name: path.string)
        try retrying { path.withPlatformString { mkdir($0, mode_t(mode)) } }
    }

    /// `unlink(2)`.
    package static func unlink(_ path: FilePath) throws(Errno) {
        try checkFaults(.unlink, step: nil, name: path.string)
        try retrying { path.withPlatformString { Glibc_or_Darwin_unlink($0) } }
    }

    /// ``statusIfPresent(_:)`` with the failure as a ``StorageError`` naming the path.
    package static func typedStatus(_ path: FilePath) throws(StorageError) -> Stat? {
        do {
            return try statusIfPresent(path)
        } catch {
            throw StorageError(.system(error), operation: "stat", path: path)
        }
    }

    /// `lstat(2)` that reports a missing path as `nil` instead of an error.
    package static func statusIfPresent(_ path: FilePath) throws(Errno) -> Stat? {
        try checkFaults(.status, step: nil, name: path.string)
        do {
            return try path.stat(followTargetSymlink: false)
        } catch .noSuchFileOrDirectory {
            return nil
        }
    }

    /// The entry names of `directory` (without "." and ".."), unsorted. The directory is opened
    /// with `O_DIRECTORY | O_NOFOLLOW` (not `opendir`, which follows a symbolic link), so a link
    /// in its place is refused (ENOTDIR on Linux, ELOOP elsewhere), not listed through.
    package static func listDirectory(_ directory: FilePath) throws(Errno) -> [String] {
        try checkFaults(.listDirectory, step: nil, name: directory.string)
        var own: Int32
        repeat {
            own = directory.withPlatformString { Glibc_or_Darwin_open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        } while own < 0 && errno == EINTR
        guard own >= 0 else { throw Errno(rawValue: errno) }
        return try names(readingAndClosing: own)
    }

    // MARK: Time

    /// Sleeps for `duration` (`nanosleep`, resumed after a signal).
    package static func pause(_ duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR {
            request = remaining
        }
    }
}

#if os(Linux)
/// `syncfs(2)`, looked up once: Glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc
/// module does not import, so it is found by name. `nil` when the C library lacks it or the
/// kernel is older than 5.8 and would not report writeback errors (see
/// ``Syscall/syncFileSystem(_:)``).
private enum SyncFileSystem {
    typealias Call = @convention(c) (Int32) -> Int32

    static let call: Call? = {
        guard kernelReportsSyncErrors(), let symbol = dlsym(nil, "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: Call.self)
    }()

    /// Whether `uname` says Linux 5.8 or later.
    private static func kernelReportsSyncErrors() -> Bool {
        var names = utsname()
        guard uname(&names) == 0 else { return false }
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard numbers.count == 2 else { return false }
        return (numbers[0], numbers[1]) >= (5, 8)
    }
}

extension Syscall {
    // MARK: inotify

    /// `inotify_init1(flags)`: a new inotify instance.
    package static func inotifyInit(flags: Int32) throws(Errno) -> Int32 {
        try checkFaults(.inotifyInit, step: nil)
        let descriptor = inotify_init1(flags)
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        return descriptor
    }

    /// `inotify_add_watch(2)`: the watch descriptor.
    package static func inotifyAddWatch(_ descriptor: Int32, _ path: FilePath, mask: UInt32) throws(Errno) -> Int32 {
        try checkFaults(.inotifyAddWatch, step: nil, name: path.string, descriptor: descriptor)
        let watch = path.withPlatformString { inotify_add_watch(descriptor, $0, mask) }
        guard watch >= 0 else { throw Errno(rawValue: errno) }
        return watch
    }

    /// `inotify_add_watch(2)` of the directory or file open as `opened`, named as
    /// `/proc/self/fd/<opened>`: that magic link resolves to the opened inode itself,
    /// whatever has happened to its path since, so an entry swapped for a symbolic link
    /// between the open and the watch is not followed. `IN_DONT_FOLLOW` is taken out of `mask`
    /// (it would refuse the magic link); `IN_ONLYDIR` stays. ENOENT means `/proc` is not there.
    package static func inotifyAddWatch(_ descriptor: Int32, opened: FileDescriptor, mask: UInt32) throws(Errno) -> Int32 {
        try checkFaults(.inotifyAddWatch, step: nil, name: "/proc/self/fd/\(opened.rawValue)", descriptor: descriptor)
        let watch = "/proc/self/fd/\(opened.rawValue)".withCString { inotify_add_watch(descriptor, $0, mask & ~UInt32(IN_DONT_FOLLOW)) }
        guard watch >= 0 else { throw Errno(rawValue: errno) }
        return watch
    }

    /// `inotify_rm_watch(2)`. The kernel then queues `IN_IGNORED` for `watch`; an error (the
    /// watch already gone with its directory) is of no use to a caller done with it.
    package static func inotifyRemoveWatch(_ descriptor: Int32, _ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// `read(2)` of a non-blocking inotify descriptor: the bytes read, or `nil` when nothing is
    /// queued (EAGAIN).
    package static func inotifyRead(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        try checkFaults(.inotifyRead, step: nil, descriptor: descriptor)
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw Errno(rawValue: errno)
        }
    }
}
#endif

extension Syscall {
    /// `close(2)` of a raw descriptor; like ``close(_:)``, its error is of no use to a caller
    /// that is done with the descriptor.
    package static func close(raw descriptor: Int32) {
        _ = Glibc_or_Darwin_close(descriptor)
    }
}

// The C functions share names with the Swift wrappers above; these aliases say which is meant.
@inline(__always) private func Glibc_or_Darwin_rename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
    rename(from, to)
}

@inline(__always) private func Glibc_or_Darwin_unlink(_ path: UnsafePointer<CChar>) -> Int32 {
    unlink(path)
}

@inline(__always) private func Glibc_or_Darwin_open(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    open(path, flags)
}

@inline(__always) private func Glibc_or_Darwin_close(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
