import SealedStorage

/// The trust ledger's steps of a Vault write, where a test can inject a fault
/// (`GROUPVAULT_FAULT=ledger-intent:...`): declared here, where they are taken, not in the file
/// layer below.
extension FaultPoint {
    /// Committing a Vault write's intent (its new sequence) to the trust ledger, before the
    /// record file is touched.
    package static let ledgerIntent = FaultPoint(rawValue: "ledger-intent")
    /// Committing that the announced sequence was published, after the rename.
    package static let ledgerConfirm = FaultPoint(rawValue: "ledger-confirm")

    /// The ledger's steps: before and after the file layer's (``fileLayerSteps``) in a write.
    package static let ledgerSteps: [FaultPoint] = [.ledgerIntent, .ledgerConfirm]
}
