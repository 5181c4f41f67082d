#if !canImport(Darwin)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The keyring the `Security` module's SecItem functions and
/// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` act as: this process's
/// identity and home.
///
/// It lives in Keyring, not in `Security`, because that module exports Apple's names only;
/// programs and KeyringTestSupport reach it here.
///
/// On Apple platforms the process identity comes from the code signature. Here it comes from
/// the environment on first use, once, through ``Keyring/fromEnvironment(_:)``:
/// `GROUPVAULT_ENTITLEMENTS` (an Xcode `.entitlements` file), `GROUPVAULT_TEAM_ID`,
/// `GROUPVAULT_BUNDLE_ID` and `GROUPVAULT_HOME`. A program that builds its identity in code
/// installs it with ``use(_:)``; tests use `TestKeychain` from KeyringTestSupport.
///
/// ```swift
/// ProcessKeyring.use(Keyring(identity: identity, home: KeyringHome(root: url)))
/// let status = SecItemCopyMatching(query as CFDictionary, &result)
/// if status != errSecSuccess { print(ProcessKeyring.lastError?.reason ?? "") }
/// ```
public enum ProcessKeyring {
    /// Where the process keyring stands: not yet looked at, resolved, or failed to resolve.
    package enum Resolution: Sendable {
        /// The environment has not been read yet; the next SecItem call reads it.
        case unresolved
        /// SecItem calls act as this keyring.
        case resolved(Keyring)
        /// The environment could not produce an identity; every SecItem call returns this error.
        case failed(KeyringError)
    }

    private struct State: Sendable {
        var resolution: Resolution = .unresolved
        var pendingFailure: KeyringError?
        var lastError: KeyringError?
    }

    // One process-wide state, as the code signature is on Apple platforms; locked because
    // SecItem functions are called from any thread.
    private static let state = Locked(State())

    /// The process keyring, resolving it from the environment on first use.
    ///
    /// - Throws: ``KeyringStatus/missingEntitlement`` or ``KeyringStatus/notAvailable`` (with the
    ///   environment's problem as the reason) when no identity can be built; the failure is
    ///   remembered, like a missing code signature, until ``use(_:)`` installs a keyring.
    public static func current() throws(KeyringError) -> Keyring {
        let resolution = state.withLock { state in
            if case .unresolved = state.resolution {
                state.resolution = resolveFromEnvironment()
            }
            return state.resolution
        }
        switch resolution {
        case .resolved(let keyring): return keyring
        case .failed(let error): throw error
        case .unresolved: throw KeyringError(.notAvailable, "the process keyring could not be resolved")
        }
    }

    /// Makes SecItem calls in this process act as `keyring` from now on.
    public static func use(_ keyring: Keyring) {
        state.withLock { $0.resolution = .resolved(keyring) }
    }

    /// Why the most recent failing SecItem call in this process failed, for diagnostics.
    ///
    /// `SecCopyErrorMessageString` gives only the generic message for a status; this names the
    /// group, key or limit involved. It is process-wide and not cleared by later successes, so
    /// with concurrent callers it may describe another thread's call. Never contains secret bytes.
    public static var lastError: KeyringError? {
        state.withLock { $0.lastError }
    }

    // MARK: Seams for SecItem functions and KeyringTestSupport

    /// Replaces the resolution and returns the previous one, so a test can put it back.
    package static func exchange(_ resolution: Resolution) -> Resolution {
        state.withLock { state in
            let previous = state.resolution
            state.resolution = resolution
            return previous
        }
    }

    /// Makes the next SecItem call (any of the four) fail with `error`, as a device would.
    package static func failNextOperation(with error: KeyringError?) {
        state.withLock { $0.pendingFailure = error }
    }

    /// Takes the failure armed by ``failNextOperation(with:)``, if any.
    package static func takePendingFailure() -> KeyringError? {
        state.withLock { state in
            defer { state.pendingFailure = nil }
            return state.pendingFailure
        }
    }

    /// Records the reason of a failed call for ``lastError``.
    package static func record(_ error: KeyringError) {
        state.withLock { $0.lastError = error }
    }

    /// Clears ``lastError``.
    package static func clearLastError() {
        state.withLock { $0.lastError = nil }
    }

    private static func resolveFromEnvironment() -> Resolution {
        do {
            return .resolved(try Keyring.fromEnvironment())
        } catch {
            // A device reports an unsigned or unentitled process as errSecMissingEntitlement and
            // an unusable store as errSecNotAvailable; anything else the environment gets wrong
            // (a malformed entitlements file, a bad team id) means no keychain can be opened.
            switch error.status {
            case .missingEntitlement, .notAvailable:
                return .failed(KeyringError(error.status, "process identity from the environment: \(error.reason)", underlyingError: error, remedy: error.remedy))
            default:
                return .failed(KeyringError(.notAvailable, "process identity from the environment: \(error)", underlyingError: error))
            }
        }
    }
}
#endif
