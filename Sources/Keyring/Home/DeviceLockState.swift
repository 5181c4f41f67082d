/// The emulated device lock state of a keyring home, shared by every process using that home.
public enum DeviceLockState: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The device has booted but has not been unlocked since: only `Always` items are readable.
    case beforeFirstUnlock
    /// Unlocked once since boot, locked now: `AfterFirstUnlock` and `Always` items are readable.
    case locked
    /// Unlocked: everything is readable. A new home starts in this state.
    case unlocked

    /// The state's name, as stored and as `vaultcli lock-state` prints it.
    public var description: String { rawValue }
}
