import SealedStorage

extension Vault {
    /// What the records directory holds now for a name the trust ledger knows.
    enum RecordFileState {
        /// The record file is there.
        case present
        /// There is no entry by that name: the file is gone.
        case missing
        /// Whether the file is there could not be told (the lookup failed, or the ledger names
        /// something no record file can be called): neither gone nor there, and the reason says why.
        case uninspectable(VaultError)
    }

    /// The names the trust ledger has trusted whose record file is gone, sorted.
    ///
    /// A writer never removes a record file (a deletion leaves a sealed tombstone), so a name
    /// the ledger knows with no file means the file was removed outside GroupVault: readers
    /// would report it as never written. `vaultcli records verify` and `doctor` report it.
    ///
    /// Only a name whose lookup found no entry is gone. A file that cannot be inspected (the
    /// lookup failed) is not listed, because it is not known to be gone and `doctor` would
    /// record its deletion: ``verifyAll(progress:)`` reports it as a finding with its cause.
    ///
    /// - Throws: ``VaultError/Code/keyring`` when the ledger cannot be read.
    public func recordsMissingFromDisk() throws(VaultError) -> [String] {
        try ledger.recordNames().filter { name in
            if case .missing = recordFileState(name) { true } else { false }
        }
    }

    /// Whether the record file of the ledger row `name` is there now: the one answer both
    /// ``recordsMissingFromDisk()`` and ``verifyAll(progress:)`` give.
    func recordFileState(_ name: String) -> RecordFileState {
        let recordName: RecordName
        do {
            recordName = try RecordName(validating: name)
        } catch {
            // Writers name rows by valid record names only: this one no file can carry.
            return .uninspectable(VaultError(.invalidRecord, "the trust ledger of \(group) has a row no record file can belong to: \(error.reason)", underlyingError: error))
        }
        do {
            return try records.status(of: recordFileName(recordName)) == nil ? .missing : .present
        } catch {
            return .uninspectable(VaultError(storage: error, while: "look for the file of \(subject(recordName)), which the trust ledger knows"))
        }
    }
}
