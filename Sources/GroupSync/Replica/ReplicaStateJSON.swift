#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// Writes a ``ReplicaState`` as the JSON that its `Codable` conformance reads back (the snapshot
/// body and a journal record's, docs/SYNC.md, section 7): the same members, `Data` as base64,
/// absent optionals left out, object members in sorted order.
///
/// Why not `JSONEncoder`: a first sync of 10,000 values spent 39% of its time in it (the state is
/// thousands of small objects with base64 members, each through `Encoder` containers); this
/// writes the bytes directly, strings through SealedStorage's `JSONStringWriter` (the one the
/// channel's messages use). Reading stays with `JSONDecoder`, so the format has one parser.
/// `ReplicaStateJSONTests` proves that `JSONDecoder` reads back every field, and that the
/// members are exactly those `JSONEncoder` writes, so a field added to the state and not here fails
/// a test.
enum ReplicaStateJSON {
    static func encode(_ state: ReplicaState) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + state.entries.count * 512)
        out.append(UInt8(ascii: "{"))
        member("coalescedWrites", &out, first: true); number(state.coalescedWrites, &out)
        member("conflicts", &out)
        out.append(UInt8(ascii: "["))
        for (index, conflict) in state.conflicts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            member("atMilliseconds", &out, first: true); number(conflict.atMilliseconds, &out)
            member("key", &out); string(conflict.key, &out)
            member("winningSequence", &out); number(conflict.winningSequence, &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        member("cursor", &out); number(state.cursor, &out)
        member("entries", &out)
        out.append(UInt8(ascii: "{"))
        for (index, (name, value)) in state.entries.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            string(name, &out)
            out.append(UInt8(ascii: ":"))
            entry(value, &out)
        }
        out.append(UInt8(ascii: "}"))
        member("format", &out); number(state.format, &out)
        member("initialSyncDone", &out); out += Array((state.initialSyncDone ? "true" : "false").utf8)
        if let value = state.lastPullMilliseconds { member("lastPullMilliseconds", &out); number(value, &out) }
        if let value = state.lastPushMilliseconds { member("lastPushMilliseconds", &out); number(value, &out) }
        member("nextPendingNumber", &out); number(state.nextPendingNumber, &out)
        member("pushedWrites", &out); number(state.pushedWrites, &out)
        member("refusals", &out)
        out.append(UInt8(ascii: "{"))
        for (index, code) in state.refusals.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            string(code, &out)
            out.append(UInt8(ascii: ":"))
            number(state.refusals[code]!, &out)
        }
        out.append(UInt8(ascii: "}"))
        if let server = state.server { member("server", &out); data(server, &out) }
        member("superseded", &out); number(state.superseded, &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func entry(_ entry: ReplicaState.Entry, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        if let accepted = entry.accepted { member("accepted", &out, first: first); data(accepted, &out); first = false }
        if let pending = entry.pending { member("pending", &out, first: first); data(pending, &out); first = false }
        member("pendingNumber", &out, first: first); number(entry.pendingNumber, &out)
        if let over = entry.republishOver { member("republishOver", &out); number(over, &out) }
        member("seen", &out); number(entry.seen, &out)
        if let digest = entry.seenDigest { member("seenDigest", &out); data(digest, &out) }
        out.append(UInt8(ascii: "}"))
    }

    /// `,"name":` (without the comma for the first member). Member names are ASCII identifiers.
    private static func member(_ name: StaticString, _ out: inout [UInt8], first: Bool = false) {
        if !first { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out += $0 }
        out += [UInt8(ascii: "\""), UInt8(ascii: ":")]
    }

    /// Decimal digits, written in place (a `String` per number was a tenth of the writer's time).
    private static func number(_ value: some BinaryInteger, _ out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        out[start...].reverse()
    }

    private static func data(_ value: Data, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        out += value.base64EncodedData()
        out.append(UInt8(ascii: "\""))
    }

    /// A JSON string as `JSONEncoder` with `.withoutEscapingSlashes` writes it.
    private static func string(_ value: String, _ out: inout [UInt8]) {
        JSONStringWriter.write(value, slashes: .unescaped, to: &out)
    }
}
