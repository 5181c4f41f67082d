import GroupSyncCore
import Keyring
import SealedStorage
import Vault

extension FuzzTarget {
    /// A space's snapshot as a sync server serves it (docs/SYNC.md, section 6, "Snapshots"),
    /// opened by `SyncSnapshot.open`.
    ///
    /// Input: `u8 mode ‖ rest`. Mode even: the rest is the snapshot's bytes, its change column
    /// read from its header; opening must not trap, and an opened snapshot must hold entries in
    /// strictly ascending name order, each at a sequence from 1 to 2^32 whose blob's header
    /// says it, and each shown key hashing to its entry's name. Mode odd: the rest describes entries (per
    /// entry a length byte, then that many bytes: the first byte of a key's length and the key,
    /// the rest its value), sealed honestly; opening must give exactly those entries back, and
    /// refuse the snapshot once any one byte is flipped.
    static let syncSnapshot = FuzzTarget(
        name: "sync-snapshot",
        summary: "SyncSnapshot.open on snapshots from a hostile server; honest ones read exactly, altered ones refused",
        run: { input throws(FuzzFinding) in
            guard let mode = input.first else { return .refused }
            let rest = Array(input.dropFirst())
            if mode % 2 == 0 { return try SyncSnapshotChecks.openRaw(rest) }
            return try SyncSnapshotChecks.openHonest(SyncSnapshotChecks.entries(from: rest), flipping: Int(mode / 2))
        },
        seeds: {
            let honest = try SyncSnapshotChecks.sealed(SyncSnapshotChecks.entries(from: [6, 3] + Array("keyab".utf8) + [4, 2] + Array("k2v".utf8)))
            return [
                "valid-honest-entries": [1, 6, 3] + Array("keyab".utf8) + [4, 2] + Array("k2v".utf8),
                "valid-sealed-snapshot": [0] + honest,
                "empty-snapshot-sealed": [1],
                "truncated-snapshot": [0] + Array(honest.prefix(60)),
            ]
        })
}

/// The sync-snapshot target's fixed key and checks (the sync-row target's group, key and space).
enum SyncSnapshotChecks {
    private static var naming: SyncNaming { SyncRowChecks.naming }
    private static var space: [UInt8] { SyncRowChecks.space }

    /// Honest entries from `bytes`: at most 64, sealed at sequences from 1, in name order; an
    /// entry whose key would be empty is shown as nothing (a removal).
    static func entries(from bytes: [UInt8]) -> [SyncSnapshot.Entry] {
        var entries: [[UInt8]: SyncSnapshot.Entry] = [:]
        var offset = 0
        while offset < bytes.count, entries.count < 64 {
            let length = Int(bytes[offset])
            let part = Array(bytes[(offset + 1)..<min(bytes.count, offset + 1 + length)])
            offset += 1 + length
            let keyLength = part.first.map { Int($0) % max(part.count, 1) } ?? 0
            let key = String(decoding: part.dropFirst().prefix(keyLength), as: UTF8.self)
            let value = Array(part.dropFirst(1 + keyLength))
            let sequence = UInt64(entries.count + 1)
            let row = SyncRowChecks.honestRow(key: key, value: value, sequence: sequence)
            let shown = key.isEmpty ? nil : SyncSnapshot.Shown(key: key, value: value)
            entries[row.name] = SyncSnapshot.Entry(name: row.name, sequence: sequence, blob: row.blob, shown: shown)
        }
        return entries.values.sorted { $0.name.lexicographicallyPrecedes($1.name) }
    }

    static func sealed(_ entries: [SyncSnapshot.Entry]) throws(FuzzFinding) -> [UInt8] {
        do {
            return try SyncSnapshot(change: 7, entries: entries).sealed(space: space, groupKey: SyncRowChecks.groupKey)
        } catch {
            throw FuzzFinding("honest entries could not be sealed: \(error)")
        }
    }

    static func openRaw(_ blob: [UInt8]) throws(FuzzFinding) -> FuzzOutcome {
        // The change column the header says, so that the checks past it are reached.
        let column = blob.count >= 20 ? Int64(truncatingIfNeeded: blob[12..<20].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) : 0
        let snapshot: SyncSnapshot
        do {
            snapshot = try SyncSnapshot.open(blob, change: column, space: space, naming: naming, key: SyncRowChecks.key)
        } catch {
            return .refused
        }
        try expect(snapshot.change == column, "an opened snapshot's change \(snapshot.change) differs from its column \(column)")
        for (index, entry) in snapshot.entries.enumerated() {
            if index > 0 {
                try expect(snapshot.entries[index - 1].name.lexicographicallyPrecedes(entry.name), "entry \(index) is out of name order")
            }
            try expect(entry.sequence >= 1 && entry.sequence <= ServerRow.sequenceWindow, "entry \(index) has sequence \(entry.sequence), outside 1 to 2^32")
            let header = try? BlobHeader.parse(entry.blob, subject: "a fuzzed entry")
            try expect(header?.sequence == entry.sequence, "entry \(index)'s blob is not sealed at its sequence")
            if let shown = entry.shown {
                try expect(naming.isName(entry.name, space: space, key: shown.key), "entry \(index) shows a key that does not hash to its name")
            }
        }
        return .accepted
    }

    static func openHonest(_ entries: [SyncSnapshot.Entry], flipping seed: Int) throws(FuzzFinding) -> FuzzOutcome {
        let blob = try sealed(entries)
        let opened: SyncSnapshot
        do {
            opened = try SyncSnapshot.open(blob, change: 7, space: space, naming: naming, key: SyncRowChecks.key)
        } catch {
            throw FuzzFinding("an honest snapshot of \(entries.count) entries was refused: \(error)")
        }
        try expect(opened == SyncSnapshot(change: 7, entries: entries), "an honest snapshot opened to other entries")
        var altered = blob
        let position = seed % altered.count
        altered[position] ^= 0x01
        do {
            _ = try SyncSnapshot.open(altered, change: 7, space: space, naming: naming, key: SyncRowChecks.key)
            throw FuzzFinding("a snapshot with byte \(position) flipped was read")
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            return .accepted
        }
    }
}
