import Foundation
@testable import GroupSync
import SealedStorage

/// The states of Fixtures/journal-v1 (see its README): a snapshot written by the first save,
/// then two journal records, by the GroupSync that wrote version 1.
enum ReplicaStateVersion1Fixture {
    /// The key the fixture's files are tagged with: bytes 0 to 31.
    static func key() throws -> SymmetricKey { try SymmetricKey(bytes: (0..<32).map { UInt8($0) }) }
    static let label = "s-fixture"

    /// The three states saved in turn; the last is what opening the fixture must give.
    static func states() -> [ReplicaState] {
        var first = ReplicaState()
        first.server = Data((0..<32).map { UInt8(255 - $0) })
        first.cursor = 3
        for index in 0..<3 {
            first.entries[EntryName(hex: String(format: "%064x", index))!] = ReplicaState.Entry(
                seen: UInt64(index + 1), seenDigest: [UInt8](repeating: UInt8(index), count: 32),
                accepted: (0..<150).map { UInt8(($0 * 7 + index) & 0xff) })
        }
        first.refusals = ["rollback": 1]
        first.lastPullMilliseconds = 1_764_300_000_000
        var second = first
        second.cursor = 5
        second.entries[EntryName(hex: String(format: "%064x", 3))!] = ReplicaState.Entry(
            seen: 1, seenDigest: [UInt8](repeating: 0xfb, count: 32), accepted: [UInt8](repeating: 0xff, count: 63),
            republishOver: 0)
        second.entries[EntryName(hex: String(format: "%064x", 1))!]?.pending = [0xfe, 0xef, 0x3f, 0x00]
        second.entries[EntryName(hex: String(format: "%064x", 1))!]?.pendingNumber = 1
        second.nextPendingNumber = 2
        second.coalescedWrites = 1
        var third = second
        third.initialSyncDone = true
        third.entries[EntryName(hex: String(format: "%064x", 2))!]?.seen = 9
        third.conflicts = [ReplicaState.Conflict(key: "a/record \"name\" é 🔑", winningSequence: 9, atMilliseconds: -1)]
        third.superseded = 2
        third.pushedWrites = 7
        third.lastPushMilliseconds = 1_764_300_000_500
        third.refusals["authenticationFailed"] = 3
        return [first, second, third]
    }
}
