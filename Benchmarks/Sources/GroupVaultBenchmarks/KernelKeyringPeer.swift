import Floors
import Foundation

/// The kernel keyring peer (keyutils): a keyring of this process's own holding "user" keys
/// described "service/account". Kernel memory only: nothing survives a reboot, nothing is
/// written to disk.
final class KernelKeyringPeer {
    private let keyring: Int32

    /// A new keyring holding `keys` keys, key `index` at `key(index)` with a `bytes`-byte payload.
    init(name: String, keys: Int, bytes: Int, key: (Int) -> (service: String, account: String)) throws {
        keyring = floor_kernel_keyring_create(name)
        guard keyring >= 0 else { throw BenchmarkFailure("cannot create kernel keyring \(name): errno \(errno)") }
        for index in 0..<keys {
            let (service, account) = key(index)
            try add(service, account, bytes: bytes)
        }
    }

    deinit { floor_kernel_keyring_destroy(keyring) }

    /// `add_key` of a "user" key with a `bytes`-byte payload.
    func add(_ service: String, _ account: String, bytes: Int) throws {
        guard floor_kernel_key_add(keyring, "\(service)/\(account)", bytes) == 0 else {
            throw BenchmarkFailure("add_key \(service)/\(account) failed: errno \(errno) (the kernel's key quota: /proc/sys/kernel/keys)")
        }
    }

    /// `keyctl_search` then `keyctl_read` of a key's payload.
    func read(_ service: String, _ account: String) throws {
        guard floor_kernel_key_read(keyring, "\(service)/\(account)") > 0 else {
            throw BenchmarkFailure("keyctl read of \(service)/\(account) failed: errno \(errno)")
        }
    }

    /// Unlinks a key from the keyring.
    func remove(_ service: String, _ account: String) throws {
        guard floor_kernel_key_remove(keyring, "\(service)/\(account)") == 0 else {
            throw BenchmarkFailure("keyctl unlink of \(service)/\(account) failed: errno \(errno)")
        }
    }
}
