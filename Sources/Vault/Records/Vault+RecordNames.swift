import SealedStorage

extension Vault {
    /// The names of the group's record files that start with `prefix`, sorted, read from the
    /// directory alone: nothing is opened, parsed or authenticated.
    ///
    /// For stores built on records (SharedDefaults keeps one record per key) that must find
    /// their records among thousands without reading every blob twice, as ``list()`` followed
    /// by reads would. A name here is only a candidate: ``read(_:from:)`` decides trust.
    /// - Throws: ``VaultError/Code/storage`` if the records directory cannot be used.
    package func recordNames(withPrefix prefix: String) throws(VaultError) -> [String] {
        let names: [String]
        do {
            names = try records.names()
        } catch {
            throw VaultError(storage: error, while: "list the records of \(group)")
        }
        let suffix = ".\(Self.recordFileExtension)"
        return names
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }
            .map { String($0.dropLast(suffix.count)) }
            .filter { RecordName.problem(with: $0) == nil }
            .sorted()
    }
}
