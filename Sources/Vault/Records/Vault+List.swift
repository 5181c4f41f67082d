import SealedStorage

extension Vault {
    /// Every record file with its size and header, read without decrypting anything.
    ///
    /// ```swift
    /// let stale = try vault.list().filter { (try? $0.header.get().keyID) != primaryID }
    /// ```
    ///
    /// Headers are not authenticated here (that needs the key); a file whose header cannot be
    /// parsed is listed with the typed reason. Sorted by name.
    /// - Throws: ``VaultError/Code/storage`` if the records directory cannot be used.
    public func list() throws(VaultError) -> [RecordListing] {
        try list(entries: try directoryEntries(while: "list the records of \(group)"))
    }

    /// The records directory's entry names (``DirectoryHandle/names()``), temporaries included.
    package func directoryEntries(while operation: String) throws(VaultError) -> [String] {
        do {
            return try records.names()
        } catch {
            throw VaultError(storage: error, while: operation)
        }
    }

    /// ``list()`` over `entries`, a listing of the records directory already made.
    package func list(entries names: [String]) throws(VaultError) -> [RecordListing] {
        let suffix = ".\(Self.recordFileExtension)"
        var listings: [RecordListing] = []
        for file in names where file.hasSuffix(suffix) && !file.hasPrefix(".") {
            let stem = String(file.dropLast(suffix.count))
            let name: RecordName
            do {
                name = try RecordName(validating: stem)
            } catch {
                listings.append(RecordListing(name: stem, size: size(of: file), header: .failure(error)))
                continue
            }
            do {
                // Gone between the directory listing and the read: no longer a record.
                guard let blob = try readBlob(name) else { continue }
                let header = Result { () throws(VaultError) in try BlobHeader.parse(blob, subject: subject(name)).recordHeader }
                listings.append(RecordListing(name: stem, size: blob.count, header: header))
            } catch {
                listings.append(RecordListing(name: stem, size: size(of: file), header: .failure(error)))
            }
        }
        return listings
    }

    private func size(of file: String) -> Int {
        guard let status = try? records.status(of: file) else { return 0 }
        return Int(status.size)
    }
}

extension Vault {
    /// The record names starting with `prefix` that the trust ledger has a row for, sorted,
    /// whether or not their files are there: one query, nothing opened.
    ///
    /// For stores built on records (SharedDefaults) that list their records from the directory
    /// (``recordNames(withPrefix:)``): a name here whose file is not listed was written and has
    /// since been removed outside GroupVault, and ``read(_:from:)`` refuses it as
    /// ``VaultError/Code/missing``, where a directory listing alone would not know it existed.
    /// - Throws: ``VaultError/Code/keyring`` when the ledger cannot be read.
    package func ledgerRecordNames(withPrefix prefix: String) throws(VaultError) -> [String] {
        try ledger.recordNames().filter { $0.hasPrefix(prefix) }
    }
}
