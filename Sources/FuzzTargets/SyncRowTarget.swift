import Foundation
import GroupSyncCore
import Keyring
import SealedStorage
import Vault

extension FuzzTarget {
    /// Everything a machine reads from a sync server: a row (name, sequence column, blob)
    /// judged by `ServerRow.judge` against what the machine has seen (docs/SYNC.md, sections 5
    /// and 7).
    ///
    /// Input: `u8 mode ‖ u64 seen ‖ u64 sequence ‖ 32-byte name ‖ rest`. Mode even: the rest is
    /// the blob as the server sent it; the judge must not trap, and an accepted row must carry
    /// its sequence column in its sealed header, be above `seen`, and hold a key that hashes to
    /// its name. Mode odd: the rest is a key (its first byte is its length) and a value, sealed
    /// honestly at `sequence`; the judge must accept exactly that key and value when `seen` is
    /// below it, refuse it as a rollback when above (as other content when equal), and refuse
    /// it once any byte is flipped.
    static let syncRow = FuzzTarget(
        name: "sync-row",
        summary: "ServerRow.judge on rows from a hostile server; honest rows accepted exactly, altered ones refused",
        run: { input throws(FuzzFinding) in
            guard input.count >= SyncRowChecks.headerCount else { return .refused }
            let mode = input[0]
            let seen = SyncRowChecks.u64(input, at: 1) % (1 << 31)
            let sequence = Int64(truncatingIfNeeded: SyncRowChecks.u64(input, at: 9))
            let name = Array(input[17..<49])
            let rest = Array(input[49...])
            if mode % 2 == 0 {
                return try SyncRowChecks.judgeRaw(ServerRow(name: name, sequence: sequence, change: 1, blob: rest), seen: seen)
            }
            return try SyncRowChecks.judgeHonest(rest, sequence: UInt64(sequence.magnitude % (1 << 31)) + 1, seen: seen)
        },
        seeds: {
            let honest = SyncRowChecks.honestRow(key: "theme", value: Array("dark".utf8), sequence: 3)
            return [
                "valid-honest-entry": SyncRowChecks.encode(mode: 1, seen: 0, sequence: 2, name: [UInt8](repeating: 0, count: 32), rest: [5] + Array("themedark".utf8)),
                // Found by libFuzzer in the harness: an honest row at the sequence already seen.
                "valid-honest-entry-at-seen-sequence": SyncRowChecks.encode(mode: 1, seen: 1, sequence: 0, name: [UInt8](repeating: 0, count: 32), rest: [5] + Array("themedark".utf8)),
                "valid-sealed-row": SyncRowChecks.encode(mode: 0, seen: 1, sequence: 3, name: honest.name, rest: honest.blob),
                "rollback-row": SyncRowChecks.encode(mode: 0, seen: 9, sequence: 3, name: honest.name, rest: honest.blob),
                "edited-sequence-column": SyncRowChecks.encode(mode: 0, seen: 0, sequence: 4, name: honest.name, rest: honest.blob),
                "truncated-blob": SyncRowChecks.encode(mode: 0, seen: 0, sequence: 3, name: honest.name, rest: Array(honest.blob.prefix(80))),
            ]
        })
}

/// The sync-row target's fixed key and checks.
enum SyncRowChecks {
    static let headerCount = 49
    // try!/force unwraps: fixed, valid constants; a failure is a broken harness, not a finding.
    static let group = GroupIdentifier(rawValue: "group.com.example.sync")!
    static let firstKey = try! SymmetricKey(bytes: (0..<32).map { UInt8($0) })
    static let groupKey = GroupKey(id: 1, group: group, key: firstKey)
    static let naming = SyncNaming(group: group, firstKey: firstKey)
    static let space = naming.space(store: "kvstore:ABCDE12345.com.example.sync")

    static func key(_ id: UInt32) throws(VaultError) -> GroupKey {
        guard id == 1 else { throw VaultError(.unknownKey, "key #\(id) is not in the fuzz keyset") }
        return groupKey
    }

    static func u64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func encode(mode: UInt8, seen: UInt64, sequence: UInt64, name: [UInt8], rest: [UInt8]) -> [UInt8] {
        var bytes = [mode]
        for value in [seen, sequence] { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
        return bytes + name + rest
    }

    static func honestRow(key: String, value: [UInt8], sequence: UInt64) -> (name: [UInt8], blob: [UInt8]) {
        let name = naming.name(space: space, key: key)
        // try!: a key of at most 255 bytes and a small value always seal.
        let blob = try! SyncEnvelope.seal(
            key: key, value: value, sequence: sequence, issuedAtMilliseconds: 1_700_000_000_000, groupKey: groupKey, name: name)
        return (name, blob)
    }

    static func judgeRaw(_ row: ServerRow, seen: UInt64) throws(FuzzFinding) -> FuzzOutcome {
        switch row.judge(seen: seen, seenDigest: nil, naming: naming, space: space, key: key) {
        case .accept(let envelope):
            try expect(envelope.sequence == UInt64(row.sequence), "an accepted row's sealed sequence \(envelope.sequence) differs from its column \(row.sequence)")
            try expect(envelope.sequence > seen, "a row at \(envelope.sequence) was accepted though \(seen) was seen")
            try expect(naming.name(space: space, key: envelope.key) == row.name, "an accepted row holds a key that does not hash to its name")
            return .accepted
        case .duplicate:
            throw FuzzFinding("a row was called a duplicate although nothing was seen with a digest")
        case .acceptAsAbsent:
            throw FuzzFinding("a row was called no entry of its store, though this target's store takes every entry")
        case .refuse:
            return .refused
        }
    }

    static func judgeHonest(_ rest: [UInt8], sequence: UInt64, seen: UInt64) throws(FuzzFinding) -> FuzzOutcome {
        guard let length = rest.first, rest.count >= 1 + Int(length) else { return .refused }
        let key = String(decoding: rest[1..<(1 + Int(length))], as: UTF8.self)
        let value = Array(rest[(1 + Int(length))...].prefix(4096))
        let row = honestRow(key: key, value: value, sequence: sequence)
        let server = ServerRow(name: row.name, sequence: Int64(sequence), change: 1, blob: row.blob)
        let verdict = server.judge(seen: seen, seenDigest: nil, naming: naming, space: space, key: SyncRowChecks.key)
        if seen < sequence {
            guard case .accept(let envelope) = verdict else { throw FuzzFinding("an honest row at \(sequence) above \(seen) was not accepted: \(verdict)") }
            try expect(envelope.key == key && envelope.value == value, "an honest row opened to another key or value")
        } else {
            // Below what was seen: a rollback. At it, with no digest known for what was seen
            // there: other content at a seen sequence.
            let expected: VaultError.Code = seen > sequence ? .rollback : .conflictingContent
            guard case .refuse(let error) = verdict, error.code == expected else {
                throw FuzzFinding("an honest row at \(sequence) with \(seen) seen was not refused as \(expected): \(verdict)")
            }
        }
        var altered = row.blob
        let position = Int(seen % UInt64(altered.count))
        altered[position] ^= 0x01
        let tampered = ServerRow(name: row.name, sequence: Int64(sequence), change: 1, blob: altered)
        guard case .refuse = tampered.judge(seen: 0, seenDigest: nil, naming: naming, space: space, key: SyncRowChecks.key) else {
            throw FuzzFinding("a row with byte \(position) flipped was accepted")
        }
        return .accepted
    }
}
