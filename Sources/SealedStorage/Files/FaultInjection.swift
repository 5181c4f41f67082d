import SystemPackage

/// A step of an operation where a test can inject a fault: a durable write's, a trust-ledger
/// commit's, a keyring transaction's.
///
/// A struct with static members, as swift-system's `Errno` has its codes, not an enum: this
/// module declares the file layer's own steps, and a module above it declares its steps in an
/// extension of its own (Vault: `ledgerIntent`, `ledgerConfirm`; Keyring: `itemStep`,
/// `itemCommit`), so the lowest module never names what higher ones do. The raw value is the
/// name `GROUPVAULT_FAULT=<step>:...` arms in a child process; every name stays unique because
/// each is declared once, next to the code that checks it.
package struct FaultPoint: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The step's name, as `GROUPVAULT_FAULT` gives it.
    package let rawValue: String

    /// The step named `rawValue`; declare it once, as a static member where it is checked.
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    /// Creating the temporary file beside the target.
    package static let createTemporary = FaultPoint(rawValue: "create-temporary")
    /// Writing the bytes of the temporary file.
    package static let writeTemporary = FaultPoint(rawValue: "write-temporary")
    /// `fsync` of the temporary file.
    package static let syncTemporary = FaultPoint(rawValue: "sync-temporary")
    /// Renaming the temporary file over the target.
    package static let rename = FaultPoint(rawValue: "rename")
    /// `fsync` of the directory after the rename.
    package static let syncDirectory = FaultPoint(rawValue: "sync-directory")

    /// The file layer's steps, in the order a durable write takes them. A module declaring
    /// steps lists them likewise (`ledgerSteps`, `itemSteps`), so tests can require each to be covered.
    package static let fileLayerSteps: [FaultPoint] = [.createTemporary, .writeTemporary, .syncTemporary, .rename, .syncDirectory]
}

/// A system call wrapped by ``Syscall``; each can be made to fail wherever it is made, not only
/// at the write steps (a read, a directory listing, an inotify watch).
package enum SystemCall: String, Sendable, CaseIterable {
    case open = "call-open"
    case read = "call-read"
    case write = "call-write"
    case sync = "call-fsync"
    /// `syncfs(2)`: a reseal batch makes all its temporary files durable with one call.
    case syncFileSystem = "call-syncfs"
    case status = "call-stat"
    case lock = "call-flock"
    case rename = "call-rename"
    case makeDirectory = "call-mkdir"
    case changeMode = "call-fchmod"
    case unlink = "call-unlink"
    case listDirectory = "call-readdir"
    case inotifyInit = "call-inotify-init"
    case inotifyAddWatch = "call-inotify-add-watch"
    case inotifyRead = "call-inotify-read"
    /// `epoll_create1` and `epoll_ctl`: the set the watchers' one reader thread waits on.
    case epoll = "call-epoll"
    /// `pthread_create`: the watchers' reader thread.
    case startThread = "call-pthread-create"
    /// `eventfd` and `poll`: a watch read by the thread that waits for it (``CallerReadWatch``).
    case wait = "call-poll"
    case socket = "call-socket"
    case bind = "call-bind"
    case connect = "call-connect"
    case link = "call-link"
    case changeOwner = "call-fchown"
    /// `sqlite3_open_v2`: SQLite opens its database by path (``Syscall/openSQLiteDatabase(_:flags:)``).
    case openDatabase = "call-sqlite3-open"
    case readExtendedAttribute = "call-fgetxattr"
}

/// Where a fault is armed: a write step, or every use of one system call.
package enum FaultSite: Hashable, Sendable {
    case step(FaultPoint)
    case call(SystemCall)

    /// The site named `name`: a ``SystemCall`` raw value (`call-...`), or else the step of that
    /// name (a ``FaultPoint`` declared in any module; a name no step has is never reached).
    init(name: String) {
        if let call = SystemCall(rawValue: name) {
            self = .call(call)
        } else {
            self = .step(FaultPoint(rawValue: name))
        }
    }
}

/// What happens at an armed ``FaultPoint``.
package enum Fault: Sendable, Equatable {
    /// The step fails with this errno, as if the system call had.
    case fail(Errno)
    /// The process dies on the spot (`_exit`), as if killed between two steps.
    case terminateProcess
}

/// The seam through which tests make storage fail, modelled on swift-system's mocking: every
/// wrapper in ``Syscall`` calls ``check(_:)`` (and ``check(_:)-(FaultPoint)`` for the write step
/// it performs, when it performs one) before the real call. In release builds the checks are
/// empty and the table does not exist.
///
/// Tests arm faults for the current task or thread with ``FileLayerDriver`` (which also traces
/// every call) or ``withFault(_:at:afterPassing:_:)``; process-wide, for every thread, with
/// ``withProcessWideFault(_:at:afterPassing:_:)``, each for the length of a call, so no test
/// leaves one armed for the next; child processes are armed through the
/// environment variable `GROUPVAULT_FAULT=<site>:<errno number|terminate>[:<passes>]` (debug
/// builds only), where `<site>` is a step (`rename`, `sync-directory`, ...) or a system call
/// (`call-open`, `call-readdir`, ...), so a multi-process test can kill a writer at an exact step.
package enum FaultInjection {
    private struct Armed {
        var fault: Fault
        var remainingPasses: Int
    }

    #if DEBUG
    private static let armed = Locked<[FaultSite: Armed]>(FaultInjection.fromEnvironment())

    private static func fromEnvironment() -> [FaultSite: Armed] {
        guard let value = getenv("GROUPVAULT_FAULT").map({ String(cString: $0) }) else { return [:] }
        let parts = value.split(separator: ":").map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty else { return [:] }
        let site = FaultSite(name: parts[0])
        let fault: Fault
        if parts[1] == "terminate" {
            fault = .terminateProcess
        } else if let code = Int32(parts[1]) {
            fault = .fail(Errno(rawValue: code))
        } else {
            return [:]
        }
        let passes = parts.count > 2 ? Int(parts[2]) ?? 0 : 0
        return [site: Armed(fault: fault, remainingPasses: passes)]
    }
    #endif

    /// Runs `body` with `fault` armed at `site` for every thread of the process (the first
    /// `passes` arrivals go through, the next one faults, and the fault then disarms itself),
    /// then restores what was armed there before, whether the fault fired or not and however
    /// `body` ends. For work `body` hands to other threads (an event loop, a pool); a fault for
    /// the calling thread alone is ``withFault(_:at:afterPassing:_:)``.
    ///
    /// Scoped, never left armed: a fault that outlived its test would fire in the next one.
    package static func withProcessWideFault<Result, Failure: Error>(
        _ fault: Fault, at site: FaultSite, afterPassing passes: Int = 0,
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let previous = exchangeProcessWide(at: site, with: Armed(fault: fault, remainingPasses: passes))
        defer { _ = exchangeProcessWide(at: site, with: previous) }
        return try body()
    }

    /// ``withProcessWideFault(_:at:afterPassing:_:)`` for an asynchronous `body`.
    package static func withProcessWideFault<Result>(
        _ fault: Fault, at site: FaultSite, afterPassing passes: Int = 0,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let previous = exchangeProcessWide(at: site, with: Armed(fault: fault, remainingPasses: passes))
        defer { _ = exchangeProcessWide(at: site, with: previous) }
        return try await body()
    }

    /// Puts `armed` (or nothing) at `site` in the process-wide table; returns what was there.
    private static func exchangeProcessWide(at site: FaultSite, with new: Armed?) -> Armed? {
        #if DEBUG
        return armed.withLock { table in
            let old = table[site]
            table[site] = new
            return old
        }
        #else
        return nil
        #endif
    }

    /// Runs `body` with `fault` armed at `site` for the current task or thread only (the
    /// driver bound there, see ``FileLayerDriver``, or a new one bound for `body`), then
    /// restores what was armed there before, whether the fault fired or not and however `body`
    /// ends. Work `body` hands to another thread does not see the fault: for that, use the
    /// process-wide ``withProcessWideFault(_:at:afterPassing:_:)``.
    ///
    /// ```swift
    /// try FaultInjection.withFault(.fail(.ioError), at: .call(.read)) {
    ///     XCTAssertThrowsError(try keyring.item(matching: query))
    /// }
    /// ```
    package static func withFault<Result, Failure: Error>(
        _ fault: Fault, at site: FaultSite, afterPassing passes: Int = 0,
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        #if DEBUG
        guard let driver = FileLayerDriver.current else {
            return try FileLayerDriver().bind { _ throws(Failure) in
                try withFault(fault, at: site, afterPassing: passes, body)
            }
        }
        let previous = driver.exchange(at: site, with: .init(effect: .fault(fault), remainingPasses: passes))
        defer { _ = driver.exchange(at: site, with: previous) }
        #endif
        return try body()
    }

    /// Removes every armed fault.
    package static func disarmAll() {
        #if DEBUG
        armed.withLock { $0.removeAll() }
        #endif
    }

    /// Called before the write step `point`; throws or exits if a fault is due.
    package static func check(_ point: FaultPoint) throws(Errno) {
        #if DEBUG
        try check(site: .step(point), driver: FileLayerDriver.current)
        #endif
    }

    /// Called by every ``Syscall`` wrapper before the real call; throws or exits if a fault is
    /// due. Records the call in the trace of the task's ``FileLayerDriver``, if one is bound.
    package static func check(call: SystemCall) throws(Errno) {
        try check(call: call, step: nil)
    }

    /// ``check(call:)`` for a wrapper that performs the write step `step` and can name what it
    /// addresses: the step is checked first (its name is what tests and `GROUPVAULT_FAULT` arm),
    /// then the call; `name` and `descriptor` are evaluated only when a driver records them.
    package static func check(
        call: SystemCall, step: FaultPoint?,
        name: @autoclosure () -> String? = nil, descriptor: @autoclosure () -> Int32? = nil
    ) throws(Errno) {
        #if DEBUG
        let driver = FileLayerDriver.current
        driver?.record(.init(call: call, step: step, name: name(), descriptor: descriptor()))
        if let step { try check(site: .step(step), driver: driver) }
        try check(site: .call(call), driver: driver)
        #endif
    }

    #if DEBUG
    /// The task's driver first, then the process-wide table.
    @inline(__always)
    private static func check(site: FaultSite, driver: FileLayerDriver?) throws(Errno) {
        if let fault = driver?.due(at: site) { try perform(fault) }
        let due: Fault? = armed.withLock { table in
            guard !table.isEmpty, var entry = table[site] else { return nil }
            if entry.remainingPasses > 0 {
                entry.remainingPasses -= 1
                table[site] = entry
                return nil
            }
            table[site] = nil
            return entry.fault
        }
        if let due { try perform(due) }
    }

    private static func perform(_ fault: Fault) throws(Errno) {
        switch fault {
        case .fail(let errno): throw errno
        case .terminateProcess: _exit(137)
        }
    }
    #endif
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
