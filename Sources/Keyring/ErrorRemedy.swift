/// What a person (or a tool acting for one) can do about an error, as a value.
///
/// The error's reason says it in a sentence; the remedy lets a tool say it its own way without
/// parsing that sentence: vaultcli prints the command to run, an app shows its unlock screen.
/// An error carries one only where the library knows the fix for certain.
///
/// ```swift
/// if error.remedy?.kind == .unlock { showUnlockScreen() }
/// ```
public struct ErrorRemedy: Sendable, Hashable, CustomStringConvertible {
    /// A kind of remedy. A struct with static members (like swift-system's `Errno`), so a kind
    /// added later does not break anyone's `switch`.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The kind's stable name, e.g. `unlock`: safe to log and to match in scripts.
        public let rawValue: String
        /// A kind by its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The kind's name.
        public var description: String { rawValue }

        /// Nothing is wrong with the data: doing the same again may succeed (a busy lock, a
        /// race with another process, a lost connection).
        public static let retry = Kind(rawValue: "retry")
        /// The home is locked: unlock it (``ErrorRemedy/path`` names the home when known). With a
        /// passphrase, whoever holds it unlocks it (`vaultcli unlock`); without one, the emulated
        /// lock state is set (`KeyringHome.setLockState(.unlocked)`).
        public static let unlock = Kind(rawValue: "unlock")
        /// The home is in passphrase mode, where its lock state is the machine's: lock it
        /// (`vaultcli lock`) rather than set a state (``ErrorRemedy/path`` names the home).
        public static let lock = Kind(rawValue: "lock")
        /// The disk or the user's quota is full: free space and retry.
        public static let freeSpace = Kind(rawValue: "freeSpace")
        /// A file or directory has the wrong owner or mode, or is not writable: fix them
        /// (``ErrorRemedy/path`` names it when known).
        public static let fixPermissions = Kind(rawValue: "fixPermissions")
        /// A file is damaged: restore it from a backup (``ErrorRemedy/path`` names it).
        public static let restoreFromBackup = Kind(rawValue: "restoreFromBackup")
        /// The group has no key (or not the one needed): import it (``ErrorRemedy/group``, and
        /// ``ErrorRemedy/keyID`` when the missing key is known).
        public static let importKey = Kind(rawValue: "importKey")
        /// The identity is not entitled to the group: add it to the entitlements
        /// (``ErrorRemedy/group``; none when the identity lacks groups altogether).
        public static let grantEntitlement = Kind(rawValue: "grantEntitlement")
        /// The group has no key yet: make its first (`groupKey(for:)` does, and so does the
        /// first record written) (``ErrorRemedy/group``).
        public static let createKey = Kind(rawValue: "createKey")
        /// Make a new primary key, so the current one no longer seals new data
        /// (`rotateKey(in:)`; ``ErrorRemedy/group``).
        public static let rotateKey = Kind(rawValue: "rotateKey")
        /// Reseal the group's records under its primary key, so no record needs an older key
        /// (`Vault.resealAll`; ``ErrorRemedy/group``).
        public static let resealRecords = Kind(rawValue: "resealRecords")
        /// Run a command (``ErrorRemedy/command``).
        public static let runCommand = Kind(rawValue: "runCommand")
    }

    /// What to do.
    public var kind: Kind
    /// The access or application group it concerns, when there is one.
    public var group: String?
    /// The file or directory it concerns, when there is one.
    public var path: String?
    /// The key it concerns, by its id in the group's keyset, when there is one (the key to
    /// import, for ``Kind/importKey``).
    public var keyID: UInt32?
    /// The command to run, for ``Kind/runCommand``.
    public var command: String?

    /// A remedy of `kind` with the facts it needs.
    public init(_ kind: Kind, group: String? = nil, keyID: UInt32? = nil, path: String? = nil, command: String? = nil) {
        self.kind = kind
        self.group = group
        self.keyID = keyID
        self.path = path
        self.command = command
    }

    /// Do the same again.
    public static let retry = ErrorRemedy(.retry)
    /// Unlock the home.
    public static let unlock = ErrorRemedy(.unlock)
    /// Free disk space, then retry.
    public static let freeSpace = ErrorRemedy(.freeSpace)

    /// Unlock the home at `home` (its root directory).
    public static func unlock(home: String) -> ErrorRemedy { ErrorRemedy(.unlock, path: home) }
    /// Lock the home at `home` (its root directory).
    public static func lock(home: String) -> ErrorRemedy { ErrorRemedy(.lock, path: home) }
    /// Import the key of `group`, key `keyID` when the missing one is known.
    public static func importKey(group: String, keyID: UInt32? = nil) -> ErrorRemedy { ErrorRemedy(.importKey, group: group, keyID: keyID) }
    /// Make the first key of `group`.
    public static func createKey(group: String) -> ErrorRemedy { ErrorRemedy(.createKey, group: group) }
    /// Make a new primary key for `group`.
    public static func rotateKey(group: String) -> ErrorRemedy { ErrorRemedy(.rotateKey, group: group) }
    /// Reseal the records of `group` under its primary key.
    public static func resealRecords(group: String) -> ErrorRemedy { ErrorRemedy(.resealRecords, group: group) }
    /// Entitle the identity to `group`.
    public static func grantEntitlement(group: String) -> ErrorRemedy { ErrorRemedy(.grantEntitlement, group: group) }
    /// Fix the owner or mode of `path`.
    public static func fixPermissions(path: String) -> ErrorRemedy { ErrorRemedy(.fixPermissions, path: path) }
    /// Restore `path` from a backup.
    public static func restoreFromBackup(path: String) -> ErrorRemedy { ErrorRemedy(.restoreFromBackup, path: path) }
    /// Run `command`.
    public static func runCommand(_ command: String) -> ErrorRemedy { ErrorRemedy(.runCommand, command: command) }

    /// `importKey(group: com.example.shared)`.
    public var description: String {
        let facts = [("group", group), ("key", keyID.map { "#\($0)" }), ("path", path), ("command", command)].compactMap { name, value in value.map { "\(name): \($0)" } }
        return facts.isEmpty ? kind.rawValue : "\(kind.rawValue)(\(facts.joined(separator: ", ")))"
    }
}
