/// How far a group-wide operation (``Vault/resealAll(progress:)``, ``Vault/verifyAll(progress:)``)
/// has got: reported once per record, so a command-line tool can show a counter.
public struct VaultProgress: Sendable, Equatable, CustomStringConvertible {
    /// Records processed so far, this one included.
    public var completed: Int
    /// Records the operation will process in all.
    public var total: Int
    /// The record just processed (a file name from the container: escape it before printing).
    public var name: String

    /// Creates a progress report.
    public init(completed: Int, total: Int, name: String) {
        self.completed = completed
        self.total = total
        self.name = name
    }

    /// `12/500`.
    public var description: String { "\(completed)/\(total)" }
}
