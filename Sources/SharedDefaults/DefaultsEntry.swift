import Vault

/// The sealed content of one key of one suite: a Vault record of its own.
///
/// The suite and key are sealed with the value although the record name already derives from
/// them: the record name is a keyed hash, so a reader needs the key's text to list the suite,
/// and checking both against the record name it was read from makes an entry that claims
/// another suite or key (sealed by a key holder under the wrong name) a refusal, not a value.
struct DefaultsEntry: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    /// The suite the entry belongs to.
    var suite: String
    /// The key, in full.
    var key: String
    /// The value.
    var value: SharedDefaults.Value
}
