#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// A symmetric 256-bit key from an access group's keyset, with its id.
///
/// The bytes live in guarded memory that is zeroed when the last copy goes away; `description`
/// shows the id only. Vault seals with the primary key and opens with the key a blob names.
public struct GroupKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key's number within its group's keyset (1, 2, 3, ...; never reused).
    public let id: UInt32
    /// The access group whose keyset holds the key.
    public let group: GroupIdentifier
    package let key: SymmetricKey

    package init(id: UInt32, group: GroupIdentifier, key: SymmetricKey) {
        self.id = id
        self.group = group
        self.key = key
    }

    /// The group and key id; never the key bytes.
    public var description: String { "GroupKey(\(group) #\(id), 256 bits redacted)" }
    /// Same as ``description``: the bytes stay hidden in debug output too.
    public var debugDescription: String { description }
}

/// What is known about a key without its bytes: safe to list and print.
public struct KeyDescriptor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where a key is in its life.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Seals new data. Exactly one key of a keyset is primary.
        case primary
        /// Kept for opening data sealed before the last rotation.
        case active
        /// Refused for everything; its bytes have been erased from the keyset.
        case retired
    }

    /// The key id.
    public var id: UInt32
    /// When the key was created.
    public var createdAt: Date
    /// Its status.
    public var status: Status
    /// When it was retired, if it was.
    public var retiredAt: Date?

    /// Describes a key.
    public init(id: UInt32, createdAt: Date, status: Status, retiredAt: Date? = nil) {
        self.id = id
        self.createdAt = createdAt
        self.status = status
        self.retiredAt = retiredAt
    }

    /// `key #2 (primary, created ...)`.
    public var description: String { "key #\(id) (\(status.rawValue), created \(createdAt))" }
}
