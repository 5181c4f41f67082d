import SealedStorage
import SystemPackage

/// The directories of one ``KeyringHome``, each opened once, by descriptor, and used for every
/// file in it afterwards: the root, `Keychains/` and `Group Containers/`.
///
/// Why: in the `unixGroup` sharing mode the root and `Keychains/` are writable by every member
/// of the group, so any member can rename `Keychains/` away and put a symbolic link to a
/// directory of their own in its place at any moment. Checked and then used by path, the next
/// read of `master.key` or write of `device-lock-state` would follow that link. Held by
/// descriptor, a swap is not followed: the home keeps using the directories it vetted, and a
/// directory opened after the swap refuses the link (`O_NOFOLLOW` at every level below the
/// root; ``DirectoryHandle/ensure(_:sharing:)`` says why the root's own parents are not vetted).
///
/// Each directory is opened on first use and then held (a home that is only named, never used,
/// touches nothing). Every later use `fstat`s the held descriptor: owner and mode are vetted
/// again (a directory opened to others after the fact is refused by the next use), and a
/// directory that was *removed* (no name links to it any more, so nothing written there could
/// ever be read) is recreated relative to its parent and held anew, so a home survives
/// `rm -r Keychains` as it did when it addressed files by path.
///
/// In the `unixGroup` mode the root's group is the home's group: the root must carry the setgid
/// bit, and every directory and file reached from it that group (the sharing of every handle
/// says which gid), so a member's directory put in another group they share with this user is
/// refused. The root, `Keychains/` and `Group Containers/` are refused when they carry a POSIX
/// ACL, which could open them to users outside the group whatever their mode bits say.
package final class HomeDirectories: Sendable {
    private let rootPath: FilePath
    private let sharing: FileSharing
    private let held = Locked(Held())

    private struct Held: Sendable {
        var root: DirectoryHandle?
        var keychains: DirectoryHandle?
        var containers: DirectoryHandle?
        /// The watches of the held root and `Keychains/` (``DirectoryChanges``), made as each is
        /// held; `nil` where none could be made.
        var rootWatch: DirectoryChanges.Registration?
        var keychainsWatch: DirectoryChanges.Registration?
    }

    /// What the checks of operations found while both directories were watched, for the next
    /// operation whose ``Look`` shows that nothing happened to them since: the held
    /// directories vetted, and the entries of `Keychains/` looked up.
    private struct Quiet {
        var look: Look
        /// Held directories whose owner, mode and link count passed their check.
        var vetted: [ObjectIdentifier] = []
        /// Entries of the held `Keychains/`, by name: `.some(nil)` for one that was absent.
        var statuses: [String: Stat?] = [:]
        /// What an operation outside passphrase mode concluded from those checks alone: the
        /// keyring database of the home's master secret, and the lock state
        /// (``rememberedConclusions(as:)``).
        var conclusions = Conclusions()
    }

    /// What an operation concluded from its checks of the home, for the next operation whose
    /// look finds what its look found (``Look``).
    ///
    /// Each is a function of what the checks read (the passphrase's absence, `master.key`'s
    /// and `device-lock-state`'s versions, the held directories) and of this process's own
    /// tables (the databases it opened, the files it read by version), so while no check could
    /// answer differently, neither can they: remembered, a warm operation skips the checks
    /// themselves, not only their system calls. Only for a home outside passphrase mode: there
    /// the master secret and the lock state live in the runtime directory, which no watch
    /// covers.
    package struct Conclusions: Sendable {
        /// The keyring database opened for the home's master secret.
        package var database: KeyringDatabase?
        /// The home's lock state.
        package var lockState: DeviceLockState?
    }

    private let quiet = Locked<Quiet?>(nil)

    /// The keyring database's files in `Keychains/`: no check a look stands in for reads them
    /// (the database vets itself as it opens), and counting their writes would make every
    /// operation after a write, this process's own included, check everything again.
    private static let databaseFiles: Set<String> = Set(["", "-wal", "-shm", "-journal"].map { KeyringDatabase.fileName + $0 })

    /// The home's directories as one operation first finds them: whether anything happened to
    /// them since an earlier look (their watches' count of changes) and whose the process is
    /// (its effective user, whom the checks compare owners with).
    ///
    /// An operation takes one look before its first check and hands it to every check it makes
    /// (``root(as:)``, ``existingKeychains(as:)``, ``status(of:in:as:)``): while a look finds
    /// what an earlier one found, each check answers as it did then, without a system call. So
    /// a change another process finished before the look (a lock, a new master secret, a
    /// directory opened to others, a directory removed) is seen by this operation, as when
    /// every check looked itself; one made during the operation is seen by the next, as before.
    package struct Look: Sendable, Equatable {
        fileprivate let watches: [UInt64]
        fileprivate let changes: DirectoryChanges.Count
        fileprivate let userID: UInt32
    }

    /// A look at the home's directories, or `nil` when they are not both held and watched yet
    /// (the first operation of a home, or no inotify): then every check looks for itself. One
    /// `read` of the process's inotify descriptor and one `geteuid`.
    package func look() -> Look? {
        guard let changes = DirectoryChanges.shared,
              let watches = held.withLock({ held -> [DirectoryChanges.Registration]? in
                  guard let root = held.rootWatch, let keychains = held.keychainsWatch else { return nil }
                  return [root, keychains]
              })
        else { return nil }
        return Look(watches: watches.map(\.serial), changes: changes.changes(of: watches), userID: Syscall.effectiveUserID)
    }

    /// What the checks found after an earlier look that found what `look` finds, if any.
    private func remembered(_ look: Look?) -> Quiet? {
        guard let look else { return nil }
        return quiet.withLock { $0?.look == look ? $0 : nil }
    }

    /// Remembers what a check made after `look` found. A look older than the remembered one
    /// (another thread's operation saw a later change) leaves it alone.
    private func remember(_ look: Look?, _ finding: (inout Quiet) -> Void) {
        guard let look else { return }
        quiet.withLock { quiet in
            if quiet?.look != look {
                if let current = quiet?.look, current.watches == look.watches, current.userID == look.userID, current.changes > look.changes { return }
                quiet = Quiet(look: look)
            }
            finding(&quiet!)
        }
    }

    /// What operations concluded after an earlier look that found what `look` finds.
    package func rememberedConclusions(as look: Look?) -> Conclusions {
        remembered(look)?.conclusions ?? Conclusions()
    }

    /// Remembers what an operation concluded from the checks it made after `look`; the caller
    /// vouches that the home is not in passphrase mode (``Conclusions``).
    package func remember(_ conclude: (inout Conclusions) -> Void, as look: Look?) {
        remember(look) { conclude(&$0.conclusions) }
    }

    /// Forgets what every home's operations concluded, so the next operation of each checks
    /// everything again (``KeyringDatabase/closeAll()``, which must not leave a forgotten
    /// database remembered here).
    package static func forgetEveryConclusion() {
        let homes = everyHome.withLock { $0.compactMap(\.directories) }
        for home in homes { home.quiet.withLock { $0?.conclusions = Conclusions() } }
    }

    /// The entry `name` of `keychains` (``DirectoryHandle/status(of:)``), answered from an
    /// earlier lookup when `look` shows that nothing happened to the home's directories since.
    /// `keychains` must be the held `Keychains/` (``existingKeychains(as:)``); another handle
    /// is always looked up.
    package func status(of name: String, in keychains: DirectoryHandle, as look: Look?) throws(StorageError) -> Stat? {
        let held = self.held.withLock { $0.keychains } === keychains
        if held, let known = remembered(look)?.statuses[name] { return known }
        let status = try keychains.status(of: name)
        if held { remember(look) { $0.statuses[name] = .some(status) } }
        return status
    }

    /// The directories of the home rooted at `rootPath`; nothing is opened yet.
    package init(rootPath: FilePath, sharing: FileSharing) {
        self.rootPath = rootPath
        self.sharing = sharing
        Self.everyHome.withLock { homes in
            homes.removeAll { $0.directories == nil }
            homes.append(WeakHome(self))
        }
    }

    /// Closes the directories this home holds; its next use opens them again from the root's
    /// path and vets them, as a new home value would. For a caller done with the home, or about
    /// to delete it: a home value lives as long as anything keeps it (a test case object is
    /// kept for a whole test run), and its descriptors with it.
    package func release() {
        held.withLock { $0 = Held() }
        quiet.withLock { $0 = nil }
    }

    /// ``release()`` for every home of this process. A directory in use stays open until its
    /// user is done with it (handles are reference counted); nothing is lost, only reopened.
    package static func releaseAll() {
        let homes = everyHome.withLock { $0.compactMap(\.directories) }
        for home in homes { home.release() }
    }

    /// Every home's directories in this process, held weakly, for ``releaseAll()``.
    private static let everyHome = Locked<[WeakHome]>([])

    /// A home's directories without keeping them alive.
    private final class WeakHome: @unchecked Sendable {
        // Read and written only under `everyHome`'s lock.
        weak var directories: HomeDirectories?

        init(_ directories: HomeDirectories) {
            self.directories = directories
        }
    }

    /// The root, created when missing. In the `unixGroup` mode its group is the home's group,
    /// carried by the handle's sharing (``DirectoryHandle/boundToItsGroup()``) to every
    /// directory and file reached from it: each must belong to that group, not merely to some
    /// group this process is in.
    package func root() throws(StorageError) -> DirectoryHandle {
        try root(as: nil)
    }

    /// ``root()`` checked as of `look` (``Look``).
    package func root(as look: Look?) throws(StorageError) -> DirectoryHandle {
        if let handle = try current(\.root, as: look) { return handle }
        return hold(\.root, try DirectoryHandle.ensure(rootPath, sharing: sharing).boundToItsGroup())
    }

    /// How the home's files are shared, with the home's group once the root is open (creating
    /// it when missing): for what lives outside the home but belongs to its group (the
    /// semaphores and shared memory of `/dev/shm`). Owner-only touches nothing.
    package func fileSharing() throws(StorageError) -> FileSharing {
        guard sharing.isGroupShared else { return sharing }
        return try root().sharing
    }

    /// `Keychains/`, created (with the root) when missing.
    package func keychains() throws(StorageError) -> DirectoryHandle {
        if let handle = try current(\.keychains) { return handle }
        let root = try root()
        guard let keychains = try Self.keychains(in: root, creating: true) else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "open directory", path: root.path.appending("Keychains"))
        }
        try keychains.checkNoAccessControlList()
        return hold(\.keychains, keychains)
    }

    /// `Keychains/` when the home has one, without creating anything: `nil` when the root or
    /// `Keychains/` does not exist. For reads, which must not create a home.
    package func existingKeychains() throws(StorageError) -> DirectoryHandle? {
        try existingKeychains(as: nil)
    }

    /// ``existingKeychains()`` checked as of `look` (``Look``).
    package func existingKeychains(as look: Look?) throws(StorageError) -> DirectoryHandle? {
        if let handle = try current(\.keychains, as: look) { return handle }
        guard let root = try existingRoot(), let keychains = try Self.keychains(in: root, creating: false) else { return nil }
        try keychains.checkNoAccessControlList()
        return hold(\.keychains, keychains)
    }

    /// `Keychains/` in `root`. Something else by that name is reported as the system reports a
    /// file where a directory must be (ENOTDIR, an I/O error), as it was when the first file
    /// reached below it reported it: a damaged home, not a refusal to share.
    private static func keychains(in root: DirectoryHandle, creating: Bool) throws(StorageError) -> DirectoryHandle? {
        do {
            return try root.subdirectory("Keychains", creating: creating)
        } catch where error.kind == .wrongFileType {
            throw StorageError(.system(.notDirectory), operation: "open directory", path: root.path.appending("Keychains"))
        }
    }

    /// `Group Containers/`, created (with the root) when missing.
    package func containers() throws(StorageError) -> DirectoryHandle {
        if let handle = try current(\.containers) { return handle }
        let containers = try root().subdirectory(creating: "Group Containers")
        try containers.checkNoAccessControlList()
        return hold(\.containers, containers)
    }

    /// The root when it exists, without creating it.
    private func existingRoot() throws(StorageError) -> DirectoryHandle? {
        if let handle = try current(\.root) { return handle }
        do {
            return hold(\.root, try DirectoryHandle(opening: rootPath, sharing: sharing).boundToItsGroup())
        } catch let error where error.kind == .system(.noSuchFileOrDirectory) {
            return nil
        }
    }

    /// The held handle, vetted again through its descriptor; `nil` when none is held yet or
    /// the held directory was removed (the caller opens it anew).
    /// With `look`, a directory vetted since a look that found what `look` finds is not vetted
    /// again: its owner, mode and links cannot have changed without its watch counting it.
    private func current(_ which: WritableKeyPath<Held, DirectoryHandle?>, as look: Look? = nil) throws(StorageError) -> DirectoryHandle? {
        guard let handle = held.withLock({ $0[keyPath: which] }) else { return nil }
        let id = ObjectIdentifier(handle)
        if remembered(look)?.vetted.contains(id) == true { return handle }
        guard try handle.isStillLinked() else { return nil }
        remember(look) { $0.vetted.append(id) }
        return handle
    }

    /// Holds `handle` as `which`, unless another thread held one first: then that one, so all
    /// threads keep using a single directory.
    private func hold(_ which: WritableKeyPath<Held, DirectoryHandle?>, _ handle: DirectoryHandle) -> DirectoryHandle {
        let winner = held.withLock { held -> DirectoryHandle in
            if let existing = held[keyPath: which], existing !== handle, (try? existing.isStillLinked()) == true {
                return existing
            }
            held[keyPath: which] = handle
            // Watched from now on: a directory held anew has a watch of its own, and looks at
            // the old one's no longer match what was remembered of it.
            if which == \Held.root { held.rootWatch = DirectoryChanges.shared?.register(handle) }
            if which == \Held.keychains {
                held.keychainsWatch = DirectoryChanges.shared?.register(handle, ignoringEntriesNamed: Self.databaseFiles)
            }
            return handle
        }
        return winner
    }
}
