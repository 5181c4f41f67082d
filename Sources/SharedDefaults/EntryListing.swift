import Vault

extension SharedDefaults {
    /// One stored entry of a suite, as ``SharedDefaults/entries()`` lists it.
    public struct EntryListing: Sendable, Equatable {
        /// What the entry is now, as this process reads it.
        public enum State: Sendable, Equatable {
            /// The entry opened and holds this value.
            case value(Value)
            /// The entry is refused, with the Vault's reason: `missing` (written, then its file
            /// deleted outside SharedDefaults), `rollback`, `authenticationFailed`, ...
            case refused(VaultError)
        }

        /// The key; `nil` for a refused entry this process never opened, whose key it cannot
        /// know (record names are keyed hashes): it is listed by ``recordName``.
        public var key: String?
        /// The Vault record holding the entry.
        public var recordName: String
        /// The entry's state.
        public var state: State

        /// An entry listing.
        public init(key: String?, recordName: String, state: State) {
            self.key = key
            self.recordName = recordName
            self.state = state
        }
    }
}
