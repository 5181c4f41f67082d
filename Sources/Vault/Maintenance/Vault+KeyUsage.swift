extension Vault {
    /// The names of the records whose header says they are sealed with key `id`, sorted: what
    /// retiring that key would make unreadable.
    ///
    /// Read from the headers without decrypting (as ``list()`` does); tombstones count too,
    /// since a tombstone sealed with a retired key can no longer prove the deletion.
    ///
    /// - Throws: As ``list()``.
    public func records(sealedWithKey id: UInt32) throws(VaultError) -> [String] {
        try list().compactMap { listing in
            guard case .success(let header) = listing.header, header.keyID == id else { return nil }
            return listing.name
        }
    }
}
