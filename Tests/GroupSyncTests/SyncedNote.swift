import Vault

/// A synced record with one text field, schema 1: the record type of the suites that only need
/// some record to sync, drop and find again.
struct SyncedNote: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    var text: String
}
