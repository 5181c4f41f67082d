#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import SystemPackage

/// The root of all GroupVault storage: keychains, group containers and the device lock state.
///
/// Layout (see docs/STORAGE.md):
/// ```
/// <root>/Keychains/master.key            32-byte master secret, mode 0600
/// <root>/Keychains/passphrase.wrapped    passphrase mode only (Keys/MasterKeyWrapping.swift):
///                                        the unlock key under an Argon2id-derived key
/// <root>/Keychains/master.key.sealed     passphrase mode only, instead of master.key: the
///                                        master secret sealed under the unlock key
/// <root>/Keychains/device-lock-state     beforeFirstUnlock | locked | unlocked (emulated; not
///                                        read in passphrase mode, whose state is the machine's)
/// <root>/Keychains/keyring.db            the keyring database: items, keysets, trust ledger
///                                        (with its -wal and -shm files)
/// <root>/Keychains/<access group>/       only in homes made before the database: the sealed
///                                        files it imports once, then keeps unchanged
/// <root>/Group Containers/<app group>/   the shared containers
/// ```
///
/// Every file of the home is used relative to a directory held open by descriptor
/// (`HomeDirectories`), never by its path: in the `unixGroup` sharing mode other members can
/// swap a directory of the home for a symbolic link, and a held directory does not follow it.
/// Copies of a home share its held directories; two homes are equal when their root and
/// sharing mode are.
public struct KeyringHome: Sendable, Hashable, CustomStringConvertible {
    /// The root directory.
    public let root: URL
    /// Who besides the owner may use the files.
    public let sharing: StorageSharing

    // The fixed paths, computed once: every operation uses several of them, and building a
    // FilePath is not free (swift-system checks its invariants on every append in debug builds).
    package let rootPath: FilePath
    package let keychainsDirectory: FilePath
    package let containersDirectory: FilePath
    package let masterKeyPath: FilePath
    package let lockStatePath: FilePath
    package let databasePath: FilePath
    /// The root, `Keychains/` and `Group Containers/`, opened on first use and then held.
    package let directories: HomeDirectories

    /// A home rooted at `root`. Nothing is created until first use.
    public init(root: URL, sharing: StorageSharing = .ownerOnly) {
        self.root = root.standardizedFileURL
        self.sharing = sharing
        rootPath = FilePath(self.root.path)
        keychainsDirectory = rootPath.appending("Keychains")
        containersDirectory = rootPath.appending("Group Containers")
        masterKeyPath = keychainsDirectory.appending("master.key")
        lockStatePath = keychainsDirectory.appending("device-lock-state")
        databasePath = keychainsDirectory.appending(KeyringDatabase.fileName)
        directories = HomeDirectories(rootPath: rootPath, sharing: sharing.fileSharing)
    }

    /// Equal when the root and the sharing mode are: the held directories are a cache of them.
    public static func == (lhs: KeyringHome, rhs: KeyringHome) -> Bool {
        lhs.root == rhs.root && lhs.sharing == rhs.sharing
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(root)
        hasher.combine(sharing)
    }

    /// The home named by the environment: `GROUPVAULT_HOME`, else `$XDG_DATA_HOME/groupvault`,
    /// else `~/.local/share/groupvault`. `GROUPVAULT_SHARING=unixGroup` selects group sharing.
    ///
    /// - Throws: ``KeyringStatus/invalidParameter`` when `GROUPVAULT_SHARING` is set to anything
    ///   but `ownerOnly` or `unixGroup`: a typo must not silently select another sharing mode.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeyringError) -> KeyringHome {
        var sharing = StorageSharing.ownerOnly
        if let named = environment["GROUPVAULT_SHARING"], !named.isEmpty {
            guard let valid = StorageSharing(rawValue: named) else {
                throw KeyringError(.invalidParameter, "GROUPVAULT_SHARING is \"\(GroupIdentifier.printable(named))\"; use \"ownerOnly\" (the default) or \"unixGroup\"")
            }
            sharing = valid
        }
        if let explicit = environment["GROUPVAULT_HOME"], !explicit.isEmpty {
            return KeyringHome(root: URL(fileURLWithPath: explicit, isDirectory: true), sharing: sharing)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return KeyringHome(root: URL(fileURLWithPath: data).appendingPathComponent("groupvault", isDirectory: true), sharing: sharing)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return KeyringHome(
            root: URL(fileURLWithPath: home).appendingPathComponent(".local/share/groupvault", isDirectory: true),
            sharing: sharing)
    }

    /// The root path and sharing mode.
    public var description: String { "KeyringHome(\(root.path), \(sharing.rawValue))" }

    // MARK: Paths


    /// The directory holding the sealed files of one access group.
    package func keychainDirectory(for group: GroupIdentifier) -> FilePath {
        keychainsDirectory.appending(group.rawValue)
    }

    /// The group container of one application group: `<root>/Group Containers/<group>`.
    package func containerDirectory(for group: GroupIdentifier) -> FilePath {
        containersDirectory.appending(group.rawValue)
    }

    /// Creates (if needed), vets and holds the keychains directory and the root.
    package func prepareKeychains() throws(KeyringError) {
        _ = try keychains()
    }

    /// The keychains directory, created (if needed), vetted and held.
    package func keychains() throws(KeyringError) -> DirectoryHandle {
        try mapStorage("open keyring home") { () throws(StorageError) in try directories.keychains() }
    }

    /// Creates (if needed) and vets the directory of one access group's keychain, relative to
    /// the held keychains directory; its path, for messages and tools.
    package func prepareKeychain(for group: GroupIdentifier) throws(KeyringError) -> FilePath {
        try keychain(for: group, creating: true)?.path ?? keychainDirectory(for: group)
    }

    /// The directory of one access group's keychain (the earlier layout's sealed documents),
    /// opened `O_NOFOLLOW` relative to the held keychains directory and vetted; `nil` when it
    /// does not exist and not `creating` (nor does the home: nothing is created for a read).
    package func keychain(for group: GroupIdentifier, creating: Bool) throws(KeyringError) -> DirectoryHandle? {
        try mapStorage("open keychain for \(group)") { () throws(StorageError) -> DirectoryHandle? in
            guard let keychains = creating ? try directories.keychains() : try directories.existingKeychains() else { return nil }
            return try keychains.subdirectory(group.rawValue, creating: creating)
        }
    }

    // MARK: Master secret

    /// The 32-byte master secret of this home, created on first use.
    ///
    /// Creation happens under a cross-process lock and by atomic replacement, so two processes
    /// starting at once agree on one secret and neither can read a half-written file.
    package func masterKey() throws(KeyringError) -> SymmetricKey {
        try masterKey(inPassphraseMode: nil)
    }

    /// ``masterKey()`` for a caller that already looked whether the home is in passphrase mode
    /// (``isPassphraseProtected()``) in the same operation: one `lstat` fewer when warm, and
    /// with `checked`, no second check of `Keychains/`. The full path does not trust the hints
    /// and looks again.
    package func masterKey(inPassphraseMode knownMode: Bool?, _ checked: CheckedKeychains? = nil) throws(KeyringError) -> SymmetricKey {
        if let held = heldMasterKey(inPassphraseMode: knownMode, checked) { return held }
        let keychains = try keychains()
        // Passphrase mode (Keys/MasterKeyWrapping.swift): the secret is only in the runtime directory.
        if try isPassphraseProtected() { return try runtimeMasterKey() }
        if let existing = try readMasterKey(in: keychains) { return existing }
        do {
            return try withExclusiveLock(in: keychains, name: ".master.key.lock") {
                if let existing = try readMasterKey(in: keychains) { return existing }
                let key = SymmetricKey()
                var bytes = key.exportedBytes()
                defer { for index in bytes.indices { bytes[index] = 0 } }
                try keychains.replace("master.key", with: bytes, durability: .full)
                return key
            }
        } catch let error as KeyringError {
            throw error
        } catch let error as StorageError {
            throw KeyringError(storage: error, while: "create master key")
        } catch {
            throw KeyringError(.ioError, "create master key failed: \(error)", underlyingError: error)
        }
    }

    /// The key that seals this home's keyring documents, derived from the master secret
    /// (`crypto_kdf`, context `GVKEYRNG`, id 1) once per version of `master.key` in a process.
    package func documentKey() throws(KeyringError) -> SymmetricKey {
        _ = try masterKey()
        if let secrets = try cachedSecrets() { return secrets.documents }
        // The master key file changed between the two looks: derive from what is there now.
        return KeyDerivation.deriveKey(from: try masterKey(), context: "GVKEYRNG", id: 1)
    }

    /// The master secret and what is derived from it, as read from one version of the file.
    private struct Secrets: Sendable {
        let master: SymmetricKey
        let documents: SymmetricKey
    }

    /// Per process: reading `master.key` is an open, a read and a guarded allocation; a warm
    /// operation needs only an `lstat` to know it is still the same file.
    private static let secrets = FileVersionCache<Secrets>()

    /// The master secret this process already read, when the home's two held directories still
    /// pass their check and the file the secret was read from is still the same version
    /// (``FileVersion``): two `fstat`s and two `fstatat`s, no read, no guarded allocation. `nil` sends the caller
    /// down the full path, which vets the directories, reads the file and reports any problem
    /// with a reason; so does any error here.
    ///
    /// The secret is only served while its file is exactly the version read (same inode, same
    /// change time, which no one can set back), so swapping the file or the directory above it
    /// takes the full path anyway. The directories are still checked on every use (one `fstat`
    /// of the held descriptor each), because a directory opened beyond the sharing mode does not change the file's
    /// version, and SECURITY.md's first layer refuses such a home before each use
    /// (`WarmLookupTests.testAKeychainsDirectoryOpenedToOthersIsRefusedByTheNextWarmLookup`).
    private func heldMasterKey(inPassphraseMode knownMode: Bool?, _ checked: CheckedKeychains?) -> SymmetricKey? {
        let keychains: DirectoryHandle
        do throws(StorageError) {
            // The root's held descriptor is vetted too: `existingKeychains` checks only its own.
            _ = try directories.root(as: checked?.look)
            let found = if let checked { checked.handle } else { try directories.existingKeychains() }
            guard let existing = found else { return nil }
            keychains = existing
        } catch {
            return nil
        }
        // Passphrase mode first: while `set` finishes, master.key and passphrase.wrapped both
        // exist, and the passphrase mode is the one that holds.
        let passphraseMode: Bool
        if let knownMode {
            passphraseMode = knownMode
        } else {
            do {
                passphraseMode = try directories.status(of: Self.wrappedUnlockKeyName, in: keychains, as: checked?.look) != nil
            } catch {
                return nil
            }
        }
        if passphraseMode { return heldRuntimeMasterKey() }
        guard let status = try? directories.status(of: "master.key", in: keychains, as: checked?.look), status.type == .regular else { return nil }
        return Self.secrets.value(at: masterKeyPath, version: FileVersion(status))?.master
    }

    private func cachedSecrets() throws(KeyringError) -> Secrets? {
        let keychains = try keychains()
        let status = try mapStorage("read master key") { () throws(StorageError) in try keychains.status(of: "master.key") }
        guard let status, status.type == .regular else { return nil }
        return Self.secrets.value(at: masterKeyPath, version: FileVersion(status))
    }

    /// `master.key` in the held keychains directory, or `nil` when there is none.
    private func readMasterKey(in keychains: DirectoryHandle) throws(KeyringError) -> SymmetricKey? {
        // The version is taken before the read, so what is cached is never older than it.
        let status = try mapStorage("read master key") { () throws(StorageError) in try keychains.status(of: "master.key") }
        if let status, status.type == .regular, let cached = Self.secrets.value(at: masterKeyPath, version: FileVersion(status)) {
            return cached.master
        }
        let bytes = try mapStorage("read master key") { () throws(StorageError) -> [UInt8]? in
            // Opened O_NOFOLLOW relative to the held directory and vetted on the descriptor:
            // a regular file, owned and moded as the sharing mode allows.
            try keychains.read("master.key", maximumSize: 64)
        }
        guard var bytes else { return nil }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard let key = try? SymmetricKey(bytes: bytes) else {
            throw KeyringError(.decode, "master key file \(masterKeyPath) is \(bytes.count) bytes, not 32: it is corrupted; restore it from a backup (without it the keychains cannot be opened)")
        }
        if let status, status.type == .regular {
            let documents = KeyDerivation.deriveKey(from: key, context: "GVKEYRNG", id: 1)
            Self.secrets.store(Secrets(master: key, documents: documents), at: masterKeyPath, version: FileVersion(status))
        }
        return key
    }

    // MARK: Device lock state

    /// The current lock state: in passphrase mode the machine's (derived from the runtime
    /// directory, see Keys/MasterKeyWrapping.swift); otherwise the emulated one, and a home
    /// that never set one is ``DeviceLockState/unlocked``.
    public func lockState() throws(KeyringError) -> DeviceLockState {
        try lockState(inPassphraseMode: isPassphraseProtected())
    }

    /// ``lockState()`` for a caller that already looked whether the home is in passphrase mode
    /// (``isPassphraseProtected()``) in the same operation, and so makes one `lstat` fewer;
    /// with `checked`, the `Keychains/` that operation already checked.
    package func lockState(inPassphraseMode: Bool, _ checked: CheckedKeychains? = nil) throws(KeyringError) -> DeviceLockState {
        if inPassphraseMode { return try machineLockState() }
        // Concluded by an earlier operation after a look that found what this one's finds.
        if let known = directories.rememberedConclusions(as: checked?.look).lockState { return known }
        let state = try lockStateOutsidePassphraseMode(checked)
        directories.remember({ $0.lockState = state }, as: checked?.look)
        return state
    }

    private func lockStateOutsidePassphraseMode(_ checked: CheckedKeychains?) throws(KeyringError) -> DeviceLockState {
        // Read relative to the held keychains directory; a home without one was never locked.
        let found = if let checked {
            checked.handle
        } else {
            try mapStorage("read device lock state", { () throws(StorageError) in try directories.existingKeychains() })
        }
        guard let keychains = found else { return .unlocked }
        // One fstatat when the file did not change since this process last read it, none when
        // the operation's look shows that nothing happened to the home's directories since.
        let status = try mapStorage("read device lock state") { () throws(StorageError) in
            try directories.status(of: "device-lock-state", in: keychains, as: checked?.look)
        }
        guard let status else { return .unlocked }
        let version = FileVersion(status)
        if status.type == .regular, let cached = Self.lockStates.value(at: lockStatePath, version: version) { return cached }
        let bytes = try mapStorage("read device lock state") { () throws(StorageError) in
            // Only write bits are forbidden beyond the sharing mode's: the state is no secret,
            // but one that others could rewrite in place would not be the home's.
            try keychains.read("device-lock-state", maximumSize: 64, forbiddenModeBits: sharing.fileSharing.forbiddenBits & 0o222)
        }
        guard let bytes else { return .unlocked }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
        guard let state = DeviceLockState(rawValue: text) else {
            throw KeyringError(.decode, "device lock state file \(lockStatePath) holds an unknown state; write one of \(DeviceLockState.allCases.map(\.rawValue))")
        }
        Self.lockStates.store(state, at: lockStatePath, version: version)
        return state
    }

    private static let lockStates = FileVersionCache<DeviceLockState>()

    /// Sets the emulated lock state for every process using this home.
    ///
    /// - Throws: ``KeyringStatus/invalidParameter`` in passphrase mode, where the state is the
    ///   machine's: only `unlock` (with the passphrase) and `lock` change it.
    public func setLockState(_ state: DeviceLockState) throws(KeyringError) {
        if try isPassphraseProtected() {
            throw KeyringError(.invalidParameter, "the keyring home \(rootPath) is protected by a passphrase: its lock state is the machine's, changed only by unlocking with the passphrase and by locking",
                underlyingError: nil, remedy: state == .unlocked ? .unlock(home: root.path) : .lock(home: root.path))
        }
        let keychains = try keychains()
        try mapStorage("write device lock state") { () throws(StorageError) in
            try keychains.replace("device-lock-state", with: Array((state.rawValue + "\n").utf8), durability: .full)
        }
    }

    // MARK: Error mapping

    @discardableResult
    package func mapStorage<Result>(_ operation: String, _ body: () throws(StorageError) -> Result) throws(KeyringError) -> Result {
        do {
            return try body()
        } catch {
            throw KeyringError(storage: error, while: operation)
        }
    }
}

extension KeyringError {
    /// Translates a storage failure into the status a device would report, keeping the
    /// `StorageError` (and through it the `Errno`) as the cause and its remedy.
    package init(storage error: StorageError, while operation: String) {
        let status: KeyringStatus
        switch error.kind {
        case .system(let errno) where errno == .permissionDenied || errno == .notPermitted || errno == .readOnlyFileSystem:
            status = .writePermission
        case .system, .notDurable:
            status = .ioError
        case .tooLarge:
            status = .dataTooLarge
        case .symbolicLink, .wrongFileType, .wrongOwner, .outsideSharedGroup, .insecurePermissions:
            status = .notAvailable
        }
        self.init(status, "\(operation): \(error)", underlyingError: error, remedy: error.remedy)
    }
}
