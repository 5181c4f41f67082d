import GroupSyncCore
import Keyring
import SealedStorage
import Vault
import XCTest

/// A space's snapshot as it rests on the server (docs/SYNC.md, section 6, "Snapshots"): sealed
/// under a key derived from the group key, bound to its space and group, and refused with the
/// Vault's reasons when altered, moved, or written by a faulty key holder.
final class SyncSnapshotFormatTests: XCTestCase {
    private let group = GroupIdentifier(rawValue: "group.com.example.notes")!
    private let firstKey = try! SymmetricKey(bytes: (0..<32).map { UInt8($0) })
    private var groupKey: GroupKey { GroupKey(id: 1, group: group, key: firstKey) }
    private var naming: SyncNaming { SyncNaming(group: group, firstKey: firstKey) }
    private var space: [UInt8] { naming.space(store: "kvstore:ABCDE12345.com.example.notes") }
    private let nonce = try! XChaCha20Poly1305.Nonce(bytes: (0x40..<0x58).map { UInt8($0) })

    private func key(_ id: UInt32) throws(VaultError) -> GroupKey {
        guard id == 1 else { throw VaultError(.unknownKey, "key #\(id) is not held") }
        return groupKey
    }

    /// Entry `key` at `sequence`, as a writer that accepted its row holds it (`value` `nil`: a
    /// removal, shown as nothing).
    private func entry(_ key: String, _ value: String?, sequence: UInt64) throws -> SyncSnapshot.Entry {
        let name = naming.name(space: space, key: key)
        let bytes = value.map { Array($0.utf8) }
        let blob = try SyncEnvelope.seal(
            key: key, value: bytes, sequence: sequence, issuedAtMilliseconds: 1_700_000_000_000, groupKey: groupKey, name: name, nonce: nonce)
        return SyncSnapshot.Entry(name: name, sequence: sequence, blob: blob, shown: bytes.map { SyncSnapshot.Shown(key: key, value: $0) })
    }

    /// Three entries, one of them removed, in name order, up to change 7.
    private func snapshot() throws -> SyncSnapshot {
        let entries = try [entry("theme", "dark", sequence: 2), entry("font", "serif", sequence: 1), entry("gone", nil, sequence: 3)]
        return SyncSnapshot(change: 7, entries: entries.sorted { $0.name.lexicographicallyPrecedes($1.name) })
    }

    private func open(_ blob: [UInt8], change: Int64 = 7, space: [UInt8]? = nil, contents: @escaping @Sendable (SyncEnvelope) -> String? = { _ in nil }) throws(VaultError) -> SyncSnapshot {
        try SyncSnapshot.open(blob, change: change, space: space ?? self.space, naming: naming, key: key, contents: contents)
    }

    private func assertRefused(_ code: VaultError.Code, _ blob: [UInt8], change: Int64 = 7, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try open(blob, change: change), file: file, line: line) { error in
            XCTAssertEqual((error as? VaultError)?.code, code, "\(error)", file: file, line: line)
        }
    }

    /// The documented layout, written here from docs/SYNC.md rather than by `SyncSnapshot`:
    /// `plaintext` sealed under `header`'s fields.
    private func sealByHand(_ plaintext: [UInt8], count: UInt32, change: UInt64 = 7, version: UInt8 = 1) -> [UInt8] {
        var header = Array("GVSS".utf8) + [version, 0, 0, 0]
        withUnsafeBytes(of: UInt32(1).bigEndian) { header += $0 }
        withUnsafeBytes(of: change.bigEndian) { header += $0 }
        withUnsafeBytes(of: count.bigEndian) { header += $0 }
        header += nonce.bytes
        var aad = header
        for part in [Array("snapshot".utf8), space, Array(group.rawValue.utf8)] {
            withUnsafeBytes(of: UInt64(part.count).bigEndian) { aad += $0 }
            aad += part
        }
        let key = KeyDerivation.deriveKey(from: firstKey, context: "GVSYNC01", id: 3)
        return header + XChaCha20Poly1305.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
    }

    /// `entry` in the documented plaintext layout; `flag` overrides the shown flag.
    private func plaintext(of entry: SyncSnapshot.Entry, flag: UInt8? = nil) -> [UInt8] {
        var bytes = entry.name
        withUnsafeBytes(of: entry.sequence.bigEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(entry.blob.count).bigEndian) { bytes += $0 }
        bytes += entry.blob
        guard let shown = entry.shown else { return bytes + [flag ?? 0] }
        bytes.append(flag ?? 1)
        withUnsafeBytes(of: UInt16(shown.key.utf8.count).bigEndian) { bytes += $0 }
        bytes += Array(shown.key.utf8)
        withUnsafeBytes(of: UInt32(shown.value.count).bigEndian) { bytes += $0 }
        return bytes + shown.value
    }

    func testASealedSnapshotOpensToItsChangeAndEntries() throws {
        let snapshot = try snapshot()

        XCTAssertEqual(try open(try snapshot.sealed(space: space, groupKey: groupKey)), snapshot)
    }

    func testTheDocumentedLayoutWrittenByHandIsRead() throws {
        let snapshot = try snapshot()
        let blob = sealByHand(snapshot.entries.flatMap { plaintext(of: $0) }, count: 3)

        XCTAssertEqual(blob, try snapshot.sealed(space: space, groupKey: groupKey, nonce: nonce))
        XCTAssertEqual(try open(blob), snapshot)
    }

    func testEveryByteFlippedIsRefused() throws {
        let blob = try snapshot().sealed(space: space, groupKey: groupKey)
        for index in blob.indices {
            var altered = blob
            altered[index] ^= 0x01
            XCTAssertThrowsError(try open(altered), "byte \(index) flipped was read")
        }
    }

    func testAFlippedVersionIsRefusedAsAnUnsupportedFormat() throws {
        var blob = try snapshot().sealed(space: space, groupKey: groupKey)
        blob[4] = 2

        assertRefused(.unsupportedFormat, blob)
    }

    func testAFlippedCiphertextByteIsRefusedAsFailingAuthentication() throws {
        var blob = try snapshot().sealed(space: space, groupKey: groupKey)
        blob[SyncSnapshot.headerByteCount + 10] ^= 0x80

        assertRefused(.authenticationFailed, blob)
    }

    func testASnapshotMovedToAnotherSpaceFailsAuthentication() throws {
        let blob = try snapshot().sealed(space: space, groupKey: groupKey)

        XCTAssertThrowsError(try open(blob, space: naming.space(store: "records"))) { error in
            XCTAssertEqual((error as? VaultError)?.code, .authenticationFailed, "\(error)")
        }
    }

    func testASnapshotOfAnotherGroupFailsAuthentication() throws {
        let other = GroupIdentifier(rawValue: "group.com.example.elsewhere")!
        let blob = try snapshot().sealed(space: space, groupKey: GroupKey(id: 1, group: other, key: firstKey))

        assertRefused(.authenticationFailed, blob)
    }

    func testAChangeColumnOtherThanTheSealedChangeIsRefusedAsMalformed() throws {
        let blob = try snapshot().sealed(space: space, groupKey: groupKey)

        assertRefused(.malformed, blob, change: 6)
    }

    func testASnapshotSealedWithAKeyNotHeldIsRefusedAsAnUnknownKey() throws {
        let blob = try snapshot().sealed(space: space, groupKey: GroupKey(id: 2, group: group, key: try SymmetricKey(bytes: [UInt8](repeating: 9, count: 32))))

        assertRefused(.unknownKey, blob)
    }

    func testAKeyShownUnderAnotherEntrysNameIsRefusedAsAnInvalidRecord() throws {
        var snapshot = try snapshot()
        snapshot.entries[0].shown?.key = "not its key"

        assertRefused(.invalidRecord, try snapshot.sealed(space: space, groupKey: groupKey))
    }

    func testAnEntryWhoseBlobIsSealedAtAnotherSequenceIsRefusedAsMalformed() throws {
        var snapshot = try snapshot()
        snapshot.entries[0].sequence += 1

        assertRefused(.malformed, try snapshot.sealed(space: space, groupKey: groupKey))
    }

    func testAnEntryMoreThan2To32AboveNothingSeenIsRefusedAsAnUntrustedSequence() throws {
        var snapshot = try snapshot()
        snapshot.entries = try snapshot.entries.map { $0.shown?.key == "theme" ? try entry("theme", "dark", sequence: (1 << 32) + 1) : $0 }

        assertRefused(.untrustedSequence, try snapshot.sealed(space: space, groupKey: groupKey))
    }

    func testAnEntryTheStoreDoesNotTakeIsRefusedAsAnInvalidRecord() throws {
        let blob = try snapshot().sealed(space: space, groupKey: groupKey)

        XCTAssertThrowsError(try open(blob, contents: { $0.key == "font" ? "fonts are not taken here" : nil })) { error in
            XCTAssertEqual((error as? VaultError)?.code, .invalidRecord, "\(error)")
        }
    }

    func testEntriesOutOfNameOrderAreRefusedAsMalformed() throws {
        let entries = try snapshot().entries

        assertRefused(.malformed, sealByHand(entries.reversed().flatMap { plaintext(of: $0) }, count: 3))
    }

    func testAnEntryGivenTwiceIsRefusedAsMalformed() throws {
        let entries = try snapshot().entries

        assertRefused(.malformed, sealByHand((entries + [entries[2]]).flatMap { plaintext(of: $0) }, count: 4))
    }

    func testBytesAfterTheLastEntryAreRefusedAsMalformed() throws {
        let entries = try snapshot().entries

        assertRefused(.malformed, sealByHand(entries.flatMap { plaintext(of: $0) } + [0], count: 3))
    }

    func testAShownFlagOtherThanZeroOrOneIsRefusedAsMalformed() throws {
        let entries = try snapshot().entries

        assertRefused(.malformed, sealByHand(plaintext(of: entries[0], flag: 2) + entries[1...].flatMap { plaintext(of: $0) }, count: 3))
    }

    func testAnEntryCountAboveWhatTheBytesHoldIsRefusedAsMalformed() throws {
        let entries = try snapshot().entries

        assertRefused(.malformed, sealByHand(entries.flatMap { plaintext(of: $0) }, count: 1_000))
    }

    func testEntriesOutOfNameOrderAreNotSealed() throws {
        var snapshot = try snapshot()
        snapshot.entries.reverse()

        XCTAssertThrowsError(try snapshot.sealed(space: space, groupKey: groupKey)) { error in
            XCTAssertEqual((error as? SyncError)?.code, .invalidArgument, "\(error)")
        }
    }
}
