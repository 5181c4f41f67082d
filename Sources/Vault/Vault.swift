import Foundation
import Keyring
import SealedStorage
import SystemPackage

// STUB: the Vault core helper replaces this file (keeping these signatures).

/// How far a write must have reached when ``Vault/write(_:as:expiresAt:)`` returns.
public enum WriteDurability: String, Sendable, Hashable {
    /// fsync the file, rename, fsync the directory: survives power loss once `write` returns.
    case full
    /// No directory fsync: never torn, but may roll back to the previous version after a crash.
    case atomic
}

/// What ``Vault/write(_:as:expiresAt:)`` sealed, and what ``Vault/list()`` reads without decrypting.
public struct RecordHeader: Sendable, Hashable {
    public var formatVersion: UInt8
    public var keyID: UInt32
    public var sequence: UInt64
    public var issuedAt: Date
    public var expiresAt: Date?
    public var schemaVersion: UInt32
    public var isTombstone: Bool
}

/// One record file as listed: its name, size and header (or why the header could not be read).
public struct RecordListing: Sendable {
    public var name: String
    public var size: Int
    public var header: Result<RecordHeader, VaultError>
}

/// Sealed Codable records in one group's container.
public struct Vault: Sendable {
    public let keyring: Keyring
    public let group: GroupIdentifier
    public let durability: WriteDurability
    public let clockSkewAllowance: TimeInterval

    public init(
        keyring: Keyring,
        group: GroupIdentifier,
        durability: WriteDurability = .full,
        clockSkewAllowance: TimeInterval = 300,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(VaultError) {
        throw VaultError(.storage, "Vault is not implemented yet")
    }

    /// `<group container>/GroupVault/records`: one `<name>.gvr` file per record.
    package var recordsDirectory: FilePath { FilePath("/nonexistent") }
    /// The extension of record files.
    package static let recordFileExtension = "gvr"

    @discardableResult
    public func write<Value: VaultRecord>(_ value: Value, as name: String, expiresAt: Date? = nil) throws(VaultError) -> RecordHeader {
        throw VaultError(.storage, "not implemented")
    }

    public func read<Value: VaultRecord>(_ type: Value.Type, name: String) throws(VaultError) -> Value {
        throw VaultError(.storage, "not implemented")
    }

    public func readIfValid<Value: VaultRecord>(_ type: Value.Type, name: String, onRefusal: ((VaultError) -> Void)? = nil) -> Value? {
        nil
    }

    public func delete(_ name: String) throws(VaultError) {
        throw VaultError(.storage, "not implemented")
    }

    public func reseal(_ name: String) throws(VaultError) {
        throw VaultError(.storage, "not implemented")
    }

    @discardableResult
    public func resealAll() throws(VaultError) -> Int {
        throw VaultError(.storage, "not implemented")
    }

    public func list() throws(VaultError) -> [RecordListing] {
        throw VaultError(.storage, "not implemented")
    }
}
