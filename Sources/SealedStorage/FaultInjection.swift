import SystemPackage
import Synchronization

/// A step of a durable write, a trust-ledger commit or a lock acquisition where a test can inject a fault.
package enum FaultPoint: String, Sendable, CaseIterable {
    /// Creating the temporary file beside the target.
    case createTemporary = "create-temporary"
    /// Writing the bytes of the temporary file.
    case writeTemporary = "write-temporary"
    /// `fsync` of the temporary file.
    case syncTemporary = "sync-temporary"
    /// Renaming the temporary file over the target.
    case rename
    /// `fsync` of the directory after the rename.
    case syncDirectory = "sync-directory"
    /// Committing a Vault write's intent (its new sequence) to the trust ledger, before the
    /// record file is touched.
    case ledgerIntent = "ledger-intent"
    /// Committing that the announced sequence was published, after the rename.
    case ledgerConfirm = "ledger-confirm"
}

/// What happens at an armed ``FaultPoint``.
package enum Fault: Sendable, Equatable {
    /// The step fails with this errno, as if the system call had.
    case fail(Errno)
    /// The process dies on the spot (`_exit`), as if killed between two steps.
    case terminateProcess
}

/// The seam through which tests make storage steps fail, modelled on swift-system's mocking:
/// production code calls ``check(_:)`` before each step; in release builds that is a no-op.
///
/// Tests arm faults in-process with ``arm(_:at:afterPassing:)``; child processes are armed through
/// the environment variable `GROUPVAULT_FAULT=<point>:<errno number|terminate>[:<passes>]`
/// (debug builds only), so a multi-process test can kill a writer at an exact step.
package enum FaultInjection {
    private struct Armed {
        var fault: Fault
        var remainingPasses: Int
    }

    #if DEBUG
    private static let armed = Mutex<[FaultPoint: Armed]>(FaultInjection.fromEnvironment())

    private static func fromEnvironment() -> [FaultPoint: Armed] {
        guard let value = getenv("GROUPVAULT_FAULT").map({ String(cString: $0) }) else { return [:] }
        let parts = value.split(separator: ":").map(String.init)
        guard parts.count >= 2, let point = FaultPoint(rawValue: parts[0]) else { return [:] }
        let fault: Fault
        if parts[1] == "terminate" {
            fault = .terminateProcess
        } else if let code = Int32(parts[1]) {
            fault = .fail(Errno(rawValue: code))
        } else {
            return [:]
        }
        let passes = parts.count > 2 ? Int(parts[2]) ?? 0 : 0
        return [point: Armed(fault: fault, remainingPasses: passes)]
    }
    #endif

    /// Arms `fault` at `point`: the first `passes` arrivals go through, the next one faults,
    /// and the fault then disarms itself.
    package static func arm(_ fault: Fault, at point: FaultPoint, afterPassing passes: Int = 0) {
        #if DEBUG
        armed.withLock { $0[point] = Armed(fault: fault, remainingPasses: passes) }
        #endif
    }

    /// Removes every armed fault.
    package static func disarmAll() {
        #if DEBUG
        armed.withLock { $0.removeAll() }
        #endif
    }

    /// Called by storage code immediately before `point`; throws or exits if a fault is due.
    package static func check(_ point: FaultPoint) throws(Errno) {
        #if DEBUG
        let due: Fault? = armed.withLock { table in
            guard var entry = table[point] else { return nil }
            if entry.remainingPasses > 0 {
                entry.remainingPasses -= 1
                table[point] = entry
                return nil
            }
            table[point] = nil
            return entry.fault
        }
        switch due {
        case nil: return
        case .fail(let errno): throw errno
        case .terminateProcess: _exit(137)
        }
        #endif
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
