#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// A ``ReplicaState`` as the binary body of a version 2 or 3 snapshot and of a version 2 or 3 journal
/// record (docs/SYNC.md, section 7, "The state's body"). Integers are big-endian, strings
/// and bytes carry a `u32` length, optional members are marked in a flags byte.
///
/// Why not JSON (version 1): a first sync of 10,000 values spent a tenth of its time writing the
/// state as JSON (every blob in base64, every name quoted) and reading it back takes
/// `JSONDecoder`; this is a length-prefixed copy of the same members. Version 1 files are still
/// read, with `JSONDecoder` (``ReplicaStateFile``, ``ReplicaJournal``).
enum ReplicaStateBinary {
    /// Why a body could not be read: it is authentic, so only a bug writes one.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    private enum StateFlag {
        static let server: UInt8 = 1 << 0
        static let lastPush: UInt8 = 1 << 1
        static let lastPull: UInt8 = 1 << 2
        static let initialSyncDone: UInt8 = 1 << 3
        static let awaitingKeys: UInt8 = 1 << 4
        static let all: UInt8 = 0x1f
    }

    private enum EntryFlag {
        static let seenDigest: UInt8 = 1 << 0
        static let accepted: UInt8 = 1 << 1
        static let pending: UInt8 = 1 << 2
        static let republishOver: UInt8 = 1 << 3
        static let all: UInt8 = 0x0f
    }

    // MARK: Writing

    static func encode(_ state: ReplicaState) -> [UInt8] {
        var out: [UInt8] = []
        encode(state, appendingTo: &out)
        return out
    }

    /// ``encode(_:)`` appended to `out`, with room reserved for 32 bytes more (a tag): a
    /// snapshot of a first sync's 10,000 entries is about 3 MB, and copying it into the file's
    /// bytes, then again for a tag, cost a millisecond each time (fresh pages).
    static func encode(_ state: ReplicaState, appendingTo out: inout [UInt8]) {
        // An entry is its name, about 60 bytes of fixed fields and its blobs (one or two).
        out.reserveCapacity(out.count + 256 + state.entries.count * 128 + state.entries.values.reduce(0) { $0 + ($1.accepted?.count ?? 0) + ($1.pending?.count ?? 0) } + 32)
        var flags: UInt8 = 0
        if state.server != nil { flags |= StateFlag.server }
        if state.lastPushMilliseconds != nil { flags |= StateFlag.lastPush }
        if state.lastPullMilliseconds != nil { flags |= StateFlag.lastPull }
        if state.initialSyncDone { flags |= StateFlag.initialSyncDone }
        // Only when a key is awaited: every other state stays readable by a GroupSync before it.
        if !state.awaitingKeys.isEmpty { flags |= StateFlag.awaitingKeys }
        out.append(flags)
        integer(Int64(state.format), &out)
        integer(state.cursor, &out)
        integer(state.nextPendingNumber, &out)
        integer(Int64(state.superseded), &out)
        integer(Int64(state.pushedWrites), &out)
        integer(Int64(state.coalescedWrites), &out)
        if let server = state.server { bytes(server, &out) }
        if let value = state.lastPushMilliseconds { integer(value, &out) }
        if let value = state.lastPullMilliseconds { integer(value, &out) }
        if !state.awaitingKeys.isEmpty {
            integer(UInt32(state.awaitingKeys.count), &out)
            for (id, change) in state.awaitingKeys.sorted(by: { $0.key < $1.key }) {
                integer(id, &out)
                integer(change, &out)
            }
        }
        integer(UInt32(state.refusals.count), &out)
        for (code, count) in state.refusals {
            string(code, &out)
            integer(Int64(count), &out)
        }
        integer(UInt32(state.conflicts.count), &out)
        for conflict in state.conflicts {
            string(conflict.key, &out)
            integer(conflict.winningSequence, &out)
            integer(conflict.atMilliseconds, &out)
        }
        integer(UInt32(state.entries.count), &out)
        for (name, entry) in state.entries {
            name.appendLengthPrefixedHex(to: &out)
            var flags: UInt8 = 0
            if entry.seenDigest != nil { flags |= EntryFlag.seenDigest }
            if entry.accepted != nil { flags |= EntryFlag.accepted }
            if entry.pending != nil { flags |= EntryFlag.pending }
            if entry.republishOver != nil { flags |= EntryFlag.republishOver }
            out.append(flags)
            integer(entry.seen, &out)
            integer(entry.pendingNumber, &out)
            if let digest = entry.seenDigest { out.appendLengthPrefixed(digest) }
            if let accepted = entry.accepted { out.appendLengthPrefixed(accepted) }
            if let pending = entry.pending { out.appendLengthPrefixed(pending) }
            if let over = entry.republishOver { integer(over, &out) }
        }
    }

    // The framing of SealedStorage's keyed messages: big-endian integers, a `u32` length before
    // bytes and strings.
    private static func integer(_ value: some FixedWidthInteger, _ out: inout [UInt8]) {
        out.appendBigEndian(value)
    }

    private static func bytes(_ value: Data, _ out: inout [UInt8]) {
        value.withUnsafeBytes { out.appendLengthPrefixed($0) }
    }

    private static func string(_ value: String, _ out: inout [UInt8]) {
        out.appendLengthPrefixed(value)
    }

    // MARK: Reading

    /// The state `body` holds, all of it: bytes left over, a flag this version does not define,
    /// a string that is not UTF-8, or a name, code or key id given twice are refused.
    static func decode(_ body: ArraySlice<UInt8>) throws(Malformed) -> ReplicaState {
        var reader = Reader(bytes: body)
        var state = ReplicaState()
        let flags = try reader.byte()
        guard flags & ~StateFlag.all == 0 else { throw Malformed(description: "the state has flags \(flags) this version does not define") }
        state.format = Int(try reader.integer(Int64.self))
        state.cursor = try reader.integer(Int64.self)
        state.nextPendingNumber = try reader.integer(UInt64.self)
        state.superseded = Int(try reader.integer(Int64.self))
        state.pushedWrites = Int(try reader.integer(Int64.self))
        state.coalescedWrites = Int(try reader.integer(Int64.self))
        if flags & StateFlag.server != 0 { state.server = try reader.data() }
        if flags & StateFlag.lastPush != 0 { state.lastPushMilliseconds = try reader.integer(Int64.self) }
        if flags & StateFlag.lastPull != 0 { state.lastPullMilliseconds = try reader.integer(Int64.self) }
        state.initialSyncDone = flags & StateFlag.initialSyncDone != 0
        if flags & StateFlag.awaitingKeys != 0 {
            for _ in 0..<(try reader.count(least: 4 + 8)) {
                let id = try reader.integer(UInt32.self)
                guard state.awaitingKeys.updateValue(try reader.integer(Int64.self), forKey: id) == nil else {
                    throw Malformed(description: "the awaited key #\(id) is given twice")
                }
            }
        }
        for _ in 0..<(try reader.count(least: 4 + 8)) {
            let code = try reader.string()
            let count = Int(try reader.integer(Int64.self))
            guard state.refusals.updateValue(count, forKey: code) == nil else { throw Malformed(description: "the refusal code \(code) is given twice") }
        }
        let conflicts = try reader.count(least: 4 + 8 + 8)
        state.conflicts.reserveCapacity(conflicts)
        for _ in 0..<conflicts {
            let key = try reader.string()
            state.conflicts.append(ReplicaState.Conflict(key: key, winningSequence: try reader.integer(UInt64.self), atMilliseconds: try reader.integer(Int64.self)))
        }
        let entries = try reader.count(least: 4 + 1 + 8 + 8)
        state.entries.reserveCapacity(entries)
        for _ in 0..<entries {
            let spelt = try reader.string()
            guard let name = EntryName(hex: spelt) else { throw Malformed(description: "an entry name is not 64 lowercase hexadecimal digits") }
            let flags = try reader.byte()
            guard flags & ~EntryFlag.all == 0 else { throw Malformed(description: "an entry has flags \(flags) this version does not define") }
            var entry = ReplicaState.Entry()
            entry.seen = try reader.integer(UInt64.self)
            entry.pendingNumber = try reader.integer(UInt64.self)
            if flags & EntryFlag.seenDigest != 0 { entry.seenDigest = try reader.byteArray() }
            if flags & EntryFlag.accepted != 0 { entry.accepted = try reader.byteArray() }
            if flags & EntryFlag.pending != 0 { entry.pending = try reader.byteArray() }
            if flags & EntryFlag.republishOver != 0 { entry.republishOver = try reader.integer(UInt64.self) }
            guard state.entries.updateValue(entry, forKey: name) == nil else { throw Malformed(description: "an entry name is given twice") }
        }
        guard reader.isAtEnd else { throw Malformed(description: "\(reader.bytesLeft) bytes follow the state") }
        return state
    }

    /// Reads the state from the front of its bytes, refusing any read past their end with how
    /// much was missing.
    private struct Reader {
        var input: BigEndianReader

        init(bytes: ArraySlice<UInt8>) {
            input = BigEndianReader(bytes)
        }

        var isAtEnd: Bool { input.isAtEnd }
        var bytesLeft: Int { input.remaining.count }

        mutating func take(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard let taken = input.bytes(count) else { throw Malformed(description: "the state ends \(count - bytesLeft) bytes early") }
            return taken
        }

        mutating func byte() throws(Malformed) -> UInt8 { try integer(UInt8.self) }

        mutating func integer<Value: FixedWidthInteger>(_: Value.Type) throws(Malformed) -> Value {
            guard let value = input.integer(Value.self) else {
                throw Malformed(description: "the state ends \(MemoryLayout<Value>.size - bytesLeft) bytes early")
            }
            return value
        }

        /// A `u32` count of items each at least `least` bytes long, refused when the bytes left
        /// cannot hold that many (so that a count is never trusted to reserve memory).
        mutating func count(least: Int) throws(Malformed) -> Int {
            let count = Int(try integer(UInt32.self))
            guard count <= bytesLeft / least else { throw Malformed(description: "a count of \(count) items does not fit the \(bytesLeft) bytes left") }
            return count
        }

        /// A `u32` length, then that many bytes; refused with how much was missing (which
        /// ``BigEndianReader/lengthPrefixed()``'s `nil` would not say).
        mutating func lengthPrefixed() throws(Malformed) -> ArraySlice<UInt8> {
            try take(Int(try integer(UInt32.self)))
        }

        mutating func data() throws(Malformed) -> Data {
            Data(try lengthPrefixed())
        }

        mutating func byteArray() throws(Malformed) -> [UInt8] {
            Array(try lengthPrefixed())
        }

        mutating func string() throws(Malformed) -> String {
            let utf8 = try lengthPrefixed()
            guard let string = String(validating: utf8, as: UTF8.self) else { throw Malformed(description: "a string is not UTF-8") }
            return string
        }
    }
}
