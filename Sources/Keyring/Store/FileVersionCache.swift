import SealedStorage
import SystemPackage

/// Decoded keyring files kept per process, each valid for one ``FileVersion`` of its file, so a
/// warm read costs one `lstat` instead of a read, an AEAD open, a JSON decode and the guarded
/// allocations of the keys it holds.
///
/// Callers take the version *before* reading the file: the content stored is then at least as
/// new as its version, and a newer file has another version, so nothing stale is ever returned.
/// Bounded: past ``capacity`` entries (many homes, e.g. in tests) it starts over.
final class FileVersionCache<Value: Sendable>: Sendable {
    /// The most entries kept.
    let capacity: Int
    /// By the path's text: keyed by `FilePath`, the table made each new process look
    /// `FilePath`'s `Hashable` conformance up among every loaded library's.
    private let entries = Locked<[String: (version: FileVersion, value: Value)]>([:])

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// The value cached for `path` at exactly `version`.
    func value(at path: FilePath, version: FileVersion) -> Value? {
        entries.withLock { table in
            guard let entry = table[path.string], entry.version == version else { return nil }
            return entry.value
        }
    }

    /// Keeps `value` as the content of `path` at `version`.
    func store(_ value: Value, at path: FilePath, version: FileVersion) {
        entries.withLock { table in
            if table.count >= capacity, table[path.string] == nil { table.removeAll(keepingCapacity: true) }
            table[path.string] = (version, value)
        }
    }
}
