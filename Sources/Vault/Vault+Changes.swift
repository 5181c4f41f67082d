// STUB: the observation helper replaces this file.
extension Vault {
    /// Changes to one record (or every record when `name` is `nil`), driven by inotify: no polling.
    public func changes(to name: String? = nil) throws(VaultError) -> AsyncStream<VaultChange> {
        throw VaultError(.storage, "observation is not implemented yet")
    }
}
