#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record of any schema, kept as its payload's bytes: lets a tool run every check a reader
/// runs (authentication, key, freshness) without knowing the record's type, with
/// `Vault.readWithHeader(_:from:)`, whose header gives the schema (`vaultcli records show`,
/// GroupSync's adoption of a record of any type). Only ever decoded from a payload.
package struct OpaquePayload: VaultRecord {
    package static let schemaVersion: UInt32 = 0
    package static var supportedSchemaVersions: ClosedRange<UInt32> { 0...UInt32.max }
    /// The payload as the record holds it.
    package var bytes: Data

    package static func decode(schemaVersion: UInt32, from payload: Data) throws -> OpaquePayload {
        OpaquePayload(bytes: payload)
    }
}
