import SealedStorage

/// The emulated person in front of the device: what they answer when an item protected by
/// user presence or biometry is used. Process-wide; tests set it.
public enum UserPresence {
    /// An answer to a user-presence prompt.
    public enum Response: String, Sendable, CaseIterable {
        /// The person authenticates: the operation proceeds.
        case approve
        /// The person cancels: ``KeyringStatus/userCanceled`` (`errSecUserCanceled`).
        case deny
        /// No biometry or passcode is available: ``KeyringStatus/authenticationFailed`` (`errSecAuthFailed`).
        case unavailable
    }

    private static let current = Locked<Response>(.approve)

    /// The answer every prompt in this process gets. Starts as ``Response/approve``.
    public static var response: Response {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Throws what a device would report if the emulated person answers anything but approve.
    package static func demand(for operation: String) throws(KeyringError) {
        switch response {
        case .approve: return
        case .deny: throw KeyringError(.userCanceled, "\(operation): the user-presence prompt was cancelled (UserPresence.response is .deny)")
        case .unavailable: throw KeyringError(.authenticationFailed, "\(operation): no biometry or passcode is available (UserPresence.response is .unavailable)")
        }
    }
}
