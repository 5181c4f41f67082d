import Foundation
import XCTest
@testable import GroupSync

/// The replica state's binary body (docs/SYNC.md, section 7, "The state's body"): what it
/// writes reads back as it was, and a body that is not one is refused, never trusted in part.
final class ReplicaStateBinaryTests: XCTestCase {
    /// A state with every member set to something other than its default, optional ones
    /// included, and a conflict key that is not ASCII.
    private func populated() -> ReplicaState {
        var state = ReplicaState()
        state.format = 7
        state.server = Data((0..<32).map { UInt8($0 * 8 + 3) })
        state.cursor = -9_000_000_000
        state.initialSyncDone = true
        state.entries[EntryName(hex: String(repeating: "ab", count: 32))!] = ReplicaState.Entry(
            seen: UInt64.max, seenDigest: [UInt8](repeating: 0xfb, count: 32), accepted: [UInt8](repeating: 0xff, count: 217),
            pending: [0xfe, 0xef, 0x3f], pendingNumber: 12, republishOver: 3)
        state.entries[EntryName(hex: String(repeating: "01", count: 32))!] = ReplicaState.Entry(seen: 1)
        state.refusals = ["rollback": 2, "authenticationFailed": 1]
        state.superseded = 4
        state.pushedWrites = 5
        state.coalescedWrites = 6
        state.conflicts = [
            ReplicaState.Conflict(key: "a/record \"name\" \\ é 🔑", winningSequence: 8, atMilliseconds: -1),
            ReplicaState.Conflict(key: "", winningSequence: 0, atMilliseconds: Int64.min),
        ]
        state.lastPushMilliseconds = 1_700_000_000_000
        state.lastPullMilliseconds = 1_700_000_000_001
        state.nextPendingNumber = 13
        state.awaitingKeys = [2: 40, 7: -1]
        return state
    }

    private func decode(_ bytes: [UInt8]) throws -> ReplicaState {
        try ReplicaStateBinary.decode(bytes[...])
    }

    /// Where the entries' count is in the body of a state with no optional member, refusal or
    /// conflict: after the flags, six integers and two empty counts. Its entries follow it.
    private static let entriesCount = 1 + 6 * 8 + 4 + 4
    private static let firstEntry = entriesCount + 4

    /// The first entry's flags byte in the body of a state whose only entry is named with
    /// 64 characters: after the name's length and the name.
    private static let firstEntryFlags = firstEntry + 4 + 64

    // MARK: Round trip

    func testEveryMemberReadsBackAsWritten() throws {
        XCTAssertEqual(try decode(ReplicaStateBinary.encode(populated())), populated())
    }

    func testAnEmptyStateReadsBackEmpty() throws {
        XCTAssertEqual(try decode(ReplicaStateBinary.encode(ReplicaState())), ReplicaState())
    }

    /// So that a member added to the state and not to the body fails the round trip above.
    func testThePopulatedStateSetsEveryMemberOfTheStateAndOfAnEntry() {
        let state = populated()
        for (member, value) in Mirror(reflecting: state).children {
            let empty = Mirror(reflecting: ReplicaState()).children.first { $0.label == member }!.value
            XCTAssertNotEqual(String(describing: value), String(describing: empty), "populated() leaves \(member!) at its default")
        }
        let entry = state.entries[EntryName(hex: String(repeating: "ab", count: 32))!]!
        for (member, value) in Mirror(reflecting: entry).children {
            let empty = Mirror(reflecting: ReplicaState.Entry()).children.first { $0.label == member }!.value
            XCTAssertNotEqual(String(describing: value), String(describing: empty), "populated()'s entry leaves \(member!) at its default")
        }
    }

    func testTenThousandEntriesReadBackAsWritten() throws {
        var state = ReplicaState()
        for index in 0..<10_000 {
            state.entries[EntryName(hex: String(format: "%064x", index))!] = ReplicaState.Entry(
                seen: UInt64(index), seenDigest: [UInt8](repeating: UInt8(index & 0xff), count: 32), accepted: [UInt8](repeating: 0, count: index % 300))
        }
        XCTAssertEqual(try decode(ReplicaStateBinary.encode(state)), state)
    }

    // MARK: Refusals

    func testABodyCutShortAnywhereIsRefused() {
        let bytes = ReplicaStateBinary.encode(populated())
        for cut in 0..<bytes.count {
            XCTAssertThrowsError(try decode(Array(bytes.prefix(cut))), "a body cut at byte \(cut) of \(bytes.count) was read")
        }
    }

    func testBytesAfterTheLastEntryAreRefused() {
        XCTAssertThrowsError(try decode(ReplicaStateBinary.encode(populated()) + [0]))
    }

    func testAStateFlagThisVersionDoesNotDefineIsRefused() {
        var bytes = ReplicaStateBinary.encode(ReplicaState())
        bytes[0] |= 0x20
        XCTAssertThrowsError(try decode(bytes))
    }

    /// The awaited keys are an optional member (flag 0x10): a state that awaits none is written
    /// byte for byte as before it, so a GroupSync that predates them reads it.
    func testAStateAwaitingNoKeyIsWrittenWithoutTheirFlag() {
        var state = populated()
        state.awaitingKeys = [:]
        XCTAssertEqual(ReplicaStateBinary.encode(state)[0] & 0x10, 0)
        XCTAssertEqual(ReplicaStateBinary.encode(populated())[0] & 0x10, 0x10)
    }

    func testAnAwaitedKeyGivenTwiceIsRefused() {
        var state = ReplicaState()
        state.awaitingKeys = [3: 10]
        var bytes = ReplicaStateBinary.encode(state)
        // The awaited keys follow the flags and six integers: their count, then id and change.
        let count = 1 + 6 * 8
        XCTAssertEqual(Array(bytes[count..<(count + 8)]), [0, 0, 0, 1, 0, 0, 0, 3], "the arrangement must find the awaited keys")
        bytes[count + 3] = 2
        bytes.insert(contentsOf: bytes[(count + 4)..<(count + 16)], at: count + 16)
        XCTAssertThrowsError(try decode(bytes))
    }

    func testAnEntryFlagThisVersionDoesNotDefineIsRefused() {
        var state = ReplicaState()
        state.entries[EntryName(hex: String(repeating: "cd", count: 32))!] = ReplicaState.Entry(seen: 1)
        var bytes = ReplicaStateBinary.encode(state)
        XCTAssertEqual(bytes[Self.firstEntryFlags], 0, "the arrangement must find the entry's flags")
        bytes[Self.firstEntryFlags] = 0x80
        XCTAssertThrowsError(try decode(bytes))
    }

    func testAnEntryNameGivenTwiceIsRefused() {
        var state = ReplicaState()
        state.entries[EntryName(hex: String(repeating: "cd", count: 32))!] = ReplicaState.Entry(seen: 1)
        var bytes = ReplicaStateBinary.encode(state)
        let entry = Array(bytes[Self.firstEntry...])
        bytes[Self.entriesCount + 3] = 2
        bytes += entry
        XCTAssertThrowsError(try decode(bytes))
    }

    func testANameThatIsNotUTF8IsRefused() {
        var state = ReplicaState()
        state.entries[EntryName(hex: String(repeating: "cd", count: 32))!] = ReplicaState.Entry(seen: 1)
        var bytes = ReplicaStateBinary.encode(state)
        bytes[Self.firstEntry + 4] = 0xff
        XCTAssertThrowsError(try decode(bytes))
    }

    func testANameThatIsNotLowercaseHexadecimalIsRefused() {
        var state = ReplicaState()
        state.entries[EntryName(hex: String(repeating: "cd", count: 32))!] = ReplicaState.Entry(seen: 1)
        var bytes = ReplicaStateBinary.encode(state)
        XCTAssertEqual(bytes[Self.firstEntry + 4], UInt8(ascii: "c"), "the arrangement must find the entry's name")
        bytes[Self.firstEntry + 4] = UInt8(ascii: "C")
        XCTAssertThrowsError(try decode(bytes))
    }

    func testACountLargerThanTheBytesLeftIsRefusedWithoutReservingIt() {
        var bytes = ReplicaStateBinary.encode(ReplicaState())
        // The entries' count, last in an empty state.
        bytes.replaceSubrange((bytes.count - 4)..., with: [0xff, 0xff, 0xff, 0xff])
        XCTAssertThrowsError(try decode(bytes))
    }
}
