import Foundation
import XCTest
@testable import GroupSync

/// The replica state's JSON writer (snapshot and journal bodies, docs/SYNC.md, section 7) against
/// the `Codable` conformance that reads it back.
final class ReplicaStateJSONTests: XCTestCase {
    /// A state with every field set, optional ones included, and bytes whose base64 has `/` and `+`.
    private func populated(conflictKey: String = "a/record \"name\" \\ é 🔑") -> ReplicaState {
        var state = ReplicaState()
        state.server = Data((0..<32).map { UInt8($0 * 8 + 3) })
        state.cursor = 9_000_000_000
        state.initialSyncDone = true
        state.entries[String(repeating: "ab", count: 32)] = ReplicaState.Entry(
            seen: UInt64.max, seenDigest: Data(repeating: 0xfb, count: 32), accepted: Data(repeating: 0xff, count: 217),
            pending: Data([0xfe, 0xef, 0x3f]), pendingNumber: 12, republishOver: 3)
        state.entries[String(repeating: "01", count: 32)] = ReplicaState.Entry(seen: 1)
        state.refusals = ["rollback": 2, "authenticationFailed": 1]
        state.superseded = 4
        state.pushedWrites = 5
        state.coalescedWrites = 6
        state.conflicts = [ReplicaState.Conflict(key: conflictKey, winningSequence: 8, atMilliseconds: -1)]
        state.lastPushMilliseconds = 1_700_000_000_000
        state.lastPullMilliseconds = 1_700_000_000_001
        state.nextPendingNumber = 13
        return state
    }

    func testJSONDecoderReadsBackEveryField() throws {
        let state = populated()
        XCTAssertEqual(try JSONDecoder().decode(ReplicaState.self, from: Data(ReplicaStateJSON.encode(state))), state)
    }

    func testAnEmptyStateReadsBackEmpty() throws {
        XCTAssertEqual(try JSONDecoder().decode(ReplicaState.self, from: Data(ReplicaStateJSON.encode(ReplicaState()))), ReplicaState())
    }

    /// Byte for byte what `JSONEncoder` writes with sorted keys and unescaped slashes: so a field
    /// added to the state and not to the writer fails here.
    private func assertSameBytesAsJSONEncoder(_ state: ReplicaState, file: StaticString = #filePath, line: UInt = #line) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        XCTAssertEqual(String(decoding: ReplicaStateJSON.encode(state), as: UTF8.self), String(decoding: try encoder.encode(state), as: UTF8.self), file: file, line: line)
    }

    func testTheBytesAreJSONEncodersWithSortedKeys() throws {
        try assertSameBytesAsJSONEncoder(populated())
    }

    func testAKeyWithEveryControlCharacterIsWrittenAsJSONEncoderWritesIt() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) } + ["\u{7F}"]))
        let state = populated(conflictKey: "line\nbreak \(controls) end")
        XCTAssertEqual(try JSONDecoder().decode(ReplicaState.self, from: Data(ReplicaStateJSON.encode(state))), state)
        try assertSameBytesAsJSONEncoder(state)
    }
}
