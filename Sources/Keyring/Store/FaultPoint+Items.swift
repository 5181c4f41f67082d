import SealedStorage

/// The keyring's item-transaction steps, where a test can inject a fault
/// (`GROUPVAULT_FAULT=item-commit:...`): declared here, where they are taken, not in the file
/// layer below.
extension FaultPoint {
    /// Inside a keyring item transaction, after its first row change and before the next (a
    /// move: after the item is written to its target group, before it leaves its source).
    package static let itemStep = FaultPoint(rawValue: "item-step")
    /// Committing a keyring item transaction, after every row change.
    package static let itemCommit = FaultPoint(rawValue: "item-commit")

    /// The item transaction's steps.
    package static let itemSteps: [FaultPoint] = [.itemStep, .itemCommit]
}
