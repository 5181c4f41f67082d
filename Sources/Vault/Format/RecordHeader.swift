#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``Vault/write(_:to:expiresAt:)`` sealed, and what ``Vault/list()`` reads without decrypting.
///
/// Listed headers are *not* authenticated (authentication needs the key and the whole blob):
/// use them to inspect and plan (which records still use an old key), never to decide trust.
///
/// ```swift
/// let header = try vault.write(state, to: "auth-state", expiresAt: tokenExpiry)
/// print(header.sequence, header.keyID)
/// ```
public struct RecordHeader: Sendable, Hashable {
    /// The blob format version (1).
    public var formatVersion: UInt8
    /// The id of the group key the blob is sealed with.
    public var keyID: UInt32
    /// The record's sequence number: every write, deletion and reseal of a name takes a higher one.
    public var sequence: UInt64
    /// When the record was written (millisecond precision). A reseal keeps the original time.
    public var issuedAt: Date
    /// When the record stops being valid (millisecond precision), or `nil` for never.
    public var expiresAt: Date?
    /// The schema version of the payload (0 for a tombstone).
    public var schemaVersion: UInt32
    /// True when the record was deleted: the blob is a sealed tombstone without a payload.
    public var isTombstone: Bool

    /// Creates a header value (for comparisons in callers' tests; vaults produce their own).
    public init(
        formatVersion: UInt8,
        keyID: UInt32,
        sequence: UInt64,
        issuedAt: Date,
        expiresAt: Date?,
        schemaVersion: UInt32,
        isTombstone: Bool
    ) {
        self.formatVersion = formatVersion
        self.keyID = keyID
        self.sequence = sequence
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.schemaVersion = schemaVersion
        self.isTombstone = isTombstone
    }
}
