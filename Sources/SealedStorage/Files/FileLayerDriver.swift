import SystemPackage

/// The per-task fault and trace seam of the file layer, modelled on swift-system's mocking
/// driver: while a driver is bound (``with(_:)-(_)``), every ``Syscall`` wrapper made by the
/// binding task or thread, and by the child tasks it starts, is recorded in the driver's
/// ``trace`` and can be failed by a fault armed on it. Another task or thread, running at the
/// same time, sees neither: two tests can fail the same call in parallel without meeting.
///
/// ```swift
/// let calls = try FileLayerDriver.with { driver in
///     driver.fail(.call(.rename), with: .ioError, afterPassing: 1)
///     try AtomicFile.replace(target, with: bytes, sharing: .ownerOnly, durability: .full)
///     return driver.trace.map(\.call)
/// }
/// ```
///
/// The binding is a `@TaskLocal`: inside a task it is the task's, outside any task it is the
/// current thread's, and child tasks (`async let`, task groups) inherit it; unstructured work
/// (a `DispatchQueue`, a detached task, a new thread) does not. The process-wide table of
/// ``FaultInjection`` (``FaultInjection/withProcessWideFault(_:at:afterPassing:_:)``, `GROUPVAULT_FAULT` for child
/// processes) still applies everywhere, after the driver's own faults.
///
/// Debug builds only, like the rest of the seam: in release builds nothing is bound, nothing is
/// recorded, and the wrappers make no lookup.
package final class FileLayerDriver: Sendable {
    /// One system call made through ``Syscall`` while the driver was bound.
    package struct TracedCall: Sendable, Equatable, CustomStringConvertible {
        /// Which call.
        package var call: SystemCall
        /// The write step it performed, when it performed one.
        package var step: FaultPoint?
        /// The path or single entry name it addressed, when it addressed one.
        package var name: String?
        /// The descriptor it was made on (the directory's, for a call relative to one).
        package var descriptor: Int32?

        package init(call: SystemCall, step: FaultPoint? = nil, name: String? = nil, descriptor: Int32? = nil) {
            self.call = call
            self.step = step
            self.name = name
            self.descriptor = descriptor
        }

        package var description: String {
            var text = call.rawValue
            if let step { text += " [\(step.rawValue)]" }
            if let descriptor { text += " fd \(descriptor)" }
            if let name { text += " \(name)" }
            return text
        }
    }

    /// What happens when an armed site is reached.
    enum Effect {
        case fault(Fault)
        /// Runs before the call, which then goes ahead: a test's way of changing the file system
        /// at an exact point of an operation (the race an attacker would try, without timing).
        case action(@Sendable () -> Void)
    }

    struct Armed {
        var effect: Effect
        var remainingPasses: Int
    }

    private struct State {
        var armed: [FaultSite: Armed] = [:]
        var trace: [TracedCall] = []
    }

    private let state = Locked(State())

    /// A driver with nothing armed and an empty trace; bind it with ``bind(_:)``.
    package init() {}

    #if DEBUG
    /// The driver bound to the current task or thread, if any.
    @TaskLocal package static var current: FileLayerDriver?
    #endif

    /// Runs `body` with a new driver bound to the current task or thread (see the type's
    /// documentation), then unbinds it, restoring whatever driver was bound before.
    package static func with<Result, Failure: Error>(_ body: (FileLayerDriver) throws(Failure) -> Result) throws(Failure) -> Result {
        try FileLayerDriver().bind { driver throws(Failure) in try body(driver) }
    }

    /// The asynchronous form of ``with(_:)-(_)``: child tasks of `body` share the driver.
    package static func with<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (FileLayerDriver) async throws -> Result
    ) async rethrows -> Result {
        let driver = FileLayerDriver()
        #if DEBUG
        return try await $current.withValue(driver, operation: { try await body(driver) }, isolation: isolation)
        #else
        return try await body(driver)
        #endif
    }

    /// Runs `body` with this driver bound to the current task or thread.
    package func bind<Result, Failure: Error>(_ body: (FileLayerDriver) throws(Failure) -> Result) throws(Failure) -> Result {
        #if DEBUG
        // TaskLocal.withValue rethrows untyped; carrying the outcome as a Result keeps `Failure`.
        let outcome: Swift.Result<Result, Failure> = Self.$current.withValue(self) {
            Swift.Result { () throws(Failure) in try body(self) }
        }
        return try outcome.get()
        #else
        return try body(self)
        #endif
    }

    // MARK: Arming

    /// Arms `fault` at `site` for the tasks this driver is bound to: the first `passes`
    /// arrivals go through, the next one faults, and the fault then disarms itself.
    package func arm(_ fault: Fault, at site: FaultSite, afterPassing passes: Int = 0) {
        state.withLock { $0.armed[site] = Armed(effect: .fault(fault), remainingPasses: passes) }
    }

    /// Makes the call or step `site` fail with `errno` once, after letting `passes` arrivals through.
    package func fail(_ site: FaultSite, with errno: Errno, afterPassing passes: Int = 0) {
        arm(.fail(errno), at: site, afterPassing: passes)
    }

    /// Runs `action` just before the call or step `site`, once, after `passes` arrivals went
    /// through; the call then goes ahead. `action` runs on the calling thread, holding no lock.
    package func run(before site: FaultSite, afterPassing passes: Int = 0, _ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.armed[site] = Armed(effect: .action(action), remainingPasses: passes) }
    }

    /// Removes whatever is armed at `site` on this driver.
    package func disarm(_ site: FaultSite) {
        state.withLock { $0.armed[site] = nil }
    }

    // MARK: Trace

    /// Every call made through ``Syscall`` while this driver was bound, in order.
    package var trace: [TracedCall] {
        state.withLock { $0.trace }
    }

    /// Empties ``trace``, so a test can count the calls of one operation after its arrangement.
    package func clearTrace() {
        state.withLock { $0.trace.removeAll() }
    }

    // MARK: For FaultInjection

    /// Records `call` in the trace.
    func record(_ call: TracedCall) {
        state.withLock { $0.trace.append(call) }
    }

    /// The fault due at `site` on this driver, after running any action armed there.
    func due(at site: FaultSite) -> Fault? {
        let effect: Effect? = state.withLock { state in
            guard var entry = state.armed[site] else { return nil }
            if entry.remainingPasses > 0 {
                entry.remainingPasses -= 1
                state.armed[site] = entry
                return nil
            }
            state.armed[site] = nil
            return entry.effect
        }
        switch effect {
        case nil: return nil
        case .fault(let fault): return fault
        case .action(let action):
            action()
            return nil
        }
    }

    /// Puts `entry` (or nothing) at `site` and returns what was there: how
    /// ``FaultInjection/withFault(_:at:afterPassing:_:)`` arms a site for a scope and restores it.
    func exchange(at site: FaultSite, with entry: Armed?) -> Armed? {
        state.withLock { state in
            defer { state.armed[site] = entry }
            return state.armed[site]
        }
    }
}
