import Keyring

extension Vault {
    /// Every row of the group's trust ledger, sorted by record name, with its stored tag.
    ///
    /// For inspection from outside (`vaultcli records ledger`): rows whose tag fails are
    /// returned and marked (``TrustLedgerRow/isAuthentic``) rather than refused, so one altered
    /// row does not hide the others. Reads only; the ledger is not raised or repaired.
    ///
    /// - Throws: ``VaultError/Code/keyring`` when the keyring database cannot be read (for
    ///   instance before the first unlock).
    public func ledgerRows() throws(VaultError) -> [TrustLedgerRow] {
        try ledger.storedRows().map { stored in
            TrustLedgerRow(
                record: stored.record, confirmed: stored.row.confirmed, confirmedDigest: stored.row.confirmedDigest,
                pending: stored.row.pending, pendingDigest: stored.row.pendingDigest,
                tag: stored.tag, isAuthentic: stored.isAuthentic)
        }
    }
}
