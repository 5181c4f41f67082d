#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Passphrase mode: a home whose secrets exist on disk only under a passphrase, and whose lock
/// state is a state of the machine rather than a file anyone may rewrite.
///
/// Two secrets, because the two lock states that matter need two lifetimes:
///
/// - the **unlock key** (32 random bytes) seals `WhenUnlocked`-class item rows (through a key
///   derived from it: `crypto_kdf`, context `GVUNLOCK`, id 2). In the clear it exists only
///   between `unlock` and `lock`;
/// - the **master secret** (the one a home without a passphrase keeps in `master.key`) seals
///   everything else: the database binding, the ledger, group keys, `AfterFirstUnlock` and
///   `Always` rows. In the clear it exists from the first unlock until logout or reboot, which
///   is what `AfterFirstUnlock` promises.
///
/// On disk, in `Keychains/`:
///
/// - `passphrase.wrapped`: the unlock key under an Argon2id-derived key
///   (``PassphraseWrappedKey``: salt and parameters stored and authenticated). Its presence puts
///   the home in passphrase mode; `passphrase change` and a parameter upgrade rewrite only it.
/// - `master.key.sealed`: the master secret, XChaCha20-Poly1305-sealed under a key derived from
///   the unlock key (`GVUNLOCK`, id 1): `0x01 | nonce (24) | sealed secret and tag (48)`, the
///   additional data `"GVMK" | 0x01`.
///
/// In the per-user runtime directory, `$XDG_RUNTIME_DIR/groupvault/` (a tmpfs the system
/// empties at logout and reboot, checked to be ours and private), two files per home, named
/// after ``KeyringHome/homeIdentifier``, each mode 0600:
///
/// - `<id>.master`: the master secret, written by `unlock`, kept by `lock`;
/// - `<id>.unlock`: the unlock key, written by `unlock`, removed by `lock`.
///
/// The state is derived from them: no `<id>.master` is ``DeviceLockState/beforeFirstUnlock``
/// (nothing at all can be opened: the master secret exists only sealed); `<id>.master` without
/// `<id>.unlock` is ``DeviceLockState/locked``; both is ``DeviceLockState/unlocked``. While
/// locked, a `WhenUnlocked` row cannot be decrypted by anyone, this library or a process reading
/// the files itself: its key is not on the machine in the clear (ItemTable, format 2).
extension KeyringHome {
    /// The wrapped unlock key's file name in `Keychains/`.
    static let wrappedUnlockKeyName = "passphrase.wrapped"
    /// The sealed master secret's file name in `Keychains/`.
    static let sealedMasterKeyName = "master.key.sealed"

    /// The wrapped unlock key; its presence puts the home in passphrase mode. For messages and
    /// tools: the home reads it relative to its held keychains directory.
    package var wrappedUnlockKeyPath: FilePath { keychainsDirectory.appending(Self.wrappedUnlockKeyName) }

    /// The master secret sealed under the unlock key (for messages, as ``wrappedUnlockKeyPath``).
    package var sealedMasterKeyPath: FilePath { keychainsDirectory.appending(Self.sealedMasterKeyName) }

    /// The Argon2id cost of new wraps, and the level `unlock` upgrades weaker wraps to.
    /// libsodium's `MODERATE` limits; never lowered for tests (they pass their own parameters).
    package static let currentPassphraseParameters = PassphraseWrappedKey.Parameters.moderate

    /// Names this home's files in the runtime directory: the first 16 bytes of the BLAKE2b
    /// digest of the root path, in hexadecimal. A moved home is a new identifier (unlock again).
    public var homeIdentifier: String {
        Hex.lowercase(Digest.blake2b256(Array(rootPath.string.utf8)).prefix(16))
    }

    /// Whether this home is in passphrase mode (`Keychains/passphrase.wrapped` exists).
    public func isPassphraseProtected() throws(KeyringError) -> Bool {
        try isPassphraseProtected(checkedKeychains())
    }

    /// ``isPassphraseProtected()`` in the `Keychains/` this operation already checked.
    package func isPassphraseProtected(_ checked: CheckedKeychains) throws(KeyringError) -> Bool {
        let status = try mapStorage("look for the wrapped unlock key") { () throws(StorageError) -> Stat? in
            // Looked up in the held keychains directory; a home without one has no passphrase.
            guard let keychains = checked.handle else { return nil }
            return try directories.status(of: Self.wrappedUnlockKeyName, in: keychains, as: checked.look)
        }
        return status != nil
    }

    /// The home's `Keychains/` as one operation uses it: looked up, and its held descriptor's
    /// owner and mode checked, once, then handed to each step of the operation (passphrase
    /// mode, lock state, master secret) instead of being checked again by each.
    package struct CheckedKeychains: Sendable {
        /// The directory, or `nil` when the home has none yet.
        package let handle: DirectoryHandle?
        /// The operation's look at the home's directories, taken before its first check
        /// (``HomeDirectories/Look``): each step's check answers from an earlier operation's
        /// while nothing happened to them since.
        package let look: HomeDirectories.Look?
    }

    /// `Keychains/` for one operation's steps (``CheckedKeychains``); nothing is created.
    package func checkedKeychains() throws(KeyringError) -> CheckedKeychains {
        let look = directories.look()
        return try CheckedKeychains(
            handle: mapStorage("open the keychains directory") { () throws(StorageError) in try directories.existingKeychains(as: look) },
            look: look)
    }

    // MARK: Runtime directory

    /// This home's files in the per-user runtime directory.
    package struct RuntimeFiles: Sendable {
        /// `$XDG_RUNTIME_DIR/groupvault`.
        package let directory: FilePath
        /// The master secret: present from the first unlock until logout or reboot.
        package let master: FilePath
        /// The unlock key: present between `unlock` and `lock`.
        package let unlockKey: FilePath
        /// `directory`, opened `O_NOFOLLOW` relative to the vetted `XDG_RUNTIME_DIR` and held:
        /// every file above is used relative to it. `nil` when it does not exist (and was not
        /// to be created): then neither file does.
        package let handle: DirectoryHandle?

        /// The file name of ``master`` in ``directory``.
        var masterName: String { master.lastComponent?.string ?? "" }
        /// The file name of ``unlockKey`` in ``directory``.
        var unlockKeyName: String { unlockKey.lastComponent?.string ?? "" }
    }

    /// The runtime files, after checking `XDG_RUNTIME_DIR`: set, absolute, a real directory
    /// owned by this user with mode 0700. Anything else could be a directory another user
    /// prepared or can read, so no unwrapped secret is written there or read from there.
    /// `groupvault/` in it is created only when `creating` (by `unlock` and `passphrase set`):
    /// reading the state creates nothing, and an absent directory means no file is there.
    package func runtimeFiles(
        creating: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeyringError) -> RuntimeFiles {
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            throw KeyringError(.notAvailable, "XDG_RUNTIME_DIR is not set: a home with a passphrase keeps its unlocked keys in the per-user runtime directory (a tmpfs emptied at logout); run in a login session, or set XDG_RUNTIME_DIR to a directory you own with mode 0700")
        }
        guard runtime.hasPrefix("/") else {
            throw KeyringError(.notAvailable, "XDG_RUNTIME_DIR is \"\(GroupIdentifier.printable(runtime))\", not an absolute path: set it to a directory you own with mode 0700")
        }
        let base = FilePath(runtime)
        // Opened O_NOFOLLOW and checked through fstat of the descriptor, which is then held:
        // what is checked is what the unlocked keys are written into and read from.
        let opened: DirectoryHandle
        do {
            opened = try DirectoryHandle(opening: base, sharing: .ownerOnly)
        } catch {
            switch error.kind {
            case .wrongOwner(let owner, _):
                throw KeyringError(.notAvailable, "XDG_RUNTIME_DIR \(base) belongs to user \(owner), not to you (\(Syscall.effectiveUserID)): no unlocked key is kept there")
            case .insecurePermissions(let mode):
                throw Self.runtimeDirectoryModeRefusal(base, mode)
            case .symbolicLink, .wrongFileType, .system(.noSuchFileOrDirectory), .system(.notDirectory):
                throw KeyringError(.notAvailable, "XDG_RUNTIME_DIR \(base) is not a directory (missing, or a symbolic link): set it to a directory you own with mode 0700")
            default:
                throw KeyringError(storage: error, while: "check XDG_RUNTIME_DIR")
            }
        }
        let status = try mapStorage("check XDG_RUNTIME_DIR") { () throws(StorageError) -> Stat in
            do throws(Errno) {
                return try Syscall.status(opened.descriptor)
            } catch {
                throw StorageError(.system(error), operation: "stat directory", path: base)
            }
        }
        // Exactly 0700, not only "nothing for others": a directory the owner cannot write or
        // search is not the runtime directory the session manager made.
        let mode = UInt16(status.permissions.rawValue) & 0o777
        guard mode == 0o700 else { throw Self.runtimeDirectoryModeRefusal(base, mode) }
        let directory = base.appending("groupvault")
        let handle = try mapStorage("check the runtime directory") { () throws(StorageError) -> DirectoryHandle? in
            try opened.subdirectory("groupvault", creating: creating)
        }
        // Vetted: from now on the lock state derived from its files needs no stat of it.
        if let handle, environment["XDG_RUNTIME_DIR"] == Self.runtimeDirectoryNamed() {
            Self.vettedRuntimeDirectories.withLock { $0[runtime] = handle }
        }
        return RuntimeFiles(
            directory: directory,
            master: directory.appending("\(homeIdentifier).master"),
            unlockKey: directory.appending("\(homeIdentifier).unlock"),
            handle: handle)
    }

    private static func runtimeDirectoryModeRefusal(_ base: FilePath, _ mode: UInt16) -> KeyringError {
        KeyringError(.notAvailable, "XDG_RUNTIME_DIR \(base) has mode \(String(mode, radix: 8)), not 700: no unlocked key is kept where others may look (chmod 700 \(base))")
    }

    // MARK: Derived state and keys

    /// The lock state of a home in passphrase mode, read from the runtime directory: two
    /// `lstat`s, so a `lock` or `unlock` by any process is seen by the next call.
    package func machineLockState() throws(KeyringError) -> DeviceLockState {
        let files = try vettedRuntimeFiles()
        guard let runtime = files.handle else { return .beforeFirstUnlock }
        let (master, unlockKey) = try mapStorage("read the runtime lock state") { () throws(StorageError) in
            (try runtime.status(of: files.masterName), try runtime.status(of: files.unlockKeyName))
        }
        guard master != nil else { return .beforeFirstUnlock }
        return unlockKey == nil ? .locked : .unlocked
    }

    /// The master secret of a home in passphrase mode, from the runtime directory.
    ///
    /// - Throws: ``KeyringStatus/interactionNotAllowed`` before the first unlock since boot:
    ///   the secret exists only sealed, so nothing, not even an `Always` item, can be opened.
    package func runtimeMasterKey() throws(KeyringError) -> SymmetricKey {
        let files = try runtimeFiles()
        guard let (key, version) = try readRuntimeKeyAndVersion(files, files.masterName, named: "unlocked master secret") else {
            throw KeyringError(.interactionNotAllowed, "the keyring home \(rootPath) is protected by a passphrase and was not unlocked since boot (or login): unlock it with its passphrase", underlyingError: nil, remedy: .unlock(home: root.path))
        }
        Self.runtimeSecrets.store(key, at: files.master, version: version)
        return key
    }

    // MARK: Warm paths

    /// Runtime master secrets this process read, each valid for one version of its file.
    private static let runtimeSecrets = FileVersionCache<SymmetricKey>()

    /// The values of `XDG_RUNTIME_DIR` whose directory this process vetted
    /// (``runtimeFiles(creating:environment:)``), each with its `groupvault/` held open.
    private static let vettedRuntimeDirectories = Locked<[String: DirectoryHandle]>([:])

    /// The master secret this process already read from the runtime directory, when that file
    /// is still the same version: one `fstatat` in the held directory, no read, no guarded
    /// allocation. The runtime directory is not vetted again: the secret was read only after it
    /// was, and only that identical file (same inode and change time) serves it; a rewritten or
    /// removed file, or another `XDG_RUNTIME_DIR`, takes the full path of ``runtimeMasterKey()``.
    func heldRuntimeMasterKey() -> SymmetricKey? {
        guard let base = Self.runtimeDirectoryNamed(),
              let runtime = Self.vettedRuntimeDirectories.withLock({ $0[base] }) else { return nil }
        let stem = homeIdentifier
        guard let status = try? runtime.status(of: "\(stem).master"), status.type == .regular else { return nil }
        return Self.runtimeSecrets.value(at: runtimeFilePath(in: base, stem: stem, "master"), version: FileVersion(status))
    }

    /// ``runtimeFiles(creating:environment:)``, vetting `XDG_RUNTIME_DIR` once per process and
    /// value rather than on every call: what is derived from these files without reading them
    /// (the lock state, from which files exist) needs only their names. Every read of a secret
    /// from them still goes through the full check. A directory that passed once stays ours:
    /// only its owner (or root) can change its owner or mode, and another value of the variable
    /// is vetted anew.
    private func vettedRuntimeFiles() throws(KeyringError) -> RuntimeFiles {
        if let base = Self.runtimeDirectoryNamed(), let runtime = Self.vettedRuntimeDirectories.withLock({ $0[base] }),
           (try? runtime.isStillLinked()) == true {
            // Still linked: a logout removes the whole runtime directory, and a new login's
            // directory of the same name is vetted anew below.
            let stem = homeIdentifier
            return RuntimeFiles(
                directory: FilePath(base).appending("groupvault"),
                master: runtimeFilePath(in: base, stem: stem, "master"), unlockKey: runtimeFilePath(in: base, stem: stem, "unlock"),
                handle: runtime)
        }
        return try runtimeFiles()
    }

    /// `XDG_RUNTIME_DIR` as the environment names it now, if it is an absolute path; not checked.
    private static func runtimeDirectoryNamed() -> String? {
        guard let value = getenv("XDG_RUNTIME_DIR") else { return nil }
        let base = String(cString: value)
        return base.hasPrefix("/") ? base : nil
    }

    /// `<base>/groupvault/<stem>.<kind>`, as ``runtimeFiles(creating:environment:)`` names them
    /// (`stem` is ``homeIdentifier``, computed once by the caller: it is a digest).
    private func runtimeFilePath(in base: String, stem: String, _ kind: String) -> FilePath {
        FilePath(base).appending("groupvault").appending("\(stem).\(kind)")
    }

    /// How `WhenUnlocked`-class item rows are sealed in this home, as of now.
    package enum WhenUnlockedSealing: Sendable {
        /// No passphrase: under the master secret, like every other row (format 1).
        case masterSecret
        /// Passphrase mode, unlocked: under this key, derived from the unlock key (format 2).
        case unlockKey(SymmetricKey)
        /// Passphrase mode, locked or before the first unlock: the key is not on the machine.
        case unavailable
    }

    /// Reads the unlock key from the runtime directory when the home is in passphrase mode.
    package func whenUnlockedSealing() throws(KeyringError) -> WhenUnlockedSealing {
        guard try isPassphraseProtected() else { return .masterSecret }
        let files = try runtimeFiles()
        guard let unlockKey = try readRuntimeKey(files, files.unlockKeyName, named: "unlock key") else { return .unavailable }
        return .unlockKey(Self.itemKey(from: unlockKey))
    }

    // MARK: Passphrase operations

    /// Puts the home in passphrase mode under `passphrase` and leaves it unlocked: a new unlock
    /// key is wrapped, the master secret sealed under it, every `WhenUnlocked` row resealed
    /// under it, and `master.key` removed (SECURITY.md says what unlinking does not erase).
    ///
    /// Crash-safe order: the sealed master secret, then the runtime files, then the wrapped
    /// unlock key (from here on the home is in passphrase mode), then the rows, then
    /// `master.key`. An interruption after the wrapped key is finished by the next ``unlock(passphrase:parameters:)``.
    ///
    /// - Throws: ``KeyringStatus/duplicateItem`` when a passphrase is already set (use
    ///   ``changePassphrase(from:to:parameters:)``); ``KeyringStatus/invalidParameter`` for a
    ///   `unixGroup` home, whose members are different users with separate runtime directories;
    ///   ``KeyringStatus/notAvailable`` when `XDG_RUNTIME_DIR` is unusable (nothing changed).
    package func setPassphrase(_ passphrase: SecureBytes, parameters: PassphraseWrappedKey.Parameters = currentPassphraseParameters) throws(KeyringError) {
        guard sharing == .ownerOnly else {
            throw KeyringError(.invalidParameter, "passphrase mode needs an ownerOnly home: the members of a unixGroup home are different users, each with their own runtime directory, so one user's unlock would not unlock the others")
        }
        guard try !isPassphraseProtected() else { throw Self.alreadySet(rootPath) }
        // Checked before anything changes, so an unusable runtime directory changes nothing.
        let files = try runtimeFiles(creating: true)
        let master = try masterKey()
        try withMasterKeyLock { (keychains) throws(KeyringError) in
            guard try !isPassphraseProtected() else { throw Self.alreadySet(rootPath) }
            let unlockKey = SymmetricKey()
            let wrapped = try wrap(unlockKey, passphrase: passphrase, parameters: parameters)
            try mapStorage("write the sealed master secret") { () throws(StorageError) in
                try keychains.replace(Self.sealedMasterKeyName, with: Self.sealMaster(master, under: unlockKey), durability: .full)
            }
            try writeRuntimeKeys(master: master, unlockKey: unlockKey, to: files)
            try mapStorage("write the wrapped unlock key") { () throws(StorageError) in
                try keychains.replace(Self.wrappedUnlockKeyName, with: wrapped.encoded, durability: .full)
            }
        }
        try finishPassphraseMode()
    }

    /// Rewraps the unlock key under `new`. The unlock key, the master secret and every item are
    /// unchanged, so an unlocked home stays unlocked.
    ///
    /// - Throws: ``KeyringStatus/authenticationFailed`` when `old` is wrong (nothing changed);
    ///   ``KeyringStatus/itemNotFound`` when no passphrase is set.
    package func changePassphrase(from old: SecureBytes, to new: SecureBytes, parameters: PassphraseWrappedKey.Parameters = currentPassphraseParameters) throws(KeyringError) {
        try withMasterKeyLock { (keychains) throws(KeyringError) in
            let unlockKey = try unwrap(try readWrappedUnlockKey(in: keychains), passphrase: old)
            let rewrapped = try wrap(unlockKey, passphrase: new, parameters: parameters)
            try mapStorage("write the wrapped unlock key") { () throws(StorageError) in
                try keychains.replace(Self.wrappedUnlockKeyName, with: rewrapped.encoded, durability: .full)
            }
        }
    }

    /// Unwraps the unlock key and the master secret into the runtime directory, so the home is
    /// unlocked until ``lock()``, logout or reboot. Rewraps first when the stored Argon2id cost
    /// is below `parameters` in passes or memory; returns whether it did.
    ///
    /// A wrong passphrase costs one full Argon2id derivation with the stored parameters before
    /// it is refused: that cost is the bounded delay between guesses (no sleep is added).
    ///
    /// - Throws: ``KeyringStatus/authenticationFailed`` for a wrong passphrase (nothing changed);
    ///   ``KeyringStatus/itemNotFound`` when no passphrase is set; ``KeyringStatus/notAvailable``
    ///   when `XDG_RUNTIME_DIR` is unusable; ``KeyringStatus/decode`` for a damaged
    ///   `passphrase.wrapped` or `master.key.sealed`.
    @discardableResult
    package func unlock(passphrase: SecureBytes, parameters: PassphraseWrappedKey.Parameters = currentPassphraseParameters) throws(KeyringError) -> Bool {
        let files = try runtimeFiles(creating: true)
        let upgraded = try withMasterKeyLock { (keychains) throws(KeyringError) -> Bool in
            let wrapped = try readWrappedUnlockKey(in: keychains)
            let unlockKey = try unwrap(wrapped, passphrase: passphrase)
            let master = try openSealedMaster(with: unlockKey, in: keychains)
            let upgrade = wrapped.needsUpgrade(to: parameters)
            if upgrade {
                let rewrapped = try wrap(unlockKey, passphrase: passphrase, parameters: parameters)
                try mapStorage("upgrade the wrapped unlock key") { () throws(StorageError) in
                    try keychains.replace(Self.wrappedUnlockKeyName, with: rewrapped.encoded, durability: .full)
                }
            }
            try writeRuntimeKeys(master: master, unlockKey: unlockKey, to: files)
            return upgrade
        }
        try finishPassphraseMode()
        return upgraded
    }

    /// Locks the home: the unlock key leaves the runtime directory, so `WhenUnlocked` rows
    /// cannot be decrypted until the next unlock. The master secret stays (after first unlock).
    ///
    /// - Throws: ``KeyringStatus/itemNotFound`` when no passphrase is set.
    package func lock() throws(KeyringError) {
        guard try isPassphraseProtected() else { throw Self.noPassphrase(rootPath) }
        let files = try runtimeFiles()
        try mapStorage("remove the unlock key") { () throws(StorageError) in
            // No runtime directory: no unlock key to remove.
            try files.handle?.removeIfPresent(files.unlockKeyName)
        }
    }

    /// The Argon2id parameters stored in `passphrase.wrapped`.
    package func storedPassphraseParameters() throws(KeyringError) -> PassphraseWrappedKey.Parameters {
        guard let keychains = try mapStorage("open keyring home", { () throws(StorageError) in try directories.existingKeychains() }) else {
            throw Self.noPassphrase(rootPath)
        }
        return try readWrappedUnlockKey(in: keychains).parameters
    }

    // MARK: Parts

    /// What `setPassphrase` does after the mode is on, repeated by every unlock so an
    /// interrupted `set` completes: `WhenUnlocked` rows still under the master secret are
    /// resealed under the unlock key, then a leftover `master.key` is removed.
    private func finishPassphraseMode() throws(KeyringError) {
        try ItemTable(home: self).resealWhenUnlockedRows()
        let keychains = try keychains()
        try mapStorage("remove the plain master key") { () throws(StorageError) in
            if try keychains.removeIfPresent("master.key") { try keychains.sync() }
        }
    }

    /// Runs `body` with the held keychains directory, holding the master key's lock in it.
    private func withMasterKeyLock<Result>(_ body: (DirectoryHandle) throws(KeyringError) -> Result) throws(KeyringError) -> Result {
        let keychains = try keychains()
        do {
            return try withExclusiveLock(in: keychains, name: ".master.key.lock") {
                try body(keychains)
            }
        } catch let error as KeyringError {
            throw error
        } catch let error as StorageError {
            throw KeyringError(storage: error, while: "lock the master key")
        } catch {
            throw KeyringError(.ioError, "lock the master key failed: \(error)", underlyingError: error)
        }
    }

    private static func noPassphrase(_ root: FilePath) -> KeyringError {
        KeyringError(.itemNotFound, "the keyring home \(root) has no passphrase: set one with `vaultcli passphrase set`")
    }

    private static func alreadySet(_ root: FilePath) -> KeyringError {
        KeyringError(.duplicateItem, "the keyring home \(root) already has a passphrase: use `vaultcli passphrase change`")
    }

    /// The 32-byte key `fileName` from the runtime directory, opened relative to its held
    /// descriptor and checked to be ours and private first; `nil` when the file is absent.
    private func readRuntimeKey(_ files: RuntimeFiles, _ fileName: String, named name: String) throws(KeyringError) -> SymmetricKey? {
        try readRuntimeKeyAndVersion(files, fileName, named: name)?.key
    }

    /// ``readRuntimeKey(_:_:named:)`` with the file's version, taken before the read: what is
    /// cached under it is never older than it.
    private func readRuntimeKeyAndVersion(
        _ files: RuntimeFiles, _ fileName: String, named name: String
    ) throws(KeyringError) -> (key: SymmetricKey, version: FileVersion)? {
        guard let runtime = files.handle else { return nil }
        let path = files.directory.appending(fileName)
        var version: FileVersion?
        let read = try mapStorage("read the \(name)") { () throws(StorageError) -> [UInt8]? in
            guard let status = try runtime.status(of: fileName) else { return nil }
            version = FileVersion(status)
            // O_NOFOLLOW, a regular file, owned by this user, no group or other bits.
            return try runtime.read(fileName, maximumSize: 64)
        }
        // Moved out of `read`, so the zeroing below reaches the only copy.
        guard var bytes = consume read, let version else { return nil }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard let key = try? SymmetricKey(bytes: bytes) else {
            throw KeyringError(.decode, "the \(name) \(path) is \(bytes.count) bytes, not 32: unlock the home with its passphrase again", underlyingError: nil, remedy: .unlock(home: root.path))
        }
        return (key, version)
    }

    private func readWrappedUnlockKey(in keychains: DirectoryHandle) throws(KeyringError) -> PassphraseWrappedKey {
        let bytes = try mapStorage("read the wrapped unlock key") { () throws(StorageError) -> [UInt8]? in
            // Owner-only whatever the home's sharing mode: a passphrase home is ownerOnly.
            try keychains.read(Self.wrappedUnlockKeyName, maximumSize: 4096, forbiddenModeBits: FileSharing.ownerOnly.forbiddenBits)
        }
        guard let bytes else { throw Self.noPassphrase(rootPath) }
        do {
            return try PassphraseWrappedKey(decoding: bytes)
        } catch {
            throw KeyringError(.decode, "the wrapped unlock key \(wrappedUnlockKeyPath) is unusable: \(error); restore it from a backup", underlyingError: error, remedy: .restoreFromBackup(path: wrappedUnlockKeyPath.string))
        }
    }

    private static let sealedMasterFormat = SealedBox.Format(version: 1)
    private static var sealedMasterAdditionalData: [UInt8] { Array("GVMK".utf8) + sealedMasterFormat.bytes }

    private static func sealMaster(_ master: SymmetricKey, under unlockKey: SymmetricKey) -> [UInt8] {
        let key = KeyDerivation.deriveKey(from: unlockKey, context: "GVUNLOCK", id: 1)
        // Sealed from guarded memory: the master secret is never copied into an ordinary array.
        return SealedBox.seal(master, format: sealedMasterFormat, using: key, authenticating: sealedMasterAdditionalData).combined
    }

    private func openSealedMaster(with unlockKey: SymmetricKey, in keychains: DirectoryHandle) throws(KeyringError) -> SymmetricKey {
        let refuse = { (detail: String) in
            KeyringError(.decode, "the sealed master secret \(sealedMasterKeyPath) \(detail): restore Keychains/ from a backup")
        }
        let bytes = try mapStorage("read the sealed master secret") { () throws(StorageError) -> [UInt8]? in
            try keychains.read(Self.sealedMasterKeyName, maximumSize: 4096, forbiddenModeBits: FileSharing.ownerOnly.forbiddenBits)
        }
        guard let bytes else { throw refuse("is missing") }
        guard let box = try? SealedBox(combined: bytes, format: Self.sealedMasterFormat), box.plaintextByteCount == SymmetricKey.byteCount else {
            throw refuse("is \(bytes.count) bytes or an unknown format")
        }
        let key = KeyDerivation.deriveKey(from: unlockKey, context: "GVUNLOCK", id: 1)
        do {
            // Opened into guarded memory: the master secret is never in an ordinary array.
            return try box.openKey(using: key, authenticating: Self.sealedMasterAdditionalData)
        } catch {
            throw refuse("fails authentication (altered, or from another home)")
        }
    }

    /// The key that seals `WhenUnlocked` rows, derived from the unlock key.
    private static func itemKey(from unlockKey: SymmetricKey) -> SymmetricKey {
        KeyDerivation.deriveKey(from: unlockKey, context: "GVUNLOCK", id: 2)
    }

    private func wrap(_ key: SymmetricKey, passphrase: SecureBytes, parameters: PassphraseWrappedKey.Parameters) throws(KeyringError) -> PassphraseWrappedKey {
        do {
            return try PassphraseWrappedKey.wrap(key, passphrase: passphrase, parameters: parameters)
        } catch {
            throw KeyringError(error == .derivationFailed ? .allocationFailed : .invalidParameter, "wrap the unlock key: \(error)", underlyingError: error)
        }
    }

    private func unwrap(_ wrapped: PassphraseWrappedKey, passphrase: SecureBytes) throws(KeyringError) -> SymmetricKey {
        do {
            return try wrapped.unwrap(passphrase: passphrase)
        } catch .wrongPassphrase {
            throw KeyringError(.authenticationFailed, "refused: the passphrase is wrong (or \(wrappedUnlockKeyPath) was altered); nothing was changed")
        } catch {
            throw KeyringError(.allocationFailed, "unwrap the unlock key: \(error)", underlyingError: error)
        }
    }

    private func writeRuntimeKeys(master: SymmetricKey, unlockKey: SymmetricKey, to files: RuntimeFiles) throws(KeyringError) {
        var masterBytes = master.exportedBytes()
        var unlockBytes = unlockKey.exportedBytes()
        defer {
            for index in masterBytes.indices { masterBytes[index] = 0 }
            for index in unlockBytes.indices { unlockBytes[index] = 0 }
        }
        // A tmpfs: a directory fsync buys nothing, but no file may ever be seen half-written.
        // The master secret first, so "unlocked" never appears without "unlocked since boot".
        try mapStorage("write the unlocked keys") { () throws(StorageError) in
            guard let runtime = files.handle else {
                throw StorageError(.system(.noSuchFileOrDirectory), operation: "write the unlocked keys", path: files.directory)
            }
            try runtime.replace(files.masterName, with: masterBytes, durability: .atomic)
            try runtime.replace(files.unlockKeyName, with: unlockBytes, durability: .atomic)
        }
    }
}
