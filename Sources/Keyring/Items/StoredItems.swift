#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import SystemPackage

/// What one access group's items file of the sealed-JSON layout (`Keychains/<group>/items.sealed`,
/// before the keyring database) holds: its items, in insertion order. Read only to import them.
struct StoredItems: Codable, Sendable, Equatable {
    /// The layout of this value; a file with another number is refused, never guessed at.
    static let currentVersion = 1

    var version: Int
    var items: [KeychainItem]

    init(items: [KeychainItem]) {
        version = Self.currentVersion
        self.items = items
    }
}
