/// A change to a record file, as seen by ``Vault/changes(to:)``: "something changed, re-read".
public struct VaultChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the file.
    public enum Kind: String, Sendable, Hashable {
        /// The record file was replaced or created (a write, a reseal, or a deletion tombstone).
        case written
        /// The record file was removed from the directory.
        case removed
        /// Events were lost (the kernel queue overflowed): re-read everything of interest.
        case overflow
    }

    /// The record name; `nil` for ``Kind/overflow``.
    public var name: String?
    /// What happened.
    public var kind: Kind

    /// A change to `name` (or to everything, for ``Kind/overflow``).
    public init(name: String?, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// `written auth-state`, `removed auth-state` or `overflow *`.
    public var description: String { "\(kind.rawValue) \(name ?? "*")" }
}
