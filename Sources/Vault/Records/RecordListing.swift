/// One record file as listed: its name, size and header (or why the header could not be read).
///
/// ```swift
/// for record in try vault.list() {
///     switch record.header {
///     case .success(let header): print(record.name, record.size, "key #\(header.keyID)")
///     case .failure(let error): print(record.name, "unreadable:", error)
///     }
/// }
/// ```
public struct RecordListing: Sendable {
    /// The record name (the file name without `.gvr`).
    public var name: String
    /// The file size in bytes.
    public var size: Int
    /// The unauthenticated header, or the typed reason it could not be parsed.
    public var header: Result<RecordHeader, VaultError>

    /// Creates a listing entry.
    public init(name: String, size: Int, header: Result<RecordHeader, VaultError>) {
        self.name = name
        self.size = size
        self.header = header
    }
}
