#if !canImport(Darwin)
import Foundation
import Keyring

/// Why a SecKey function failed: the `OSStatus` Apple reports for it and a reason a person can
/// act on (never key bytes). Handed to callers as an `NSOSStatusErrorDomain` `CFError`, as
/// Security.framework does.
struct SecKeyFailure: Error, Sendable, CustomStringConvertible {
    let status: OSStatus
    let reason: String

    init(_ status: OSStatus, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    /// A keyring failure (e.g. a user-presence prompt that was denied), keeping its status.
    init(_ keyringError: KeyringError) {
        self.init(keyringError.status.rawValue, keyringError.reason)
    }

    var description: String { "OSStatus \(status): \(reason)" }

    /// The error Apple code receives: domain `NSOSStatusErrorDomain`, code the status.
    var cfError: CFError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: [NSLocalizedDescriptionKey: reason])
    }

    /// Runs `body`; on failure stores the error in `errorOut` (when given) and returns nil.
    static func reporting<T>(
        _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws -> T?
    ) -> T? {
        let failure: SecKeyFailure
        do {
            return try body()
        } catch let error as SecKeyFailure {
            failure = error
        } catch let error as KeyringError {
            failure = SecKeyFailure(error)
        } catch {
            // A swift-crypto error: its description names the condition, never key bytes.
            failure = SecKeyFailure(errSecInternalComponent, "the cryptographic library failed: \(error)")
        }
        errorOut?.pointee = Unmanaged.passRetained(failure.cfError)
        return nil
    }
}
#endif
