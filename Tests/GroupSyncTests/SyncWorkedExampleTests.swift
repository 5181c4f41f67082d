import GroupSyncCore
import Keyring
import SealedStorage
import XCTest

/// docs/SYNC.md's worked example ("A worked example", section 4): its names and its sealed
/// entry, computed by the independent implementation (Resources/groupsync_independent.py), are
/// what GroupSync computes from the same key, group, store, key, value, clock and nonce.
final class SyncWorkedExampleTests: XCTestCase {
    private let group = GroupIdentifier(rawValue: "group.com.example.notes")!
    private let firstKey = try! SymmetricKey(bytes: (0..<32).map { UInt8($0) })
    private var naming: SyncNaming { SyncNaming(group: group, firstKey: firstKey) }
    private var space: [UInt8] { naming.space(store: "kvstore:ABCDE12345.com.example.notes") }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testTheStateKeyIsTheDocumentedOne() {
        XCTAssertEqual(hex(naming.stateKey.exportedBytes()), "f83680fa0e143dd29c3c0bd4fe33f3f74816ed703508866f550783de7813b0df")
    }

    func testTheSpaceIsTheDocumentedOne() {
        XCTAssertEqual(hex(space), "63c5f819ee6c4482b432d47f208c8fdb2afcd188dad94a2bed1fc9980b183e9b")
    }

    func testTheNameAndChannelAreTheDocumentedOnes() {
        XCTAssertEqual(hex(naming.name(space: space, key: "theme")), "26cf9d7ebc6afe0c069df46ffa6a75de3f1865f482ffa31083884b469a6865f2")
        XCTAssertEqual(SyncNaming.channel(space: space), "gs_63c5f819ee6c4482b432d47f208c8fdb")
    }

    func testTheSealedEntryIsTheDocumentedOne() throws {
        let blob = try SyncEnvelope.seal(
            key: "theme", value: Array(#"{"string":"dark"}"#.utf8), sequence: 1, issuedAtMilliseconds: 1_700_000_000_000,
            groupKey: GroupKey(id: 1, group: group, key: firstKey), name: naming.name(space: space, key: "theme"),
            nonce: try XChaCha20Poly1305.Nonce(bytes: (0x40..<0x58).map { UInt8($0) }))
        XCTAssertEqual(hex(blob), """
            47565242010100000000000100000000000000010000018bcfe568000000000000000000000000010100000000000042404142434445464748494a4b4c4d4e4f5051525354555657\
            af1b6e15a9c24334fb9ce2d3cabe49b0e4dbc1b1767b69b80f48b73f6d4c69e0749461071afbce7ba6eabe3e43b4eaccb9164dafe08c5916c5e62ce8cbc10d64aae7
            """)
    }
}
