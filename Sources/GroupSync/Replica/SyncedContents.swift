import GroupSyncCore
import Vault

/// What a synced space holds, checked on every entry read from the server after it is
/// authenticated and named (docs/SYNC.md, section 5): an entry sealed by a key holder that is
/// not one of its store's is refused as `invalidRecord`, as a Vault record of the wrong shape
/// is, rather than accepted and shown as nothing.
enum SyncedContents: Sendable {
    /// The ubiquitous key-value store: keys of 1 to 64 bytes of UTF-8, values that decode as
    /// ``UbiquitousValue``.
    case keyValueStore
    /// Synced records: keys are Vault record names, and a value starts with the record's
    /// schema version (4 bytes); its JSON is the reader's type's to decode
    /// (``SyncedRecords/read(_:from:)``).
    case records

    /// Whether `values`, the store's whole contents, break one of its limits: the key-value
    /// store's key count or size (``UbiquitousStoreLimits``); synced records have none.
    func breaksLimits(_ values: [EntryName: SyncReplica.Value]) -> Bool {
        switch self {
        case .keyValueStore: UbiquitousStoreLimits.areBroken(by: values)
        case .records: false
        }
    }

    /// Why `envelope` is no entry of this store, or `nil` when it is one.
    func refusal(of envelope: SyncEnvelope) -> String? {
        switch self {
        case .keyValueStore:
            let keyBytes = envelope.key.utf8.count
            guard keyBytes > 0, keyBytes <= UbiquitousStoreLimits.maximumKeyBytes else {
                return "its key is \(keyBytes) bytes of UTF-8, and keys of the key-value store are 1 to \(UbiquitousStoreLimits.maximumKeyBytes)"
            }
            if let value = envelope.value, UbiquitousValue.decoded(value) == nil {
                return "its value is not a key-value store value (one JSON member naming a known type)"
            }
        case .records:
            // The reason leaves the key out: it is a key holder's, of any length.
            guard RecordName.problem(with: envelope.key) == nil else {
                return "its key (\(envelope.key.utf8.count) bytes) is no record name"
            }
            if let value = envelope.value, value.count < 4 {
                return "its value is \(value.count) bytes, shorter than a record's schema version"
            }
        }
        return nil
    }
}
