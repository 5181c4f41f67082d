/// When an item can be read, relative to the emulated device lock state
/// (`kSecAttrAccessible`). Raw values are Apple's exact strings.
public enum Accessibility: String, Sendable, Hashable, Codable, CaseIterable {
    /// `kSecAttrAccessibleWhenUnlocked` (`ak`): the default.
    case whenUnlocked = "ak"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` (`aku`).
    case whenUnlockedThisDeviceOnly = "aku"
    /// `kSecAttrAccessibleAfterFirstUnlock` (`ck`): what widgets and background work need.
    case afterFirstUnlock = "ck"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (`cku`).
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` (`akpu`).
    case whenPasscodeSetThisDeviceOnly = "akpu"
    /// `kSecAttrAccessibleAlways` (`dk`), deprecated by Apple.
    case always = "dk"
    /// `kSecAttrAccessibleAlwaysThisDeviceOnly` (`dku`), deprecated by Apple.
    case alwaysThisDeviceOnly = "dku"

    /// Whether an item of this class may be used in `state`, exactly as on a device.
    public func permitsAccess(in state: DeviceLockState) -> Bool {
        switch (self, state) {
        case (_, .unlocked), (.always, _), (.alwaysThisDeviceOnly, _): true
        case (.afterFirstUnlock, .locked), (.afterFirstUnlockThisDeviceOnly, .locked): true
        default: false
        }
    }

    /// True for the `...ThisDeviceOnly` classes, which never migrate to another device.
    public var isThisDeviceOnly: Bool { rawValue.hasSuffix("u") }
}
