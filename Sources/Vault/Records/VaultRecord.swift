#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Codable value that can be sealed into a vault, with its schema version and validation.
///
/// ```swift
/// struct AuthState: VaultRecord {
///     static let schemaVersion: UInt32 = 2
///     var isAuthenticated: Bool
///     var displayName: String?
///     func validate() throws { if isAuthenticated && displayName == nil { throw ... } }
/// }
/// ```
public protocol VaultRecord: Codable, Sendable {
    /// The schema version written with every new record of this type.
    static var schemaVersion: UInt32 { get }
    /// The schema versions a reader of this type accepts; defaults to ``schemaVersion`` only.
    static var supportedSchemaVersions: ClosedRange<UInt32> { get }
    /// Decodes a payload written with `schemaVersion` (in ``supportedSchemaVersions``); override
    /// to migrate older shapes. The default decodes `Self` from JSON.
    static func decode(schemaVersion: UInt32, from payload: Data) throws -> Self
    /// The record's own checks, run after decoding; throw to refuse it (``VaultError/Code/invalidRecord``).
    func validate() throws
}

extension VaultRecord {
    /// By default only ``schemaVersion``: a reader accepts what it writes.
    public static var supportedSchemaVersions: ClosedRange<UInt32> { schemaVersion...schemaVersion }

    /// By default decodes `Self` from the JSON payload, whatever the schema version.
    public static func decode(schemaVersion: UInt32, from payload: Data) throws -> Self {
        try JSONDecoder().decode(Self.self, from: payload)
    }

    /// By default accepts every decoded value.
    public func validate() throws {}
}
