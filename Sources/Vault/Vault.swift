#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import SealedStorage
import SystemPackage

/// Sealed Codable records in one group's container, bound to their group and name, with
/// freshness rules (rollback, expiry, clock skew) and key rotation.
///
/// The app writes; its widget (another process, entitled to the same group) reads:
///
/// ```swift
/// struct AuthState: VaultRecord {
///     static let schemaVersion: UInt32 = 1
///     var isAuthenticated: Bool
///     var displayName: String?
/// }
///
/// let group = GroupIdentifier(rawValue: "group.com.example.shared")!
/// let vault = try Vault(keyring: try .fromEnvironment(), group: group)
///
/// // App, on sign-in:
/// try vault.write(AuthState(isAuthenticated: true, displayName: "Ada"), to: "auth-state",
///                 expiresAt: tokenExpiry)
///
/// // Widget: anything invalid reads as "signed out", and the reason is still reported.
/// let state = vault.readIfValid(AuthState.self, from: "auth-state") { refusal in
///     log.notice("auth state refused: \(refusal)")
/// }
/// ```
///
/// Record files live at `<group container>/GroupVault/records/<name>.gvr` in the format
/// docs/FORMAT.md specifies. Writes are serialized per record by a lock file in
/// `GroupVault/locks`; reads take no lock on the record. A `Vault` is a value: cheap to copy
/// and safe to use from any task.
public struct Vault: Sendable {
    /// The keyring holding the group's keys and the trust ledger.
    public let keyring: Keyring
    /// The group: both the application group (container) and the keychain access group (keys).
    public let group: GroupIdentifier
    /// How durable a write is when it returns.
    public let durability: WriteDurability
    /// How far apart the writer's and the reader's clocks may be, in seconds, before an
    /// expiry or issue time is held against a record.
    public let clockSkewAllowance: TimeInterval

    /// The default ``clockSkewAllowance``: 60 seconds.
    ///
    /// Writers and readers of one vault run on one machine and read one system clock, so real
    /// skew is zero; what remains is the time between a check and its use, a suspended
    /// process, and small wall-clock steps by NTP. A minute covers those while keeping a
    /// revoked state from being honoured noticeably past its expiry.
    public static let defaultClockSkewAllowance: TimeInterval = 60

    private let clock: @Sendable () -> Date
    private let nonceSource: @Sendable () -> XChaCha20Poly1305.Nonce
    private let container: FilePath
    package let ledger: TrustLedger
    /// `GroupVault/records` and `GroupVault/locks`, opened once when the vault was opened.
    let directories: VaultDirectories
    /// Values read and judged, shared by the copies of this vault (``cachesReadValues``).
    let judgedValues: JudgedValues

    /// Whether a read of a record it has read before, as the same type, while neither its
    /// file nor the keyring database changed, returns the value it judged then instead of
    /// reading, opening and decoding the blob again (docs/ARCHITECTURE.md, "A read while
    /// nothing changed returns the value it judged"). The decoded values of up to 64 records
    /// then stay in this process's memory while the vault lives, as a SQLite database's page
    /// cache keeps the pages it read; `false` keeps none.
    public var cachesReadValues: Bool { judgedValues.isEnabled }

    /// `GroupVault/records` as opened with the vault: every record file is read, replaced,
    /// listed and inspected relative to its descriptor, never by path again, so a directory
    /// swapped for a symbolic link afterwards is not followed (SECURITY.md).
    package var records: DirectoryHandle {
        get throws(StorageError) { try directories.records() }
    }

    /// `GroupVault/locks` as opened with the vault: lock files are opened relative to it.
    package var locks: DirectoryHandle {
        get throws(StorageError) { try directories.locks() }
    }

    /// Opens the vault of `group` for `keyring`'s identity, creating the container's
    /// `GroupVault` directories on first use.
    ///
    /// ```swift
    /// let vault = try Vault(keyring: keyring, group: GroupIdentifier(validating: "group.com.example.shared"))
    /// ```
    ///
    /// - Parameters:
    ///   - keyring: the identity that opens the vault, and the keyring holding its keys.
    ///   - group: the group whose container and keys the vault uses.
    ///   - durability: ``WriteDurability/full`` (default) or ``WriteDurability/atomic``.
    ///   - clockSkewAllowance: seconds of tolerance for expiry and issue times; default
    ///     ``defaultClockSkewAllowance``.
    ///   - clock: the current time; inject one in tests.
    ///   - cachesReadValues: whether a read of an unchanged record returns the value judged
    ///     before (``cachesReadValues``); default `true`.
    /// - Throws: ``VaultError/Code/missingEntitlement`` unless the identity is entitled to
    ///   `group` both as an application group and as a keychain access group;
    ///   ``VaultError/Code/invalidArgument`` for a negative or non-finite allowance;
    ///   ``VaultError/Code/keyring`` or ``VaultError/Code/storage`` if the container cannot be opened.
    public init(
        keyring: Keyring,
        group: GroupIdentifier,
        durability: WriteDurability = .full,
        clockSkewAllowance: TimeInterval = Vault.defaultClockSkewAllowance,
        clock: @escaping @Sendable () -> Date = { Date() },
        cachesReadValues: Bool = true
    ) throws(VaultError) {
        try self.init(
            keyring: keyring, group: group, durability: durability,
            clockSkewAllowance: clockSkewAllowance, clock: clock,
            nonceSource: { XChaCha20Poly1305.Nonce.random() }, cachesReadValues: cachesReadValues)
    }

    /// Like the public initializer, with the source of nonces injectable: tests use a fixed
    /// nonce to reproduce a documented blob byte for byte. Never use a fixed nonce otherwise:
    /// two blobs sealed under one key and nonce leak their XOR and allow forgeries.
    package init(
        keyring: Keyring,
        group: GroupIdentifier,
        durability: WriteDurability = .full,
        clockSkewAllowance: TimeInterval = Vault.defaultClockSkewAllowance,
        clock: @escaping @Sendable () -> Date = { Date() },
        nonceSource: @escaping @Sendable () -> XChaCha20Poly1305.Nonce,
        cachesReadValues: Bool = true
    ) throws(VaultError) {
        guard clockSkewAllowance.isFinite, clockSkewAllowance >= 0,
              clockSkewAllowance * 1000 <= Double(BlobFormat.maximumTimeMagnitude) else {
            throw VaultError(.invalidArgument, "clock-skew allowance \(clockSkewAllowance) s is not a finite, non-negative number of seconds")
        }
        let identity = keyring.identity
        guard identity.isEntitled(toApplicationGroup: group) else {
            throw VaultError(.missingEntitlement, "\(identity.subject) is not entitled to application group \(group): add it to com.apple.security.application-groups to use its container", underlyingError: nil, remedy: .grantEntitlement(group: group.rawValue))
        }
        guard identity.isEntitled(toAccessGroup: group) else {
            throw VaultError(.missingEntitlement, "\(identity.subject) is not entitled to keychain access group \(group), which holds the group's keys: add it to keychain-access-groups", underlyingError: nil, remedy: .grantEntitlement(group: group.rawValue))
        }
        // The container is opened once, level by level from the home's held directories, and
        // the vault's directories are reached relative to that descriptor: a path handed over
        // here would be resolved again, after a member could have swapped a level for a link.
        let containerDirectory: DirectoryHandle?
        do {
            containerDirectory = try keyring.containerDirectory(for: group)
        } catch {
            throw VaultError(keyring: error, while: "open the container of \(group)")
        }
        guard let containerDirectory else {
            throw VaultError(.missingEntitlement, "the keyring gives \(identity.subject) no container for \(group): add it to com.apple.security.application-groups", underlyingError: nil, remedy: .grantEntitlement(group: group.rawValue))
        }
        self.keyring = keyring
        self.group = group
        self.durability = durability
        self.clockSkewAllowance = clockSkewAllowance
        self.clock = clock
        self.nonceSource = nonceSource
        self.container = containerDirectory.path
        self.ledger = TrustLedger(home: keyring.home, group: group)
        self.judgedValues = JudgedValues(isEnabled: cachesReadValues)
        // Created up front so that an observer can watch the records directory before the
        // first write, and so that a misconfigured directory is reported here, not mid-write.
        do {
            self.directories = try VaultDirectories(container: containerDirectory)
        } catch {
            throw VaultError(storage: error, while: "prepare the vault directories of \(group)")
        }
    }

    // MARK: Paths

    /// `<group container>/GroupVault`.
    package var vaultDirectory: FilePath { container.appending("GroupVault") }
    /// `<group container>/GroupVault/records`: one `<name>.gvr` file per record.
    package var recordsDirectory: FilePath { vaultDirectory.appending("records") }
    /// `<group container>/GroupVault/locks`: one `<name>.lock` file per record, never renamed.
    package var locksDirectory: FilePath { vaultDirectory.appending("locks") }
    /// The extension of record files.
    package static let recordFileExtension = "gvr"

    /// The record file of `name`, for messages and tests: the vault itself opens
    /// ``recordFileName(_:)`` relative to ``records``.
    package func recordPath(_ name: RecordName) -> FilePath {
        recordsDirectory.appending(recordFileName(name))
    }

    /// The file name of the record `name` in the records directory: `<name>.gvr`.
    package func recordFileName(_ name: RecordName) -> String {
        "\(name.rawValue).\(Self.recordFileExtension)"
    }

    /// The file name of the group-wide lock in the locks directory: writers hold it shared
    /// from fetching the primary key until their rename, ``resealAll()`` holds it exclusively.
    /// Record names never start with a dot, so this file cannot collide with a record's lock.
    package static let groupLockName = ".group.lock"

    /// The group-wide lock's path, for messages and tests.
    package var groupLockPath: FilePath { locksDirectory.appending(Self.groupLockName) }

    /// The file name of the writer lock of `name` in the locks directory.
    package func lockName(_ name: RecordName) -> String {
        "\(name.rawValue).lock"
    }

    /// The writer lock of `name`, for messages and tests.
    package func lockPath(_ name: RecordName) -> FilePath {
        locksDirectory.appending(lockName(name))
    }

    // MARK: Shared pieces

    /// The current time in whole milliseconds, as compared with header times.
    package func nowMilliseconds() -> Int64 {
        // A clock outside the representable range is clamped: comparisons stay meaningful.
        let now = clock().timeIntervalSince1970 * 1000
        guard now.isFinite else { return now > 0 ? BlobFormat.maximumTimeMagnitude : -BlobFormat.maximumTimeMagnitude }
        return Int64(max(-Double(BlobFormat.maximumTimeMagnitude), min(Double(BlobFormat.maximumTimeMagnitude), now.rounded())))
    }

    /// The allowance in whole milliseconds.
    package var allowanceMilliseconds: Int64 { Int64((clockSkewAllowance * 1000).rounded()) }

    /// A fresh nonce for one seal.
    package func makeNonce() -> XChaCha20Poly1305.Nonce { nonceSource() }

    /// How a record is named in messages: `record "auth-state" of group.com.example`.
    package func subject(_ name: RecordName) -> String { "record \"\(name)\" of \(group)" }
}
