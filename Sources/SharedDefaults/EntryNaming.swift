import Foundation
import Keyring
import SealedStorage
import Vault

/// How a suite's keys become Vault record names, without the names telling which keys exist.
///
/// Record name: `sd-<suite tag>-<key tag>`, each tag 32 hex digits (128 bits) of
/// BLAKE2b-256(naming key ‖ domain ‖ length-prefixed suite [‖ length-prefixed key]). So:
/// - every key is its own record: concurrent writers of different keys never contend for a
///   record lock and never overwrite each other's keys;
/// - any key text (any length, any characters) gives a valid record name;
/// - someone who can read the container but not the keyring learns how many keys a suite has
///   and when they change, not what they are called: key names such as `hasPremium` or
///   `lastAccountEmail` can say more than one wants, and an unkeyed hash of a short name is
///   found by trying candidates.
///
/// The naming key is 32 random bytes in a keychain item of the group (service
/// ``itemService``), created by the first process that needs it. It is not a group key from the
/// keyset: those rotate and retire, and record names must stay the same across rotation.
/// BLAKE2b with the key as a fixed-length prefix is a PRF (BLAKE2 has no length extension).
struct EntryNaming: Sendable {
    /// The keychain item holding the naming key.
    static let itemService = "org.groupvault.shared-defaults"
    static let itemAccount = "record-naming-key"
    static let keyByteCount = 32
    /// Every record name of SharedDefaults starts with this.
    static let recordPrefix = "sd-"

    private let key: [UInt8]
    /// `sd-<suite tag>-`: the prefix of every record of the suite.
    let suitePrefix: String
    private let suiteBytes: [UInt8]

    init(key: [UInt8], suite: String) {
        self.key = key
        self.suiteBytes = Array(suite.utf8)
        self.suitePrefix = Self.recordPrefix + Self.tag(key: key, parts: [Array("suite".utf8), suiteBytes]) + "-"
    }

    /// The record name of `key` in this suite.
    func recordName(forKey entryKey: String) -> String {
        suitePrefix + Self.tag(key: key, parts: [Array("key".utf8), suiteBytes, Array(entryKey.utf8)])
    }

    /// True when `recordName` belongs to this suite.
    func owns(_ recordName: String) -> Bool {
        recordName.hasPrefix(suitePrefix)
    }

    private static func tag(key: [UInt8], parts: [[UInt8]]) -> String {
        var input = key
        for part in parts {
            // Length prefixes keep ("ab", "c") and ("a", "bc") apart.
            withUnsafeBytes(of: UInt64(part.count).bigEndian) { input.append(contentsOf: $0) }
            input.append(contentsOf: part)
        }
        return Hex.lowercase(Array(Digest.blake2b256(input).prefix(16)))
    }

    /// The group's naming key, created in the keychain on first use.
    ///
    /// Two processes creating it at once: one add wins, the other gets `duplicateItem` and
    /// reads the winner's key, so every process names records alike.
    ///
    /// Created only while the group has no SharedDefaults entry: once the trust ledger knows
    /// one (`vault`'s `Vault.ledgerRecordNames(withPrefix:)`), a missing naming key means
    /// the item was removed, and a new key would name every entry anew, so that every stored
    /// key of every suite would read as never set: a silent reset of the group's settings.
    /// That is refused instead, and the item must be restored.
    static func namingKey(keyring: Keyring, group: GroupIdentifier, vault: Vault) throws(SharedDefaultsError) -> [UInt8] {
        let query = ItemQuery(service: itemService, account: itemAccount, accessGroup: group)
        func stored() throws(KeyringError) -> [UInt8] {
            let item = try keyring.item(matching: query)
            guard item.secret.count == keyByteCount else {
                throw KeyringError(.decode, "the SharedDefaults naming key of \(group) is \(item.secret.count) bytes, not \(keyByteCount); it was altered through the keychain, and without it no suite of the group can be found")
            }
            return Array(item.secret)
        }
        do throws(KeyringError) {
            for _ in 0..<2 {
                do throws(KeyringError) {
                    return try stored()
                } catch where error.status == .itemNotFound {
                    let entries = try entryCount(group: group, vault: vault)
                    if entries > 0 {
                        // Entries are written only once their naming key exists: one created by
                        // another process after the lookup above is there now.
                        do throws(KeyringError) {
                            return try stored()
                        } catch where error.status == .itemNotFound {
                            throw KeyringError(.itemNotFound, "the naming key is not in the keychain (service \"\(itemService)\", account \"\(itemAccount)\"), but the trust ledger knows \(entries) SharedDefaults entr\(entries == 1 ? "y" : "ies") of the group named with it: the item was removed. A new key would make every stored setting of the group read as never set, so none was made; restore the item from a backup of the keyring")
                        }
                    }
                    // Readable while locked, like the group keys: widgets read settings in the background.
                    let item = KeychainItem(
                        service: itemService, account: itemAccount, accessGroup: group,
                        secret: Data(SecureRandom.bytes(count: keyByteCount)),
                        label: "GroupVault SharedDefaults record naming key",
                        accessibility: .afterFirstUnlock)
                    do throws(KeyringError) {
                        return Array(try keyring.add(item).secret)
                    } catch where error.status == .duplicateItem {
                        continue  // another process created it first: read theirs
                    }
                }
            }
            throw KeyringError(.ioError, "the SharedDefaults naming key of \(group) was neither found nor created")
        } catch {
            throw SharedDefaultsError(.storage, "could not get the record naming key of \(group): \(error)", underlyingError: error, remedy: error.remedy)
        }
    }

    /// How many SharedDefaults entries, of any suite of `group`, the trust ledger knows.
    private static func entryCount(group: GroupIdentifier, vault: Vault) throws(KeyringError) -> Int {
        do {
            return try vault.ledgerRecordNames(withPrefix: recordPrefix).count
        } catch {
            throw KeyringError(.ioError, "the naming key is not in the keychain, and the trust ledger, which says whether the group has entries named with one, could not be read (\(error.reason)); no new key was made", underlyingError: error, remedy: error.remedy)
        }
    }
}

extension SharedDefaults {
    /// `kSecAttrService` of the keychain item SharedDefaults keeps its record-naming key in,
    /// one generic-password item per group (account `record-naming-key`).
    ///
    /// The item belongs to the library, not to the operator: deleting or overwriting it makes
    /// every setting of every suite of the group unreadable (SharedDefaults then refuses to
    /// make a new key, which would silently reset them) while their records stay on disk.
    /// Tools that delete or update by a broad selector (a whole group) should leave it out
    /// unless asked; ``isInternalItem(_:)`` recognises it.
    public static let namingKeyItemService = EntryNaming.itemService

    /// Whether `item` is SharedDefaults' own (a generic password with service
    /// ``namingKeyItemService``, its naming key) rather than an application's.
    public static func isInternalItem(_ item: KeychainItem) -> Bool {
        item.itemClass == .genericPassword && item.service == namingKeyItemService
    }
}
