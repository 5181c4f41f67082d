#if canImport(FoundationEssentials)
// Only what the read path needs, so the cold-read child loads no more of Foundation than
// GroupVault itself does.
import FoundationEssentials
#else
import Foundation
#endif
import Vault

/// The record every Vault figure writes and reads: an app's auth state padded so that its
/// JSON payload is exactly ``payloadSize`` bytes, the size the C floors seal and open.
public struct BenchRecord: VaultRecord, Equatable {
    /// The only schema the benchmark writes and reads.
    public static let schemaVersion: UInt32 = 1
    /// The JSON payload size every record has: 1 KiB.
    public static let payloadSize = 1024

    /// Whether someone is signed in.
    public var isAuthenticated: Bool
    /// Who, for display.
    public var displayName: String
    /// Which record of the group this is, so no two records are equal.
    public var index: Int
    /// Opaque session data, sized so the whole payload is ``payloadSize`` bytes.
    public var sessionToken: String

    /// The `index`th record of a group, padded to ``payloadSize`` bytes of JSON.
    public static func make(index: Int) -> BenchRecord {
        var record = BenchRecord(isAuthenticated: true, displayName: "Ada Lovelace", index: index, sessionToken: "")
        // The encoder Vault uses: sorted keys, no whitespace, so one byte of token is one byte of payload.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let unpadded = (try? encoder.encode(record).count) ?? 0
        record.sessionToken = String(repeating: "a", count: max(0, payloadSize - unpadded))
        return record
    }
}
