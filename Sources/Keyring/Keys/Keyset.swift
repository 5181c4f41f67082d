#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The stored form of one access group's keyset: numbered 256-bit keys, exactly one of them
/// primary (seals new data), the others active (open old data) or retired (bytes erased).
///
/// It is stored one row per key in the keyring database (``KeysetTable``), each key's bytes
/// sealed under a key derived from the home's master secret and bound to its group and id; its
/// JSON form is that of the earlier layout's `keyset.sealed`, read only to import it. In memory
/// the bytes live only in ``SymmetricKey`` (guarded pages); `description` and `dump` show ids
/// and statuses only.
///
/// Decoding and ``validated(_:)`` check the invariants (unique ids, one primary, bytes present
/// exactly for keys that are not retired) so a keyset that violates them is reported as
/// corrupted, never used.
package struct Keyset: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The earlier layout's sealed document kind and file name stem (`keyset.sealed`), also the
    /// name of its import in the database's `imports` table.
    package static let documentKind = "keyset"
    /// The version of this JSON shape; others are refused rather than misread.
    package static let currentVersion = 1

    /// One key: what may be shown about it, and its bytes while it is not retired.
    package struct Entry: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// Id, dates and status.
        package var descriptor: KeyDescriptor
        /// The key bytes; `nil` exactly when the key is retired.
        package var key: SymmetricKey?

        package init(descriptor: KeyDescriptor, key: SymmetricKey?) {
            self.descriptor = descriptor
            self.key = key
        }

        private enum CodingKeys: String, CodingKey {
            case descriptor
            case key
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            descriptor = try container.decode(KeyDescriptor.self, forKey: .descriptor)
            guard let encoded = try container.decodeIfPresent(String.self, forKey: .key) else {
                key = nil
                return
            }
            guard var bytes = Data(base64Encoded: encoded).map(Array.init) else {
                throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "key #\(descriptor.id) is not base64")
            }
            defer { bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
            do {
                key = try SymmetricKey(bytes: bytes)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "key #\(descriptor.id): \(error)")
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(descriptor, forKey: .descriptor)
            if let key {
                // The JSON encoder needs the bytes in ordinary memory for a moment; this copy is
                // zeroed at once, and the JSON itself only ever goes into the sealing call.
                var bytes = key.exportedBytes()
                defer { bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
                try container.encode(Data(bytes).base64EncodedString(), forKey: .key)
            }
        }

        package static func == (lhs: Entry, rhs: Entry) -> Bool {
            guard lhs.descriptor == rhs.descriptor else { return false }
            switch (lhs.key, rhs.key) {
            case (nil, nil): return true
            case (let left?, let right?): return left.constantTimeEquals(right)
            default: return false
            }
        }

        package var description: String { descriptor.description }
        package var debugDescription: String { description }
        /// Mirrors the descriptor only, so `dump` cannot reach the key.
        package var customMirror: Mirror { Mirror(self, children: ["descriptor": descriptor]) }
    }

    /// The keys, in ascending id order.
    package private(set) var entries: [Entry]

    /// An empty keyset; the first ``rotate(now:)`` gives it key 1.
    package init() {
        entries = []
    }

    private enum CodingKeys: String, CodingKey {
        case version
        case keys
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "keyset version \(version) is not supported (this build reads version \(Self.currentVersion))")
        }
        entries = try container.decode([Entry].self, forKey: .keys).sorted { $0.descriptor.id < $1.descriptor.id }
        if let problem = problem {
            throw DecodingError.dataCorruptedError(forKey: .keys, in: container, debugDescription: problem)
        }
    }

    /// A keyset of `entries` (any order), or `nil` with the reason when they break the
    /// keyset's rules (unique non-zero ids, exactly one primary, bytes exactly for unretired keys).
    package static func validated(_ entries: [Entry]) -> (keyset: Keyset?, problem: String?) {
        var keyset = Keyset()
        keyset.entries = entries.sorted { $0.descriptor.id < $1.descriptor.id }
        if let problem = keyset.problem { return (nil, problem) }
        return (keyset, nil)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.currentVersion, forKey: .version)
        try container.encode(entries, forKey: .keys)
    }

    /// What is wrong with the keyset's invariants, or `nil` when they hold.
    private var problem: String? {
        let ids = entries.map(\.descriptor.id)
        if Set(ids).count != ids.count { return "key ids are not unique" }
        if ids.contains(0) { return "key id 0 is not valid" }
        let primaries = entries.filter { $0.descriptor.status == .primary }.count
        if !entries.isEmpty && primaries != 1 { return "it has \(primaries) primary keys; exactly one is required" }
        for entry in entries where (entry.descriptor.status == .retired) != (entry.key == nil) {
            return "key #\(entry.descriptor.id) is \(entry.descriptor.status.rawValue) but its bytes are \(entry.key == nil ? "missing" : "present")"
        }
        return nil
    }

    /// The descriptors, in ascending id order.
    package var descriptors: [KeyDescriptor] { entries.map(\.descriptor) }

    /// The primary entry, `nil` for an empty keyset.
    package var primary: Entry? { entries.first { $0.descriptor.status == .primary } }

    /// The entry with `id`, whatever its status.
    package func entry(id: UInt32) -> Entry? { entries.first { $0.descriptor.id == id } }

    /// Adds a fresh key as primary and demotes the previous primary to active.
    ///
    /// The new id is one more than the highest ever used; retired keys keep their descriptors,
    /// so an id is never given to a second key (a blob naming an old id cannot be opened by a
    /// different key that happens to reuse it).
    /// - Returns: The new primary entry, or `nil` if the ids are exhausted.
    package mutating func rotate(now: Date) -> Entry? {
        let highest = entries.map(\.descriptor.id).max() ?? 0
        guard highest < UInt32.max else { return nil }
        for index in entries.indices where entries[index].descriptor.status == .primary {
            entries[index].descriptor.status = .active
        }
        let entry = Entry(descriptor: KeyDescriptor(id: highest + 1, createdAt: now, status: .primary), key: SymmetricKey())
        entries.append(entry)
        return entry
    }

    /// Marks `id` retired and drops its bytes. The caller has checked that it exists and is
    /// not primary. Retiring a retired key changes nothing (its first retirement date stays).
    package mutating func retire(id: UInt32, now: Date) {
        guard let index = entries.firstIndex(where: { $0.descriptor.id == id }),
              entries[index].descriptor.status == .active else { return }
        entries[index].descriptor.status = .retired
        entries[index].descriptor.retiredAt = now
        // Dropping the last reference makes SecureBytes zero and unmap the guarded pages.
        entries[index].key = nil
    }

    package var description: String { "Keyset(\(entries.map(\.description).joined(separator: ", ")))" }
    package var debugDescription: String { description }
    /// Mirrors descriptors only, so `dump` cannot reach the keys.
    package var customMirror: Mirror { Mirror(self, children: ["keys": descriptors]) }
}
