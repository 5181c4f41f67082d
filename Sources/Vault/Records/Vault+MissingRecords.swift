import SealedStorage

extension Vault {
    /// The names the trust ledger has trusted whose record file is gone, sorted.
    ///
    /// A writer never removes a record file (a deletion leaves a sealed tombstone), so a name
    /// the ledger knows with no file means the file was removed outside GroupVault: readers
    /// would report it as never written. `vaultcli records verify` and `doctor` report it.
    ///
    /// - Throws: ``VaultError/Code/keyring`` when the ledger cannot be read.
    public func recordsMissingFromDisk() throws(VaultError) -> [String] {
        let trusted = try ledger.recordNames()
        return trusted.filter { name in
            guard let recordName = try? RecordName(validating: name) else { return false }
            do {
                return try records.status(of: recordFileName(recordName)) == nil
            } catch {
                return false  // present but not inspectable: list() and read() report that
            }
        }
    }
}
