import Floors
import Foundation

/// The kernel keyring peer (keyutils): a keyring of this process's own holding "user" keys
/// described "service/account". Kernel memory only: nothing survives a reboot, nothing is
/// written to disk.
final class KernelKeyringPeer {
    /// The keyring's serial, which `KernelKeyringChild` searches when it is shared with children.
    let keyring: Int32
    private let sharedWithChildren: Bool

    /// A new keyring holding `keys` keys, key `index` at `key(index)` with a `bytes`-byte payload.
    /// `sharedWithChildren` links it into the session keyring, so that a child process (the
    /// cold figures' `KernelKeyringChild`) possesses it; otherwise into the process keyring,
    /// which no other process can reach and the kernel discards at exit.
    init(name: String, keys: Int, bytes: Int, sharedWithChildren: Bool = false, key: (Int) -> (service: String, account: String)) throws {
        self.sharedWithChildren = sharedWithChildren
        keyring = floor_kernel_keyring_create(name, sharedWithChildren)
        guard keyring >= 0 else { throw BenchmarkFailure("cannot create kernel keyring \(name): errno \(errno)") }
        for index in 0..<keys {
            let (service, account) = key(index)
            try add(service, account, bytes: bytes)
        }
    }

    deinit { floor_kernel_keyring_destroy(keyring, sharedWithChildren) }

    /// The description of the key `service`/`account`, as `KernelKeyringChild` searches for it.
    static func description(_ service: String, _ account: String) -> String { "\(service)/\(account)" }

    /// `add_key` of a "user" key with a `bytes`-byte payload.
    func add(_ service: String, _ account: String, bytes: Int) throws {
        guard floor_kernel_key_add(keyring, Self.description(service, account), bytes) == 0 else {
            throw BenchmarkFailure("add_key \(service)/\(account) failed: errno \(errno) (the kernel's key quota: /proc/sys/kernel/keys)")
        }
    }

    /// `keyctl_search` then `keyctl_read` of a key's payload.
    func read(_ service: String, _ account: String) throws {
        guard floor_kernel_key_read(keyring, Self.description(service, account)) > 0 else {
            throw BenchmarkFailure("keyctl read of \(service)/\(account) failed: errno \(errno)")
        }
    }

    /// Unlinks a key from the keyring.
    func remove(_ service: String, _ account: String) throws {
        guard floor_kernel_key_remove(keyring, Self.description(service, account)) == 0 else {
            throw BenchmarkFailure("keyctl unlink of \(service)/\(account) failed: errno \(errno)")
        }
    }
}
