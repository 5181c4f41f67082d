import SealedStorage
import SystemPackage
import Vault

/// A change `vaultcli doctor --fix` makes for a finding, through the file layer and the
/// library, never a shell: what it changes is what was examined, or nothing.
///
/// A file is changed only through a descriptor: opened again relative to the held parent
/// directory with `O_NOFOLLOW`, then `fstat` must show the same device and inode that were
/// examined, the same type, this user as owner and (for a regular file) a single link; only
/// then is its mode set with `fchmod`. So a member of the group who swaps a symbolic link or a
/// hard link to another file in after the examination gets a refusal, not a chmod of that
/// file. Removals are `unlinkat` relative to the held directory after checking, again, that
/// the entry is the examined one.
enum DoctorRepair {
    /// Set the permission bits of a directory held open since it was examined.
    case changeDirectoryMode(InspectedDirectory, examined: Stat, mode: UInt16)
    /// Set the permission bits of the file `name` in `parent`.
    case changeFileMode(parent: InspectedDirectory, name: String, examined: Stat, mode: UInt16)
    /// Remove the entry `name` (a link, a stray temporary, a lock that is not a file).
    case remove(parent: InspectedDirectory, name: String, examined: Stat)
    /// Record the deletion of a record whose file is gone, as `records delete` does.
    case deleteRecord(Vault, name: String)

    /// Whether the repair destroys something (a file, a ledger entry): asked for, or `--yes`.
    var isDestructive: Bool {
        switch self {
        case .changeDirectoryMode, .changeFileMode: false
        case .remove, .deleteRecord: true
        }
    }

    /// What doing it would mean, for the confirmation question.
    var question: String {
        switch self {
        case .changeDirectoryMode(let directory, _, let mode): "set the mode of \(Terminal.escaped(directory.path)) to \(String(mode, radix: 8))"
        case .changeFileMode(let parent, let name, _, let mode): "set the mode of \(Terminal.escaped(parent.child(name))) to \(String(mode, radix: 8))"
        case .remove(let parent, let name, _): "remove \(Terminal.escaped(parent.child(name)))"
        case .deleteRecord(let vault, let name): "record the deletion of \(Terminal.escaped(name)) in \(vault.group)"
        }
    }

    /// Why a repair was not made: a sentence for the report.
    struct Refusal: Error {
        var reason: String
    }

    /// Makes the change.
    /// - Throws: ``Refusal`` saying why nothing was changed.
    func perform() throws(Refusal) {
        switch self {
        case .changeDirectoryMode(let directory, let examined, let mode):
            let current = try attempt("stat", directory.path) { () throws(Errno) in try directory.status() }
            try Self.requireSame(current, as: examined, path: directory.path)
            try attempt("fchmod", directory.path) { () throws(Errno) in try Syscall.changeMode(directory.descriptor, to: mode) }
        case .changeFileMode(let parent, let name, let examined, let mode):
            let path = parent.child(name)
            // Opening a device or FIFO can have effects of its own; GroupVault's files are
            // regular files, and anything else in their place is better removed by a person.
            guard examined.type == .regular else {
                throw Refusal(reason: "\(Terminal.escaped(path)) is not a regular file, so it is not opened to change its mode; remove it if it is not yours")
            }
            guard examined.linkCount == 1 else {
                throw Refusal(reason: "\(Terminal.escaped(path)) has \(examined.linkCount) links: another name reaches the same file, so its mode is left alone")
            }
            // Vetted before it is opened (a regular file with one link, found unopened): another
            // name of a file this process holds SQLite's locks on (keyring.db, linked here by a
            // member) must not be opened and closed, which would drop those locks.
            // O_NONBLOCK: nothing opened here may hang the repair.
            let opened: (descriptor: FileDescriptor, status: Stat)?
            do {
                opened = try Syscall.openVetted(name, in: parent.descriptor, .readOnly, options: [.nonBlocking],
                                                path: FilePath(path), operation: "change mode") { (_: Stat) throws(StorageError) in }
            } catch {
                throw Refusal(reason: Terminal.escaped("\(error)"))
            }
            guard let (file, current) = opened else {
                throw Refusal(reason: "\(Terminal.escaped(path)) was removed since it was examined; nothing was changed (run doctor again)")
            }
            defer { Syscall.close(file) }
            try Self.requireSame(current, as: examined, path: path)
            try attempt("fchmod", path) { () throws(Errno) in try Syscall.changeMode(file, to: mode) }
        case .remove(let parent, let name, let examined):
            let path = parent.child(name)
            guard let current = try attempt("stat", path, { () throws(Errno) in try parent.status(of: name) }) else {
                return  // already gone
            }
            try Self.requireSame(current, as: examined, path: path, owned: false)
            try attempt("unlink", path) { () throws(Errno) in try Syscall.unlink(name, in: parent.descriptor) }
        case .deleteRecord(let vault, let name):
            do {
                try vault.delete(name)
            } catch {
                throw Refusal(reason: "\(error.code): \(RemedyCommand.sentence(error.reason, remedy: error.nearestRemedy))")
            }
        }
    }

    /// Refuses when `current` is not the examined file: another device or inode (swapped
    /// since), another type, or (for a change of mode) another owner than this user.
    private static func requireSame(_ current: Stat, as examined: Stat, path: String, owned: Bool = true) throws(Refusal) {
        guard current.deviceID == examined.deviceID, current.inode == examined.inode, current.type == examined.type else {
            throw Refusal(reason: "\(Terminal.escaped(path)) was replaced since it was examined; nothing was changed (run doctor again)")
        }
        if owned, UInt32(current.userID.rawValue) != Syscall.effectiveUserID {
            throw Refusal(reason: "\(Terminal.escaped(path)) is owned by uid \(current.userID.rawValue), not by you: its owner must fix it")
        }
    }

    /// Runs one system call, turning its failure into a ``Refusal`` naming it.
    private func attempt<Result>(_ call: String, _ path: String, _ body: () throws(Errno) -> Result) throws(Refusal) -> Result {
        do {
            return try body()
        } catch {
            throw Refusal(reason: "\(call) \(Terminal.escaped(path)): \(error); nothing was changed")
        }
    }
}
