import SystemPackage

/// The files, by device and inode, on which this process holds POSIX record locks it must not
/// lose: the database files (and WAL indexes, `-shm`) of its open SQLite connections.
///
/// Why: closing any descriptor of such a file releases all of the process's record locks on it
/// (Syscalls+VettedOpen.swift). ``Syscall/openVetted(_:in:_:options:path:operation:vet:)``
/// refuses a file with more than one link, which stops a second name *linked* into a shared
/// directory; but a member who can write both directories can also *rename* the database (or
/// its `-shm`) to a name this process reads, where it has one link. A file registered here is
/// refused by the vetting under whatever name it is found, before it is opened.
///
/// A store registers a file once SQLite holds it (``insert(_:)`` with the identity its
/// vetting proved, ``DatabaseFile``) and removes it when the connection closes (``remove(_:)``);
/// registrations are counted, so two connections to one file each add and remove their own.
package enum RecordLockedFiles {
    /// A file's identity: its device and inode numbers.
    package struct Identity: Hashable, Sendable {
        /// `st_dev`.
        package let device: UInt64
        /// `st_ino`.
        package let inode: UInt64

        /// The identity of the file `status` describes.
        package init(_ status: Stat) {
            self.init(device: UInt64(status.deviceID.rawValue), inode: UInt64(status.inode.rawValue))
        }

        /// The identity with these numbers.
        package init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// How many registrations each identity has. A process holds a few such files (a database
    /// and its WAL index per open store), so a list: a dictionary keyed by `Identity` would make
    /// each new process look its `Hashable` conformance up among every loaded library's.
    private static let registered = Locked<[(identity: Identity, count: Int)]>([])

    /// Registers `identity` (once more, if it already is).
    package static func insert(_ identity: Identity) {
        registered.withLock { entries in
            if let index = entries.firstIndex(where: { $0.identity == identity }) {
                entries[index].count += 1
            } else {
                entries.append((identity, 1))
            }
        }
    }

    /// Removes one registration of `identity`; the file is no longer refused once none is left.
    package static func remove(_ identity: Identity) {
        registered.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.identity == identity }) else { return }
            if entries[index].count > 1 { entries[index].count -= 1 } else { entries.remove(at: index) }
        }
    }

    /// Whether the file `status` describes is registered.
    package static func contains(_ status: Stat) -> Bool {
        let identity = Identity(status)
        return registered.withLock { entries in entries.contains { $0.identity == identity } }
    }
}

/// The registrations one owner made with ``RecordLockedFiles``, removed together: for an owner
/// whose connections are opened by someone else (GRDB's pool opens readers lazily, and has no
/// hook when one closes), so their registrations last as long as the owner.
package final class RecordLockRegistrations: Sendable {
    private let identities = Locked<[RecordLockedFiles.Identity]>([])

    /// No registrations yet.
    package init() {}

    /// Registers `identity` with ``RecordLockedFiles`` on this owner's behalf.
    package func register(_ identity: RecordLockedFiles.Identity) {
        RecordLockedFiles.insert(identity)
        identities.withLock { $0.append(identity) }
    }

    /// Removes every registration this owner made.
    package func removeAll() {
        let made = identities.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for identity in made { RecordLockedFiles.remove(identity) }
    }

    deinit {
        removeAll()
    }
}
